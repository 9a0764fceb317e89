// Typed constants of the IR text: data type names and the numbers of
// immediates. `T.int8(300)` is an error rather than a wrapped 44, so reading
// a constant back never changes it silently.
#pragma once

#include <optional>
#include <string_view>

#include "core/expr.h"
#include "tir/parser/lexer.h"

namespace kiln::parser {

// The type a name like "float32", "int8x16" or "bool" spells (DataType::str),
// or nullopt when it spells none.
std::optional<DataType> dtype_from_name(std::string_view name);
// The same for a name in the text; throws "unknown data type" at `at`.
DataType expect_dtype(const Token& at, std::string_view name);

// The integer immediate of type t (scalar integral or bool) for the literal
// token `digits`, negated when `negative`; throws when it does not fit.
Expr int_literal(const Token& digits, bool negative, DataType t);
// The float immediate of type t for a number token, negated when `negative`.
Expr float_literal(const Token& number, bool negative, DataType t);

}  // namespace kiln::parser
