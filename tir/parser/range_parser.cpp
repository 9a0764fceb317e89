// Ranges are written Python's way, start and stop, and the printer folds the
// stop where it can (core/printer.cpp, PrintContext::stop). Reading them
// back recovers the extent the IR stores (docs/ir_text.md, Ranges):
//
//   stop text                    extent
//   `n` after start 0            n                    (start is zero of n's type)
//   `6` after start 2            4                    (both constants, one type)
//   `i * 4 + 4` after `i * 4`    4                    (the start's own tokens, '+', a term)
//
// The last rule compares tokens, not values, which is what makes it exact:
// the printer writes that form only as `<start> + <extent>`, with the extent
// parenthesised below '+' precedence.
#include "tir/parser/diagnostic.h"
#include "tir/parser/expr_parser.h"

namespace kiln::parser {

namespace {

bool is_zero_imm(const Expr& e) { return e.as<IntImmNode>() && is_const_int(e, 0); }

}  // namespace

Expr ExprParser::parse_extent_after(const Expr& start, size_t start_begin, size_t start_end) {
  size_t stop = in_.pos();
  size_t n = start_end - start_begin;
  bool zero_start = is_zero_imm(start);
  if (in_.same_tokens(start_begin, start_end, stop) && in_.at(stop + n).is_op("+")) {
    in_.seek(stop + n + 1);
    Expr e = parse_term();
    const Token& after = in_.peek();
    if (after.is_op(",") || after.is_op(")") || after.is_op("]")) {
      // `0 + e` of one type is an extent that is itself a sum: with a zero
      // start of the extent's type the printer writes the extent alone.
      if (zero_start && start.dtype() == e.dtype()) return make_binary(ExprKind::Add, start, e);
      return e;
    }
    in_.seek(stop);
  }
  const Token& at = in_.peek();
  Expr end = parse_index("the stop of a range");
  if (zero_start && start.dtype() == end.dtype()) return end;
  const int64_t* a = as_const_int(start);
  const int64_t* b = as_const_int(end);
  if (a && b && start.dtype() == end.dtype()) return int_imm(start.dtype(), *b - *a);
  std::string start_text;
  for (size_t p = start_begin; p < start_end; ++p) start_text += (p > start_begin ? " " : "") + in_.at(p).text;
  error_at(at, "expected the stop of the range as a constant or as '" + start_text + " + extent'");
}

Range ExprParser::parse_domain() {
  if (in_.at_op("(")) {
    size_t open = in_.pos();
    size_t close = in_.after_closing(open) - 1;
    size_t comma = in_.find_top_level(open + 1, ",");
    if (comma != std::string_view::npos && comma < close) {
      in_.next();
      size_t begin = in_.pos();
      Expr start = parse_index("the start of a domain");
      size_t end = in_.pos();
      in_.expect_op(",", "after the start of the domain");
      Expr extent = parse_extent_after(start, begin, end);
      in_.expect_op(")", "after the stop of the domain");
      return Range(start, extent);
    }
  }
  const Token& at = in_.peek();
  Expr extent = parse_index("an extent");
  if (!extent.dtype().is_scalar()) error_at(at, "an extent must be a scalar");
  return Range::from_extent(extent);
}

BufferRegion ExprParser::parse_region() {
  const Token& name = in_.expect_identifier("as the buffer of a region");
  const ObjectRef& object = names_.lookup(name);
  if (!object.as<BufferNode>()) error_at(name, "'" + name.text + "' is a variable, not a buffer");
  Buffer buffer(object.ptr());
  in_.expect_op("[", "after the buffer of a region");
  std::vector<Range> ranges;
  if (in_.at_op("(") && in_.peek(1).is_op(")")) {
    in_.next();
    in_.next();
  } else {
    do {
      size_t begin = in_.pos();
      const Token& at = in_.peek();
      Expr start = parse_index("a region bound");
      size_t end = in_.pos();
      if (in_.accept_op(":")) {
        ranges.emplace_back(start, parse_extent_after(start, begin, end));
      } else {
        if (!start.dtype().is_scalar()) error_at(at, "a region bound must be a scalar");
        ranges.emplace_back(start, int_imm(start.dtype(), 1));
      }
    } while (in_.accept_op(","));
  }
  in_.expect_op("]", "after the region of '" + name.text + "'");
  return BufferRegion(buffer, std::move(ranges));
}

}  // namespace kiln::parser
