#include "tir/parser/literals.h"

#include <charconv>
#include <string>

#include "tir/parser/diagnostic.h"

namespace kiln::parser {

std::optional<DataType> dtype_from_name(std::string_view name) {
  static constexpr std::string_view kScalars[] = {"bool",   "int8",   "int16",   "int32",    "int64",
                                                  "uint8",  "uint16", "uint32",  "uint64",   "float16",
                                                  "float32", "float64", "bfloat16", "handle", "void"};
  std::string_view base = name;
  if (size_t x = name.find('x'); x != std::string_view::npos) {
    base = name.substr(0, x);
    std::string_view lanes = name.substr(x + 1);
    if (lanes.empty() || lanes.size() > 4 || lanes[0] == '0') return std::nullopt;
    for (char c : lanes)
      if (c < '0' || c > '9') return std::nullopt;
    if (base == "handle" || base == "void") return std::nullopt;
  }
  for (std::string_view s : kScalars)
    if (base == s) return DataType::parse(std::string(name));
  return std::nullopt;
}

DataType expect_dtype(const Token& at, std::string_view name) {
  std::optional<DataType> t = dtype_from_name(name);
  if (!t) error_at(at, "unknown data type '" + std::string(name) + "'");
  return *t;
}

Expr int_literal(const Token& digits, bool negative, DataType t) {
  uint64_t magnitude = 0;
  const char* end = digits.text.data() + digits.text.size();
  auto r = std::from_chars(digits.text.data(), end, magnitude);
  std::string shown = (negative ? "-" : "") + digits.text;
  if (r.ec != std::errc() || r.ptr != end) error_at(digits, "integer " + shown + " does not fit " + t.str());
  // The values of t, as [lo, hi] on magnitudes: a negative value needs
  // magnitude <= -lo, a positive one magnitude <= hi.
  uint64_t hi, neg_lo;
  if (t.is_bool()) {
    hi = 1;
    neg_lo = 0;
  } else if (t.is_uint()) {
    hi = t.bits() == 64 ? UINT64_MAX : (uint64_t{1} << t.bits()) - 1;
    neg_lo = 0;
  } else {
    hi = (uint64_t{1} << (t.bits() - 1)) - 1;
    neg_lo = uint64_t{1} << (t.bits() - 1);
  }
  if (negative ? magnitude > neg_lo : magnitude > hi)
    error_at(digits, "integer " + shown + " does not fit " + t.str());
  int64_t v = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return int_imm(t, v);
}

Expr float_literal(const Token& number, bool negative, DataType t) {
  const char* begin = number.text.data();
  const char* end = begin + number.text.size();
  double v = 0;
  std::from_chars_result r;
  // A float32 constant prints as the shortest text that reads back as that
  // float, so it is read as a float: going through double could round twice.
  if (t.bits() == 32 && t.code() == DataType::kFloat) {
    float f = 0;
    r = std::from_chars(begin, end, f);
    v = f;
  } else {
    r = std::from_chars(begin, end, v);
  }
  if (r.ec != std::errc() || r.ptr != end) error_at(number, "number " + number.text + " is out of range for " + t.str());
  return float_imm(t, negative ? -v : v);
}

}  // namespace kiln::parser
