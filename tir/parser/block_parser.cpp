// Blocks (docs/ir_text.md, Blocks): a header of fixed order, then the body.
//
//   with T.block("C"):                   BlockRealize around Block "C"
//       vi = T.axis.spatial(64, i)       axes: domain, bound value
//       T.where(i < 60)                  the realize's predicate
//       T.reads(A[vi]) / T.writes(C[vi])
//       T.block_attr({...})
//       C_local = T.alloc_buffer(...)
//       with T.init(): ...
//       body
//
// A block's regions may name the buffers it allocates, which the header
// declares after the regions; the region lines are therefore read after the
// allocations, by coming back to them.
#include "tir/parser/diagnostic.h"
#include "tir/parser/stmt_parser.h"

namespace kiln::parser {

namespace {

bool at_named_t(const TokenCursor& in, std::string_view fn) {
  return in.peek().kind == TokenKind::kName && in.peek(1).is_op("=") && in.peek(2).is_name("T") &&
         in.peek(3).is_op(".") && in.peek(4).is_name(fn);
}

}  // namespace

// vi = T.axis.spatial(64, i) or T.axis.reduce((8, 40), k + 8, dtype="int64");
// without a realize the bound value is absent.
IterVar StmtParser::parse_axis(bool realized, std::vector<Expr>& values) {
  const Token& name = in_.next();
  in_.expect_op("=", "");
  in_.expect_t("axis", "");
  in_.expect_op(".", "after 'T.axis'");
  const Token& kind = in_.expect_identifier("as the axis kind");
  if (kind.text != "spatial" && kind.text != "reduce")
    error_at(kind, "unknown axis kind 'T.axis." + kind.text + "'; expected T.axis.spatial or T.axis.reduce");
  in_.expect_op("(", "after 'T.axis." + kind.text + "'");
  Range dom = exprs_.parse_domain();
  bool has_value = in_.at_op(",") && !in_.peek(1).is_name("dtype");
  if (has_value && !realized)
    error_at(in_.peek(1), "axis '" + name.text + "' of a block with no_realize=True has no bound value");
  if (!has_value && realized)
    in_.fail_expected("',' and the bound value", "of axis '" + name.text + "'");
  if (has_value) {
    in_.next();
    values.push_back(exprs_.parse_index("the value of axis '" + name.text + "'"));
  }
  DataType t = exprs_.parse_bound_dtype(dom->extent);
  in_.expect_op(")", "after the axis");
  end_line("after the axis");
  Var v = names_.bind_var(name, t);
  return IterVar(v, dom, kind.text == "reduce" ? IterType::kReduce : IterType::kSpatial);
}

Stmt StmtParser::parse_block() {
  in_.expect_t("block", "");
  in_.expect_op("(", "after 'T.block'");
  BlockFields f;
  f.name = in_.expect_string("as the block name").text;
  bool realized = true;
  if (in_.accept_op(",")) {
    in_.expect_keyword("no_realize", "after the block name");
    in_.expect_name("True", "after 'no_realize='");
    realized = false;
  }
  in_.expect_op(")", "after the block name");
  in_.expect_op(":", "after T.block(...)");
  end_line("after ':'");
  in_.expect(TokenKind::kIndent, "an indented block", "after ':'");
  const std::string in_block = "in block '" + f.name + "'";

  ScopeGuard scope(names_);
  std::vector<Expr> values;
  while (at_named_t(in_, "axis")) f.iter_vars.push_back(parse_axis(realized, values));

  Expr predicate;
  if (in_.at_t("where")) {
    const Token& where = in_.peek(2);
    if (!realized) error_at(where, "a block with no_realize=True has no predicate");
    in_.expect_t("where", "");
    in_.expect_op("(", "after 'T.where'");
    const Token& at = in_.peek();
    predicate = exprs_.parse();
    if (predicate.dtype() != DataType::Bool()) error_at(at, "T.where needs a bool, not " + predicate.dtype().str());
    in_.expect_op(")", "after the predicate");
    end_line("after T.where(...)");
  }

  // Skip the region lines; they are read once the allocations are bound.
  size_t regions = in_.pos();
  for (std::string_view fn : {"reads", "writes"}) {
    in_.expect_t(fn, in_block + " (after its axes and T.where)");
    in_.seek(in_.line_end(in_.pos()) + 1);
  }
  if (in_.at_t("block_attr")) {
    in_.expect_t("block_attr", "");
    in_.expect_op("(", "after 'T.block_attr'");
    f.annotations = exprs_.parse_annotations();
    in_.expect_op(")", "after the annotations");
    end_line("after T.block_attr(...)");
  }
  while (at_named_t(in_, "alloc_buffer")) {
    const Token& name = in_.next();
    in_.next();
    in_.expect_t("alloc_buffer", "");
    in_.expect_op("(", "after 'T.alloc_buffer'");
    Buffer b = exprs_.parse_buffer_args(name.text);
    in_.expect_op(")", "after the arguments of T.alloc_buffer");
    end_line("after T.alloc_buffer(...)");
    f.alloc_buffers.push_back(names_.bind_buffer(name, b));
  }
  size_t rest = in_.pos();
  in_.seek(regions);
  for (auto* out : {&f.reads, &f.writes}) {
    in_.next();
    in_.next();
    in_.next();
    in_.expect_op("(", "after the region function");
    while (!in_.at_op(")")) {
      out->push_back(exprs_.parse_region());
      if (!in_.accept_op(",")) break;
    }
    in_.expect_op(")", "after the regions");
    end_line("after the regions");
  }
  in_.seek(rest);

  if (in_.at_name("with") && in_.peek(1).is_name("T") && in_.peek(2).is_op(".") && in_.peek(3).is_name("init")) {
    in_.next();
    in_.expect_t("init", "");
    in_.expect_op("(", "after 'T.init'");
    in_.expect_op(")", "after 'T.init('");
    f.init = parse_body("after 'with T.init()'");
  }
  if (in_.at(TokenKind::kDedent)) in_.fail_expected("the body of the block", "");
  f.body = parse_suite_rest();
  in_.expect(TokenKind::kDedent, "end of block", "");

  Stmt b = block(std::move(f));
  if (!realized) return b;
  return block_realize(std::move(values), predicate, b);
}

}  // namespace kiln::parser
