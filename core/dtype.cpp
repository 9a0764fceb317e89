#include "core/dtype.h"

#include <cctype>

#include "core/error.h"

namespace kiln {

std::string DataType::str() const {
  std::string s;
  if (is_void()) return "void";
  if (is_bool()) {
    s = "bool";
  } else if (code_ == kHandle) {
    return "handle";
  } else {
    switch (code_) {
      case kInt: s = "int"; break;
      case kUInt: s = "uint"; break;
      case kFloat: s = "float"; break;
      case kBFloat: s = "bfloat"; break;
      default: break;
    }
    s += std::to_string(bits_);
  }
  if (lanes_ != 1) s += "x" + std::to_string(lanes_);
  return s;
}

DataType DataType::parse(const std::string& s) {
  auto fail = [&]() -> DataType { KILN_USER_ERROR() << "unknown data type '" << s << "'"; };
  if (s == "void") return Void();
  if (s == "handle") return Handle();
  std::string base = s;
  int lanes = 1;
  if (auto x = s.find('x'); x != std::string::npos) {
    base = s.substr(0, x);
    std::string l = s.substr(x + 1);
    if (l.empty() || l.size() > 4) return fail();
    for (char c : l)
      if (!std::isdigit(static_cast<unsigned char>(c))) return fail();
    lanes = std::stoi(l);
    if (lanes < 1) return fail();
  }
  if (base == "bool") return Bool(lanes);
  struct Prefix {
    const char* name;
    Code code;
  };
  for (Prefix p : {Prefix{"bfloat", kBFloat}, Prefix{"float", kFloat}, Prefix{"uint", kUInt}, Prefix{"int", kInt}}) {
    std::string n = p.name;
    if (base.rfind(n, 0) != 0) continue;
    std::string bits = base.substr(n.size());
    if (bits == "8" || bits == "16" || bits == "32" || bits == "64") {
      int b = std::stoi(bits);
      if (p.code == kFloat && b == 8) return fail();
      if (p.code == kBFloat && b != 16) return fail();
      return DataType(p.code, b, lanes);
    }
    return fail();
  }
  return fail();
}

}  // namespace kiln
