#include "core/printer.h"

#include <charconv>
#include <cmath>
#include <ostream>
#include <sstream>

namespace kiln {
namespace {

// Python's binding strengths, loosest first. A child is parenthesised when it
// binds more loosely than its position needs.
enum Prec : int {
  kOr = 1,
  kAnd = 2,
  kNot = 3,
  kCompare = 4,
  kSum = 9,      // + -
  kProduct = 10, // * / // %
  kUnary = 11,   // a negative literal
  kAtom = 12,    // names, calls, subscripts, literals
};

bool is_zero_of(const Expr& e, DataType t) { return e.dtype() == t && is_const_int(e, 0); }

// The shortest decimal that reads back as the same value of type t. float32
// values are floats; every other float type keeps a double (float_imm does
// not round float16), so only a float32 may use the float's shorter text:
// 0.1f stored as a float64 must print as 0.10000000149011612, not 0.1.
std::string shortest_float(DataType t, double v) {
  char buf[64];
  std::to_chars_result r;
  if (t.code() == DataType::kFloat && t.bits() == 32) {
    r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v));
  } else {
    r = std::to_chars(buf, buf + sizeof(buf), v);
  }
  return std::string(buf, r.ptr);
}

std::string int_text(DataType t, int64_t v) {
  if (t.code() == DataType::kUInt && t.bits() == 64) return std::to_string(static_cast<uint64_t>(v));
  return std::to_string(v);
}

class ExprPrinter {
 public:
  ExprPrinter(PrintContext& ctx, std::ostream& os) : ctx_(ctx), os_(os) {}

  void print(const Expr& e, int min_prec = 0) {
    if (!e.defined()) {
      os_ << "None";
      return;
    }
    bool paren = precedence(e) < min_prec;
    if (paren) os_ << '(';
    print_node(e);
    if (paren) os_ << ')';
  }

 private:
  static int precedence(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::Or: return kOr;
      case ExprKind::And: return kAnd;
      case ExprKind::Not: return kNot;
      case ExprKind::EQ:
      case ExprKind::NE:
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE: return kCompare;
      case ExprKind::Add:
      case ExprKind::Sub: return kSum;
      case ExprKind::Mul:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod: return kProduct;
      case ExprKind::Div: return e.dtype().is_float() ? kProduct : kAtom;
      case ExprKind::IntImm: {
        const auto* n = e.as<IntImmNode>();
        bool bare = n->dtype == DataType::Int32();
        return bare && n->value < 0 ? kUnary : kAtom;
      }
      default: return kAtom;
    }
  }

  void infix(const Expr& a, const char* op, const Expr& b, int prec, bool assoc) {
    print(a, assoc ? prec : prec + 1);
    os_ << ' ' << op << ' ';
    print(b, prec + 1);
  }

  void call(const char* fn, std::initializer_list<Expr> args) {
    os_ << fn << '(';
    bool first = true;
    for (const Expr& a : args) {
      if (!first) os_ << ", ";
      first = false;
      print(a);
    }
    os_ << ')';
  }

  template <typename N>
  const N* node(const Expr& e) {
    return static_cast<const N*>(e.get());
  }

  void print_node(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm: return print_int(*node<IntImmNode>(e));
      case ExprKind::FloatImm: return print_float(*node<FloatImmNode>(e));
      case ExprKind::StringImm: os_ << quote_string(node<StringImmNode>(e)->value); return;
      case ExprKind::Var: return print_var(Var(e.ptr()));
      case ExprKind::Not:
        os_ << "not ";
        print(node<NotNode>(e)->a, kNot);
        return;
      case ExprKind::Select: {
        const auto* n = node<SelectNode>(e);
        return call("T.Select", {n->cond, n->true_value, n->false_value});
      }
      case ExprKind::Cast:
        os_ << "T.Cast(" << quote_string(e.dtype().str()) << ", ";
        print(node<CastNode>(e)->value);
        os_ << ')';
        return;
      case ExprKind::Ramp: {
        const auto* n = node<RampNode>(e);
        os_ << "T.Ramp(";
        print(n->base);
        os_ << ", ";
        print(n->stride);
        os_ << ", " << n->lanes << ')';
        return;
      }
      case ExprKind::Broadcast: {
        const auto* n = node<BroadcastNode>(e);
        os_ << "T.Broadcast(";
        print(n->value);
        os_ << ", " << n->lanes << ')';
        return;
      }
      case ExprKind::Let: {
        const auto* n = node<LetNode>(e);
        // The variable is named before its value so that the binding keeps
        // the plain name when an outer variable shares the hint.
        os_ << "T.Let(" << ctx_.name(n->var) << ", ";
        print(n->value);
        os_ << ", ";
        ctx_.declare(n->var);
        print(n->body);
        os_ << ')';
        return;
      }
      case ExprKind::Call: {
        const auto* n = node<CallNode>(e);
        os_ << "T." << intrinsic_name(n->op) << '(';
        for (size_t i = 0; i < n->args.size(); ++i) {
          if (i) os_ << ", ";
          print(n->args[i]);
        }
        os_ << ')';
        return;
      }
      case ExprKind::BufferLoad: {
        const auto* n = node<BufferLoadNode>(e);
        os_ << ctx_.name(n->buffer) << '[';
        print_indices(n->indices);
        os_ << ']';
        return;
      }
      case ExprKind::Reduce: return print_reduce(*node<ReduceNode>(e));
      case ExprKind::Add: return binary<AddNode>(e, "+", kSum, true);
      case ExprKind::Sub: return binary<SubNode>(e, "-", kSum, true);
      case ExprKind::Mul: return binary<MulNode>(e, "*", kProduct, true);
      case ExprKind::Div: {
        const auto* n = node<DivNode>(e);
        if (e.dtype().is_float()) return infix(n->a, "/", n->b, kProduct, true);
        return call("T.truncdiv", {n->a, n->b});
      }
      case ExprKind::Mod: {
        const auto* n = node<ModNode>(e);
        return call("T.truncmod", {n->a, n->b});
      }
      case ExprKind::FloorDiv: return binary<FloorDivNode>(e, "//", kProduct, true);
      case ExprKind::FloorMod: return binary<FloorModNode>(e, "%", kProduct, true);
      case ExprKind::Min: {
        const auto* n = node<MinNode>(e);
        return call("T.min", {n->a, n->b});
      }
      case ExprKind::Max: {
        const auto* n = node<MaxNode>(e);
        return call("T.max", {n->a, n->b});
      }
      // Python chains comparisons (a < b < c), so they never associate.
      case ExprKind::EQ: return binary<EQNode>(e, "==", kCompare, false);
      case ExprKind::NE: return binary<NENode>(e, "!=", kCompare, false);
      case ExprKind::LT: return binary<LTNode>(e, "<", kCompare, false);
      case ExprKind::LE: return binary<LENode>(e, "<=", kCompare, false);
      case ExprKind::GT: return binary<GTNode>(e, ">", kCompare, false);
      case ExprKind::GE: return binary<GENode>(e, ">=", kCompare, false);
      case ExprKind::And: return binary<AndNode>(e, "and", kAnd, true);
      case ExprKind::Or: return binary<OrNode>(e, "or", kOr, true);
    }
    KILN_ICHECK(false) << "no printer for " << expr_kind_name(e.kind());
  }

  template <typename N>
  void binary(const Expr& e, const char* op, int prec, bool assoc) {
    const auto* n = node<N>(e);
    infix(n->a, op, n->b, prec, assoc);
  }

  void print_int(const IntImmNode& n) {
    if (n.dtype == DataType::Int32()) {
      os_ << n.value;
    } else if (n.dtype == DataType::Bool() && (n.value == 0 || n.value == 1)) {
      os_ << (n.value ? "True" : "False");
    } else {
      os_ << dtype_ref(n.dtype) << '(' << int_text(n.dtype, n.value) << ')';
    }
  }

  void print_float(const FloatImmNode& n) {
    os_ << dtype_ref(n.dtype) << '(';
    if (std::isnan(n.value)) {
      os_ << "\"nan\"";
    } else if (std::isinf(n.value)) {
      os_ << (n.value > 0 ? "\"inf\"" : "\"-inf\"");
    } else {
      os_ << shortest_float(n.dtype, n.value);
    }
    os_ << ')';
  }

  void print_var(const Var& v) {
    const std::string& name = ctx_.name(v);
    if (ctx_.is_declared(v) || v.dtype() == DataType::Int32()) {
      os_ << name;
    } else {
      os_ << "T.Var(" << quote_string(name) << ", " << quote_string(v.dtype().str()) << ')';
    }
  }

  void print_indices(const std::vector<Expr>& indices) {
    if (indices.empty()) os_ << "()";
    for (size_t i = 0; i < indices.size(); ++i) {
      if (i) os_ << ", ";
      print(indices[i]);
    }
  }

  void print_reduce(const ReduceNode& n) {
    // Axes are bound before the source that uses them is printed.
    for (const IterVar& iv : n.axis) {
      if (iv.defined()) ctx_.declare(iv.var());
    }
    os_ << "T." << reduce_kind_name(n.combiner) << '(';
    print(n.source);
    os_ << ", axis=[";
    for (size_t i = 0; i < n.axis.size(); ++i) {
      if (i) os_ << ", ";
      const IterVar& iv = n.axis[i];
      os_ << (iv.is_reduce() ? "T.reduce_axis(" : "T.spatial_axis(") << ctx_.name(iv.var()) << ", "
          << ctx_.domain(iv.dom()) << PrintContext::dtype_kwarg(iv.var(), iv.dom()->extent) << ')';
    }
    os_ << "])";
  }

  PrintContext& ctx_;
  std::ostream& os_;
};

bool is_python_keyword(std::string_view s) {
  static const std::unordered_set<std::string_view> kw = {
      "False", "None",   "True",    "and",      "as",     "assert", "async", "await",
      "break", "class",  "continue", "def",     "del",    "elif",   "else",  "except",
      "finally", "for",  "from",    "global",   "if",     "import", "in",    "is",
      "lambda", "nonlocal", "not",  "or",       "pass",   "raise",  "return", "try",
      "while", "with",   "yield"};
  return kw.count(s) != 0;
}

// Names the printed text itself relies on; a variable must not shadow them.
bool is_reserved(std::string_view s) { return is_python_keyword(s) || s == "T" || s == "I" || s == "range"; }

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The hint as an identifier, before the reserved-name check.
std::string sanitize(const std::string& hint) {
  std::string s;
  for (char c : hint) s += is_ident_char(c) ? c : '_';
  if (s.empty()) return "v";
  if (s[0] >= '0' && s[0] <= '9') return "v_" + s;
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------

const std::string& PrintContext::name_of(const Object* node, const std::string& hint) {
  auto it = names_.find(node);
  if (it != names_.end()) return it->second;
  std::string base = sanitize(hint);
  std::string name = base;
  for (int k = 1; taken_.count(name) || is_reserved(name); ++k) name = base + "_" + std::to_string(k);
  taken_.insert(name);
  return names_.emplace(node, std::move(name)).first->second;
}

void PrintContext::print(std::ostream& os, const Expr& e) { ExprPrinter(*this, os).print(e); }

std::string PrintContext::str(const Expr& e) {
  std::ostringstream os;
  print(os, e);
  return os.str();
}

std::string PrintContext::stop(const Expr& min, const Expr& extent) {
  if (is_zero_of(min, extent.dtype())) return str(extent);
  const int64_t* a = as_const_int(min);
  const int64_t* b = as_const_int(extent);
  if (a && b && min.dtype() == extent.dtype()) return str(int_imm(min.dtype(), *a + *b));
  std::ostringstream os;
  ExprPrinter p(*this, os);
  p.print(min, kSum);
  os << " + ";
  p.print(extent, kSum + 1);
  return os.str();
}

std::string PrintContext::buffer_args(const Buffer& b) {
  std::ostringstream os;
  os << '(';
  for (size_t i = 0; i < b.shape().size(); ++i) {
    if (i) os << ", ";
    print(os, b.shape()[i]);
  }
  if (b.shape().size() == 1) os << ',';
  os << "), " << quote_string(b.dtype().str());
  if (b->scope != "global") os << ", scope=" << quote_string(b->scope);
  if (b->align_factor != 0 || b->align_offset != 0)
    os << ", align_axis=" << b->align_axis << ", align_factor=" << b->align_factor << ", align_offset=" << b->align_offset;
  return os.str();
}

std::string PrintContext::domain(const Range& dom) {
  if (is_zero_of(dom->min, dom->extent.dtype())) return str(dom->extent);
  std::string out = "(";
  out += str(dom->min);
  out += ", ";
  out += stop(dom->min, dom->extent);
  out += ')';
  return out;
}

std::string PrintContext::dtype_kwarg(const Var& v, const Expr& extent) {
  if (v.dtype() == extent.dtype()) return "";
  return ", dtype=" + quote_string(v.dtype().str());
}

std::string to_string(const Expr& e) {
  PrintContext ctx;
  return ctx.str(e);
}

std::ostream& operator<<(std::ostream& os, const Expr& e) {
  PrintContext ctx;
  ctx.print(os, e);
  return os;
}

std::string quote_string(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out += hex[u >> 4];
          out += hex[u & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string dtype_ref(DataType t) { return "T." + t.str(); }

bool is_plain_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return !is_reserved(s);
}

std::string to_identifier(const std::string& hint) {
  std::string s = sanitize(hint);
  return is_reserved(s) ? s + "_" : s;
}

}  // namespace kiln
