// The declaration pieces statements share: buffer declarations (parameters,
// T.Buffer, T.alloc_buffer, T.allocate), annotation dicts, type strings and
// the `dtype=` of bound variables.
#include <charconv>

#include "tir/parser/diagnostic.h"
#include "tir/parser/expr_parser.h"
#include "tir/parser/literals.h"

namespace kiln::parser {

Buffer ExprParser::parse_buffer_args(const std::string& name) {
  in_.expect_op("(", "to open the buffer shape");
  std::vector<Expr> shape;
  while (!in_.at_op(")")) {
    const Token& at = in_.peek();
    shape.push_back(parse_index("a buffer extent"));
    if (!shape.back().dtype().is_scalar()) error_at(at, "a buffer extent must be a scalar");
    if (!in_.accept_op(",")) break;
  }
  in_.expect_op(")", "after buffer shape");
  in_.expect_op(",", "after buffer shape");
  const Token& type_at = in_.peek();
  DataType t = parse_dtype_string("as the buffer's element type");
  if (!t.is_scalar()) error_at(type_at, "a buffer's element type is a scalar, not " + t.str());
  if (t.is_void()) error_at(type_at, "a buffer's element type cannot be void");

  auto n = std::make_shared<BufferNode>();
  n->name = name;
  n->dtype = t;
  n->shape = std::move(shape);
  // Optional keywords, in the order the printer writes them.
  if (in_.at_op(",") && in_.peek(1).is_name("scope")) {
    in_.next();
    in_.expect_keyword("scope", "");
    n->scope = in_.expect_string("as the buffer scope").text;
  }
  if (in_.at_op(",") && in_.peek(1).is_name("align_axis")) {
    in_.next();
    in_.expect_keyword("align_axis", "");
    n->align_axis = parse_count("as the alignment axis");
  }
  if (in_.at_op(",") && in_.peek(1).is_name("align_factor")) {
    in_.next();
    in_.expect_keyword("align_factor", "");
    n->align_factor = parse_count("as the alignment factor");
  }
  if (in_.at_op(",") && in_.peek(1).is_name("align_offset")) {
    in_.next();
    in_.expect_keyword("align_offset", "");
    n->align_offset = parse_count("as the alignment offset");
  }
  n->validate();
  return Buffer(ObjectPtr(std::move(n)));
}

Annotations ExprParser::parse_annotations() {
  in_.expect_op("{", "to open the annotations");
  Annotations out;
  while (!in_.at_op("}")) {
    const Token& key = in_.expect_string("as an annotation key");
    in_.expect_op(":", "after the annotation key");
    Expr value = parse();
    if (!out.emplace(key.text, value).second) error_at(key, "annotation '" + key.text + "' is given twice");
    if (!in_.accept_op(",")) break;
  }
  in_.expect_op("}", "after the annotations");
  return out;
}

DataType ExprParser::parse_dtype_string(std::string_view context) {
  const Token& s = in_.expect_string(context);
  return expect_dtype(s, s.text);
}

DataType ExprParser::parse_bound_dtype(const Expr& extent) {
  if (!in_.at_op(",") || !in_.peek(1).is_name("dtype")) return extent.dtype();
  in_.next();
  in_.expect_keyword("dtype", "");
  const Token& at = in_.peek();
  DataType t = parse_dtype_string("as the variable type");
  if (!t.is_integral() || t.is_bool() || !t.is_scalar()) error_at(at, "a bound variable must be a scalar integer, not " + t.str());
  return t;
}

int64_t ExprParser::parse_count(std::string_view context) {
  const Token& t = in_.expect(TokenKind::kInt, "an integer", context);
  int64_t v = 0;
  const char* end = t.text.data() + t.text.size();
  auto r = std::from_chars(t.text.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end) error_at(t, "integer " + t.text + " is too large");
  return v;
}

}  // namespace kiln::parser
