#include "ops/workload_docs.h"

#include <algorithm>
#include <sstream>

#include "ops/op_table.h"

namespace kiln::ops {

namespace {

std::string default_text(const ParamSpec& p) {
  if (!p.default_value) return "";
  if (!p.choices.empty()) return p.choices[static_cast<size_t>(*p.default_value)];
  return std::to_string(*p.default_value);
}

std::string keys_summary(const OpSpec& s) {
  std::string out;
  for (const ParamSpec& p : s.params) {
    if (!out.empty()) out += ",";
    out += p.default_value ? "[" + p.name + "=" + default_text(p) + "]" : p.name;
  }
  return out;
}

const char* dtype_text(DTypeRule r) {
  switch (r) {
    case DTypeRule::kFloat: return "float16, float32 (default), float64";
    case DTypeRule::kFixed: return "none: the name says the types";
    case DTypeRule::kNumeric: break;
  }
  return "int8..int64, uint8..uint64, float16, float32 (default), float64";
}

std::string range_text(const ParamSpec& p) {
  if (!p.choices.empty()) {
    std::string s;
    for (const std::string& c : p.choices) s += (s.empty() ? "" : " \\| ") + c;
    return s;
  }
  if (p.min == 0 && p.max == 1) return "0 \\| 1";
  if (p.min == 0) return ">= 0";
  return ">= 1";
}

std::string sentence(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s + ".";
}

}  // namespace

std::string workload_help() {
  size_t width = 0;
  for (const OpSpec& s : op_table()) width = std::max(width, s.name.size());
  std::ostringstream os;
  os << "Workloads are written OP:key=value,... with an optional dtype=TYPE (float32 if not given).\n"
     << "Example: conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1\n\n";
  for (const OpSpec& s : op_table()) {
    os << "  " << s.name << std::string(width - s.name.size() + 2, ' ') << keys_summary(s) << "\n"
       << "  " << std::string(width + 2, ' ') << s.summary << ": " << s.shapes << "\n";
  }
  return os.str();
}

std::string workload_reference_markdown() {
  std::ostringstream os;
  for (const OpSpec& s : op_table()) {
    os << "### " << s.name << "\n\n"
       << sentence(s.summary) << "\n\n"
       << "- shapes: `" << s.shapes << "`\n"
       << "- dtypes: " << dtype_text(s.dtypes) << "\n"
       << "- FLOPs: " << s.flops_doc << "\n\n"
       << "| key | meaning | values | default |\n"
       << "| --- | --- | --- | --- |\n";
    for (const ParamSpec& p : s.params)
      os << "| " << p.name << " | " << p.doc << " | " << range_text(p) << " | "
         << (p.default_value ? default_text(p) : "required") << " |\n";
    os << "\n";
  }
  return os.str();
}

}  // namespace kiln::ops
