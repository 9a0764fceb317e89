#include "tir/index_map.h"

#include <algorithm>
#include <limits>

#include "core/arith/analyzer.h"
#include "core/error.h"
#include "core/functor.h"
#include "core/printer.h"
#include "tir/parser/parser.h"

namespace kiln {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// `s` cut at its commas outside parentheses.
std::vector<std::string_view> split_top_level(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '[') ++depth;
    if (s[i] == ')' || s[i] == ']') --depth;
    if (s[i] == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.push_back(trim(s.substr(start)));
  if (parts.size() > 1 && parts.back().empty()) parts.pop_back();  // (e,)
  return parts;
}

// An output as a digit of one input: (inputs[input] // divisor) % modulus.
struct Digit {
  int input = -1;
  int64_t divisor = 1;
  std::optional<int64_t> modulus;
};

int input_of(const Expr& e, const std::vector<Var>& inputs) {
  const auto* v = e.as<VarNode>();
  if (!v) return -1;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (&*inputs[i] == v) return static_cast<int>(i);
  return -1;
}

std::optional<Digit> as_digit(const Expr& e, const std::vector<Var>& inputs) {
  Digit d;
  Expr x = e;
  if (const auto* m = x.as<FloorModNode>()) {
    const int64_t* c = as_const_int(m->b);
    if (!c || *c <= 0) return std::nullopt;
    d.modulus = *c;
    x = m->a;
  }
  if (const auto* q = x.as<FloorDivNode>()) {
    const int64_t* c = as_const_int(q->b);
    if (!c || *c <= 0) return std::nullopt;
    d.divisor = *c;
    x = q->a;
  }
  d.input = input_of(x, inputs);
  if (d.input < 0) return std::nullopt;
  return d;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

IndexMap IndexMap::parse(std::string_view text, const std::vector<DataType>& dtypes) {
  std::string_view s = trim(text);
  const std::string_view kw = "lambda";
  if (s.substr(0, kw.size()) != kw)
    KILN_USER_ERROR() << "index map '" << text << "' does not start with 'lambda'";
  s.remove_prefix(kw.size());
  const size_t colon = s.find(':');
  if (colon == std::string_view::npos) KILN_USER_ERROR() << "index map '" << text << "' has no ':'";
  IndexMap m;
  std::string_view params = trim(s.substr(0, colon));
  if (!params.empty()) {
    for (std::string_view p : split_top_level(params)) {
      if (p.empty()) KILN_USER_ERROR() << "index map '" << text << "' has an empty parameter name";
      m.inputs.emplace_back(std::string(p), DataType::Int32());
    }
  }
  if (m.inputs.size() != dtypes.size())
    KILN_USER_ERROR() << "index map '" << text << "' takes " << m.inputs.size() << " indices, the buffer has "
                      << dtypes.size();
  for (size_t i = 0; i < dtypes.size(); ++i) m.inputs[i] = Var(m.inputs[i].name(), dtypes[i]);

  std::string_view body = trim(s.substr(colon + 1));
  if (body.size() >= 2 && body.front() == '(' && body.back() == ')') {
    // Strip the tuple's parentheses unless they only wrap the first element: "(a) + (b)".
    int depth = 0;
    bool wraps = true;
    for (size_t i = 0; i < body.size(); ++i) {
      depth += body[i] == '(' ? 1 : body[i] == ')' ? -1 : 0;
      if (depth == 0 && i + 1 < body.size()) wraps = false;
    }
    if (wraps) body = trim(body.substr(1, body.size() - 2));
  }
  if (body.empty()) KILN_USER_ERROR() << "index map '" << text << "' has no output indices";
  ParseEnv env;
  env.vars = m.inputs;
  for (std::string_view part : split_top_level(body)) {
    if (part.empty()) KILN_USER_ERROR() << "index map '" << text << "' has an empty output index";
    Expr e = parse_expr(part, env);
    if (!e.dtype().is_int() || e.dtype().lanes() != 1)
      KILN_USER_ERROR() << "index map '" << text << "': output '" << part << "' is not an integer";
    m.outputs.push_back(e);
  }
  return m;
}

std::string IndexMap::str() const {
  std::string s = "lambda ";
  for (size_t i = 0; i < inputs.size(); ++i) s += (i ? ", " : "") + inputs[i].name();
  s += ": (";
  for (size_t i = 0; i < outputs.size(); ++i) s += (i ? ", " : "") + to_string(outputs[i]);
  if (outputs.size() == 1) s += ",";
  return s + ")";
}

std::vector<Expr> IndexMap::apply(const std::vector<Expr>& indices) const {
  KILN_ICHECK(indices.size() == inputs.size()) << "index map of " << inputs.size() << " indices applied to "
                                               << indices.size();
  std::vector<std::pair<Var, Expr>> subst;
  for (size_t i = 0; i < inputs.size(); ++i) subst.emplace_back(inputs[i], indices[i]);
  std::vector<Expr> out;
  for (const Expr& e : outputs) out.push_back(simplify(substitute(e, subst)));
  return out;
}

std::optional<std::string> IndexMap::check_injective(const std::vector<int64_t>& extents) const {
  KILN_ICHECK(extents.size() == inputs.size());
  std::vector<std::vector<Digit>> by_input(inputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    std::optional<Digit> d = as_digit(outputs[o], inputs);
    if (!d)
      return "output " + std::to_string(o) + " ('" + to_string(outputs[o]) +
             "') is not an index, 'i // c', 'i % c' or '(i // c) % d' of one index";
    by_input[d->input].push_back(*d);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto& digits = by_input[i];
    std::sort(digits.begin(), digits.end(), [](const Digit& a, const Digit& b) { return a.divisor < b.divisor; });
    // The digits must tile [0, extent): each starts where the last ended.
    int64_t covered = 1;  // the next digit's divisor
    bool unbounded = false;
    for (const Digit& d : digits) {
      if (unbounded || d.divisor != covered)
        return "index '" + inputs[i].name() + "' is not split into digits that cover it exactly once";
      if (d.modulus)
        covered = d.divisor * *d.modulus;
      else
        unbounded = true;
    }
    if (!unbounded && covered < extents[i])
      return "index '" + inputs[i].name() + "' (extent " + std::to_string(extents[i]) + ") is only covered up to " +
             std::to_string(covered);
  }
  return std::nullopt;
}

std::vector<int64_t> IndexMap::image_shape(const std::vector<int64_t>& extents) const {
  std::vector<int64_t> shape;
  for (const Expr& e : outputs) {
    std::optional<Digit> d = as_digit(e, inputs);
    KILN_ICHECK(d) << "image_shape of an index map that is not a split";
    int64_t ext = ceil_div(extents[d->input], d->divisor);
    if (d->modulus) ext = std::min(ext, *d->modulus);
    shape.push_back(ext);
  }
  return shape;
}

}  // namespace kiln
