#include "ops/workload.h"

#include <charconv>
#include <set>
#include <sstream>

#include "ops/op_table.h"

namespace kiln::ops {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) return out;
    start = p + 1;
  }
}

std::string key_list(const OpSpec& spec, bool required_only) {
  std::ostringstream os;
  bool first = true;
  for (const ParamSpec& p : spec.params) {
    if (required_only && p.default_value) continue;
    os << (first ? "" : ", ") << p.name;
    first = false;
  }
  if (!required_only && spec.dtypes != DTypeRule::kFixed) os << ", dtype";
  return os.str();
}

const ParamSpec* find_param(const OpSpec& spec, const std::string& key) {
  for (const ParamSpec& p : spec.params)
    if (p.name == key) return &p;
  return nullptr;
}

std::string choice_list(const ParamSpec& p) {
  std::string s;
  for (const std::string& c : p.choices) s += (s.empty() ? "" : ", ") + c;
  return s;
}

void check_range(const OpSpec& spec, const ParamSpec& p, int64_t v) {
  if (!p.choices.empty()) {
    if (v < 0 || v >= static_cast<int64_t>(p.choices.size()))
      KILN_USER_ERROR() << spec.name << ": " << p.name << " must be one of " << choice_list(p);
    return;
  }
  if (v >= p.min && v <= p.max) return;
  if (p.max == INT32_MAX) {
    if (v > p.max) KILN_USER_ERROR() << spec.name << ": " << p.name << "=" << v << " is too large (at most " << p.max << ")";
    if (p.min == 1) KILN_USER_ERROR() << spec.name << ": " << p.name << "=" << v << " must be positive";
    if (p.min == 0) KILN_USER_ERROR() << spec.name << ": " << p.name << "=" << v << " must be non-negative";
    KILN_USER_ERROR() << spec.name << ": " << p.name << "=" << v << " must be at least " << p.min;
  }
  KILN_USER_ERROR() << spec.name << ": " << p.name << "=" << v << " must be between " << p.min << " and " << p.max;
}

int64_t parse_value(const OpSpec& spec, const ParamSpec& p, const std::string& text) {
  if (!p.choices.empty()) {
    for (size_t i = 0; i < p.choices.size(); ++i)
      if (p.choices[i] == text) return static_cast<int64_t>(i);
    KILN_USER_ERROR() << spec.name << ": " << p.name << "='" << text << "' is not one of " << choice_list(p);
  }
  int64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec == std::errc::result_out_of_range)
    KILN_USER_ERROR() << spec.name << ": " << p.name << "=" << text << " is too large";
  if (text.empty() || ec != std::errc() || ptr != e)
    KILN_USER_ERROR() << spec.name << ": " << p.name << "='" << text << "' is not an integer";
  return v;
}

void check_dtype(const OpSpec& spec, DataType t) {
  bool is_float = t.code() == DataType::kFloat && (t.bits() == 16 || t.bits() == 32 || t.bits() == 64);
  bool is_int = (t.is_int() || t.is_uint()) && (t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64);
  if (t.lanes() != 1 || !(is_float || is_int))
    KILN_USER_ERROR() << spec.name << ": dtype " << t.str() << " is not supported (use int8..int64, uint8..uint64, "
                      << "float16, float32 or float64)";
  if (spec.dtypes == DTypeRule::kFixed && t != DataType::Float32())  // the default, which a string cannot change
    KILN_USER_ERROR() << spec.name << ": takes no dtype (its name says its types), got dtype=" << t.str();
  if (spec.dtypes == DTypeRule::kFloat && !is_float)
    KILN_USER_ERROR() << spec.name << ": dtype " << t.str() << " is not supported (floating-point types only)";
}

DataType parse_dtype(const OpSpec& spec, const std::string& text) {
  DataType t;
  try {
    t = DataType::parse(text);
  } catch (const Error&) {
    KILN_USER_ERROR() << spec.name << ": bad dtype '" << text << "'";
  }
  return t;
}

}  // namespace

std::string Workload::str() const {
  const OpSpec& spec = find_op(op);
  std::ostringstream os;
  os << op << ":";
  for (const ParamSpec& p : spec.params) {
    auto it = params.find(p.name);
    if (it == params.end()) continue;
    os << p.name << "=";
    if (!p.choices.empty() && it->second >= 0 && it->second < static_cast<int64_t>(p.choices.size()))
      os << p.choices[it->second];
    else
      os << it->second;
    os << ",";
  }
  std::string s = os.str();
  if (spec.dtypes == DTypeRule::kFixed) return s.substr(0, s.size() - 1);  // the name says the types
  return s + "dtype=" + dtype.str();
}

void check_workload(const Workload& w) {
  const OpSpec& spec = find_op(w.op);
  for (const auto& [key, value] : w.params) {
    if (!find_param(spec, key))
      KILN_USER_ERROR() << spec.name << ": unknown key '" << key << "' (keys: " << key_list(spec, false) << ")";
  }
  for (const ParamSpec& p : spec.params) {
    auto it = w.params.find(p.name);
    if (it == w.params.end())
      KILN_USER_ERROR() << spec.name << ": missing key " << p.name << " (required keys: " << key_list(spec, true)
                        << ")";
    check_range(spec, p, it->second);
  }
  check_dtype(spec, w.dtype);
  if (spec.check) spec.check(w);
}

Workload parse_workload(const std::string& text) {
  std::string s = trim(text);
  if (s.empty()) KILN_USER_ERROR() << "empty workload string";
  size_t colon = s.find(':');
  Workload w;
  w.op = trim(s.substr(0, colon));
  if (w.op.empty()) KILN_USER_ERROR() << "workload '" << s << "' has no op name before ':'";
  const OpSpec& spec = find_op(w.op);

  std::set<std::string> seen;
  std::string rest = colon == std::string::npos ? "" : trim(s.substr(colon + 1));
  if (!rest.empty()) {
    for (const std::string& raw : split(rest, ',')) {
      std::string item = trim(raw);
      size_t eq = item.find('=');
      if (item.empty() || eq == std::string::npos || eq == 0)
        KILN_USER_ERROR() << "malformed item '" << item << "' in workload '" << s << "': expected key=value";
      std::string key = trim(item.substr(0, eq));
      std::string value = trim(item.substr(eq + 1));
      if (!seen.insert(key).second) KILN_USER_ERROR() << spec.name << ": key '" << key << "' is given twice";
      if (key == "dtype") {
        if (spec.dtypes == DTypeRule::kFixed)
          KILN_USER_ERROR() << spec.name << ": takes no dtype (its name says its types), got dtype=" << value;
        w.dtype = parse_dtype(spec, value);
        continue;
      }
      const ParamSpec* p = find_param(spec, key);
      if (!p) KILN_USER_ERROR() << spec.name << ": unknown key '" << key << "' (keys: " << key_list(spec, false) << ")";
      int64_t v = parse_value(spec, *p, value);
      check_range(spec, *p, v);
      w.params[key] = v;
    }
  }
  for (const ParamSpec& p : spec.params) {
    if (!w.params.count(p.name) && p.default_value) w.params[p.name] = *p.default_value;
  }
  check_workload(w);
  return w;
}

PrimFunc build_workload(const Workload& w) {
  check_workload(w);
  return find_op(w.op).build(w);
}

double workload_flops(const Workload& w) {
  check_workload(w);
  return find_op(w.op).flops(w);
}

std::vector<std::string> list_ops() {
  std::vector<std::string> names;
  for (const OpSpec& s : op_table()) names.push_back(s.name);
  return names;
}

}  // namespace kiln::ops
