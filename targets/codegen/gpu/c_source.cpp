#include "targets/codegen/gpu/c_source.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/arith/analyzer.h"
#include "core/error.h"
#include "core/functor.h"
#include "tir/buffer_layout.h"
#include "tir/functor.h"
#include "tir/thread_axes.h"

namespace kiln {
namespace {

// The words that differ between CUDA C and OpenCL C.
class Dialect {
 public:
  explicit Dialect(GpuDialect d) : cuda_(d == GpuDialect::kCuda) {}
  bool cuda() const { return cuda_; }

  // The C type of a scalar value (bool included).
  std::string type(DataType t) const {
    KILN_ICHECK(!t.is_vector()) << "vector type " << t.str() << " in the GPU code generator";
    if (t.is_bool()) return "bool";
    if (t.is_float()) {
      if (t.bits() == 32 && t.code() == DataType::kFloat) return "float";
      if (t.bits() == 64) return "double";
      KILN_USER_ERROR() << "the " << (cuda_ ? "cuda" : "opencl") << " code generator does not emit " << t.str()
                        << " yet; GPU kernels take float32, float64 and integers";
    }
    const bool u = t.is_uint();
    switch (t.bits()) {
      case 8: return u ? (cuda_ ? "unsigned char" : "uchar") : (cuda_ ? "signed char" : "char");
      case 16: return u ? (cuda_ ? "unsigned short" : "ushort") : "short";
      case 32: return u ? (cuda_ ? "unsigned int" : "uint") : "int";
      case 64: return u ? (cuda_ ? "unsigned long long" : "ulong") : (cuda_ ? "long long" : "long");
    }
    KILN_ICHECK(false) << "no C type for " << t.str();
    return "";
  }
  // How a buffer stores it: bools as bytes (neither dialect lets a kernel
  // take a pointer to bool).
  std::string storage(DataType t) const { return t.is_bool() ? type(DataType::UInt(8)) : type(t); }

  std::string kernel_head(const GpuKernel& k) const {
    const LaunchDims& d = k.launch;
    if (cuda_) return "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(d.threads_per_block()) + ") ";
    return "__kernel __attribute__((reqd_work_group_size(" + std::to_string(d.block[0]) + ", " +
           std::to_string(d.block[1]) + ", " + std::to_string(d.block[2]) + "))) void ";
  }
  std::string pointer_param(DataType t, const std::string& name) const {
    return cuda_ ? storage(t) + "* __restrict__ " + name : "__global " + storage(t) + "* restrict " + name;
  }
  // A shared array, aligned for the widest vector copy into it.
  std::string shared_array(const std::string& type, const std::string& name, int64_t n) const {
    const std::string array = type + " " + name + "[" + std::to_string(n) + "]";
    return cuda_ ? "__shared__ __align__(16) " + array + ";" : "__local " + array + " __attribute__((aligned(16)));";
  }
  std::string index(const std::string& tag) const {
    const std::string dim = std::to_string(thread_tag_dim(tag));
    if (cuda_) return "(int)" + tag;
    return (is_block_index_tag(tag) ? "(int)get_group_id(" : "(int)get_local_id(") + dim + ")";
  }
  std::string barrier() const { return cuda_ ? "__syncthreads();" : "barrier(CLK_LOCAL_MEM_FENCE);"; }
  // A float function: CUDA's names end in `f` for float32; OpenCL's are
  // overloaded.
  std::string math(const std::string& name, DataType t) const {
    return cuda_ && t.bits() == 32 ? name + "f" : name;
  }
  std::string infinity(DataType t) const {
    if (!cuda_) return t.bits() == 64 ? "(double)INFINITY" : "INFINITY";
    return t.bits() == 64 ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)";
  }
  std::string nan(DataType t) const {
    if (!cuda_) return t.bits() == 64 ? "(double)NAN" : "NAN";
    return t.bits() == 64 ? "__longlong_as_double(0x7ff8000000000000LL)" : "__int_as_float(0x7fc00000)";
  }
  std::string int64_suffix() const { return cuda_ ? "LL" : "L"; }

  std::string preamble() const {
    const std::string fn = cuda_ ? "__device__ __forceinline__ " : "inline ";
    std::string out = cuda_ ? "// CUDA C, written by kiln\n" : "// OpenCL C, written by kiln\n";
    // Division rounding down, for the index arithmetic the loops' ranges do
    // not prove non-negative.
    for (const char* t : {"int", cuda_ ? "long long" : "long"}) {
      const std::string ty = t, sfx = ty == "int" ? "i32" : "i64";
      out += fn + ty + " kiln_floordiv_" + sfx + "(" + ty + " a, " + ty + " b) {\n  " + ty +
             " q = a / b;\n  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n";
      out += fn + ty + " kiln_floormod_" + sfx + "(" + ty + " a, " + ty + " b) {\n  " + ty +
             " r = a % b;\n  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n";
    }
    return out;
  }

 private:
  bool cuda_;
};

// C identifiers for variables and buffers, by identity.
class Names {
 public:
  const std::string& of(const Object* node, const std::string& hint) {
    auto it = names_.find(node);
    if (it != names_.end()) return it->second;
    std::string base;
    for (char c : hint) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0])) || base[0] == '_') base = "v" + base;
    std::string name = base;
    for (int i = 1; taken_.count(name) || reserved().count(name); ++i) name = base + "_" + std::to_string(i);
    taken_.insert(name);
    return names_.emplace(node, name).first->second;
  }

 private:
  static const std::unordered_set<std::string>& reserved() {
    static const std::unordered_set<std::string> words{
        "auto",     "bool",   "break",   "case",     "char",     "const",    "continue", "default",  "do",
        "double",   "else",   "enum",    "extern",   "float",    "for",      "goto",     "half",     "if",
        "inline",   "int",    "long",    "register", "restrict", "return",   "short",    "signed",   "sizeof",
        "static",   "struct", "switch",  "typedef",  "union",    "unsigned", "void",     "volatile", "while",
        "uchar",    "ushort", "uint",    "ulong",    "min",      "max",      "exp",      "log",      "sqrt",
        "barrier",  "true",   "false",   "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "global",
        "local",    "kernel", "private", "constant", "new",      "delete",   "this",     "class",    "template"};
    return words;
  }
  std::unordered_map<const Object*, std::string> names_;
  std::unordered_set<std::string> taken_;
};

class KernelWriter {
 public:
  KernelWriter(const Dialect& d, std::ostringstream& os) : d_(d), os_(os) {}

  void kernel(const GpuProgram& p, const GpuKernel& k) {
    os_ << d_.kernel_head(k) << k.name << "(";
    const std::vector<Buffer> args = p.kernel_args();
    for (size_t i = 0; i < args.size(); ++i)
      os_ << (i ? ", " : "") << d_.pointer_param(args[i].dtype(), name(args[i]));
    os_ << ") {\n";
    // Shared buffers: one per block, declared at the kernel's top (OpenCL
    // allows them nowhere else).
    post_order_visit(k.body, [&](const Stmt& s) {
      if (const auto* a = s.as<AllocateNode>(); a && a->buffer->scope == "shared")
        line(1) << d_.shared_array(d_.storage(a->buffer.dtype()), name(a->buffer), numel(a->buffer)) << "\n";
    });
    stmt(k.body, 1);
    os_ << "}\n";
  }

 private:
  std::ostream& line(int indent) {
    for (int i = 0; i < indent; ++i) os_ << "  ";
    return os_;
  }
  const std::string& name(const Var& v) { return names_.of(v.get(), v.name()); }
  const std::string& name(const Buffer& b) { return names_.of(b.get(), b.name()); }

  static int64_t numel(const Buffer& b) {
    const int64_t n = constant_numel(b);
    if (n < 0) KILN_USER_ERROR() << "buffer " << b.name() << " has no constant size; a kernel allocates constant sizes";
    return n;
  }

  void stmt(const Stmt& s, int in) {
    switch (s.kind()) {
      case StmtKind::BufferStore: {
        const auto* op = s.as<BufferStoreNode>();
        if (op->value.dtype().is_vector()) return vector_store(op, in);
        std::string value = expr(op->value);
        if (op->buffer.dtype().is_bool()) value = "(" + d_.storage(op->buffer.dtype()) + ")" + value;
        line(in) << name(op->buffer) << "[" << index(op->indices, op->buffer) << "] = " << value << ";\n";
        return;
      }
      case StmtKind::For: return loop(s.as<ForNode>(), in);
      case StmtKind::SeqStmt:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) stmt(c, in);
        return;
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        line(in) << "if (" << bare(op->condition) << ") {\n";
        stmt(op->then_case, in + 1);
        if (op->else_case.defined() && !is_no_op(op->else_case)) {
          line(in) << "} else {\n";
          stmt(op->else_case, in + 1);
        }
        line(in) << "}\n";
        return;
      }
      case StmtKind::LetStmt: {
        const auto* op = s.as<LetStmtNode>();
        line(in) << "const " << d_.type(op->var.dtype()) << " " << name(op->var) << " = " << bare(op->value) << ";\n";
        return stmt(op->body, in);
      }
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        if (op->buffer->scope == "shared") return stmt(op->body, in);  // declared at the top
        line(in) << "{\n";
        line(in + 1) << d_.storage(op->buffer.dtype()) << " " << name(op->buffer) << "[" << numel(op->buffer)
                     << "];\n";
        stmt(op->body, in + 1);
        line(in) << "}\n";
        return;
      }
      case StmtKind::Evaluate: {
        const Expr& v = s.as<EvaluateNode>()->value;
        if (!as_const_int(v) && !as_const_float(v)) line(in) << "(void)" << expr(v) << ";\n";
        return;
      }
      case StmtKind::Barrier: line(in) << d_.barrier() << "\n"; return;
      case StmtKind::Prefetch: return;  // a CPU's cache hint
      case StmtKind::Block:
      case StmtKind::BlockRealize: break;
    }
    KILN_ICHECK(false) << stmt_kind_name(s.kind()) << " reached the GPU code generator (the function is not lowered)";
  }

  // A vector store. A contiguous float32 copy (a vectorized cooperative
  // fetch) is one vector load and store: OpenCL's vload/vstore, which need
  // only the element's alignment; CUDA's float2/float4, where both
  // addresses are provably multiples of the vector. Anything else is
  // written lane by lane.
  void vector_store(const BufferStoreNode* op, int in) {
    const int lanes = op->value.dtype().lanes();
    const auto* dst = op->indices.size() == 1 ? op->indices[0].as<RampNode>() : nullptr;
    const auto* load = op->value.as<BufferLoadNode>();
    const auto* src = load && load->indices.size() == 1 ? load->indices[0].as<RampNode>() : nullptr;
    const bool copy = dst && src && is_one(dst->stride) && is_one(src->stride) &&
                      op->value.dtype().element_of() == DataType::Float32() && (lanes == 2 || lanes == 4);
    if (copy && !d_.cuda()) {
      const std::string n = std::to_string(lanes);
      line(in) << "vstore" << n << "(vload" << n << "(0, " << name(load->buffer) << " + " << expr(src->base) << "), 0, "
               << name(op->buffer) << " + " << expr(dst->base) << ");\n";
      return;
    }
    if (copy && aligned(dst->base, lanes) && aligned(src->base, lanes)) {
      const std::string v = "float" + std::to_string(lanes);
      line(in) << "*(" << v << "*)(" << name(op->buffer) << " + " << expr(dst->base) << ") = *(const " << v << "*)("
               << name(load->buffer) << " + " << expr(src->base) << ");\n";
      return;
    }
    for (int l = 0; l < lanes; ++l) {
      lane_ = l;
      std::string value = expr(op->value);
      if (op->buffer.dtype().is_bool()) value = "(" + d_.storage(op->buffer.dtype()) + ")" + value;
      line(in) << name(op->buffer) << "[" << index(op->indices, op->buffer) << "] = " << value << ";\n";
    }
    lane_ = -1;
  }

  bool aligned(const Expr& base, int lanes) {
    const int64_t* r = as_const_int(ana_.simplify(floormod(base, make_const(base.dtype(), lanes))));
    return r && *r == 0;
  }

  void loop(const ForNode* op, int in) {
    const std::string& v = name(op->loop_var);
    const std::string ty = d_.type(op->loop_var.dtype());
    ana_.bind(op->loop_var, Range(op->min, op->extent));
    const bool hardware = op->for_kind == ForKind::kThreadBinding && !is_vthread_tag(op->thread_tag);
    if (hardware) {
      // The thread's own index: the launch makes exactly `extent` of them.
      std::string idx = d_.index(op->thread_tag);
      if (!is_zero(op->min)) idx = idx + " + " + expr(op->min);
      line(in) << "{\n";
      line(in + 1) << "const " << ty << " " << v << " = " << idx << ";\n";
      stmt(op->body, in + 1);
      line(in) << "}\n";
    } else {
      KILN_ICHECK(op->for_kind != ForKind::kParallel && op->for_kind != ForKind::kVectorized)
          << "loop " << op->loop_var.name() << " is " << for_kind_name(op->for_kind) << " in a GPU kernel";
      if (op->for_kind == ForKind::kUnrolled || op->for_kind == ForKind::kThreadBinding) line(in) << "#pragma unroll\n";
      const std::string end = is_zero(op->min) ? bare(op->extent) : expr(add(op->min, op->extent));
      line(in) << "for (" << ty << " " << v << " = " << bare(op->min) << "; " << v << " < " << end << "; ++" << v
               << ") {\n";
      stmt(op->body, in + 1);
      line(in) << "}\n";
    }
    ana_.unbind(op->loop_var);
  }

  std::string index(const std::vector<Expr>& idx, const Buffer& b) {
    KILN_ICHECK(idx.size() == 1) << "buffer " << b.name() << " has " << idx.size()
                                 << " indices in a lowered function (expected one)";
    return bare(idx[0]);
  }

  // An expression without its outer parentheses.
  std::string bare(const Expr& e) {
    std::string s = expr(e);
    if (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
      int depth = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0 && i + 1 < s.size()) return s;  // `(a) + (b)`: not one group
      }
      return s.substr(1, s.size() - 2);
    }
    return s;
  }

  std::string binary(const Expr& a, const char* op, const Expr& b) {
    return "(" + expr(a) + " " + op + " " + expr(b) + ")";
  }
  std::string call(const std::string& fn, std::initializer_list<Expr> args) {
    std::string out = fn + "(";
    size_t i = 0;
    for (const Expr& a : args) out += (i++ ? ", " : "") + bare(a);
    return out + ")";
  }
  // Integer floor division and modulo: plain C where both sides are known
  // non-negative (C rounds toward zero, the same there).
  std::string floor_int(const Expr& a, const Expr& b, bool div) {
    const bool plain = ana_.can_prove(ge(a, make_zero(a.dtype()))) && ana_.can_prove(gt(b, make_zero(b.dtype())));
    if (plain) return binary(a, div ? "/" : "%", b);
    const std::string sfx = a.dtype().bits() == 64 ? "i64" : "i32";
    KILN_ICHECK(a.dtype().bits() == 32 || a.dtype().bits() == 64) << "floor division of " << a.dtype().str();
    return call(std::string(div ? "kiln_floordiv_" : "kiln_floormod_") + sfx, {a, b});
  }

  std::string int_literal(DataType t, int64_t v) {
    if (t.is_bool()) return v ? "true" : "false";
    if (t.bits() == 64 && t.is_int()) {
      if (v == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807" + d_.int64_suffix() + " - 1)";
      std::string s = std::to_string(v) + d_.int64_suffix();
      return v < 0 ? "(" + s + ")" : s;
    }
    if (t.bits() == 32 && t.is_int()) {
      if (v == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
      return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
    }
    if (t.bits() == 32 && t.is_uint()) return std::to_string(v) + "u";
    return "((" + d_.type(t) + ")" + std::to_string(v) + ")";
  }

  std::string float_literal(DataType t, double v) {
    if (std::isnan(v)) return d_.nan(t);
    if (std::isinf(v)) return v > 0 ? d_.infinity(t) : "(-" + d_.infinity(t) + ")";
    char buf[64];
    std::snprintf(buf, sizeof buf, t.bits() == 64 ? "%.17g" : "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    if (t.bits() == 32) s += "f";
    return v < 0 ? "(" + s + ")" : s;
  }

  std::string intrinsic(const CallNode* op) {
    const DataType t = op->dtype.element_of();
    const std::vector<Expr>& a = op->args;
    switch (op->op) {
      case Intrinsic::exp: return call(d_.math("exp", t), {a[0]});
      case Intrinsic::log: return call(d_.math("log", t), {a[0]});
      case Intrinsic::sqrt: return call(d_.math("sqrt", t), {a[0]});
      case Intrinsic::rsqrt: return call(d_.math("rsqrt", t), {a[0]});
      case Intrinsic::tanh: return call(d_.math("tanh", t), {a[0]});
      case Intrinsic::erf: return call(d_.math("erf", t), {a[0]});
      case Intrinsic::floor: return call(d_.math("floor", t), {a[0]});
      case Intrinsic::ceil: return call(d_.math("ceil", t), {a[0]});
      case Intrinsic::round: return call(d_.math("rint", t), {a[0]});  // ties to even, as the interpreter
      case Intrinsic::sin: return call(d_.math("sin", t), {a[0]});
      case Intrinsic::cos: return call(d_.math("cos", t), {a[0]});
      case Intrinsic::tan: return call(d_.math("tan", t), {a[0]});
      case Intrinsic::asin: return call(d_.math("asin", t), {a[0]});
      case Intrinsic::acos: return call(d_.math("acos", t), {a[0]});
      case Intrinsic::atan: return call(d_.math("atan", t), {a[0]});
      case Intrinsic::sinh: return call(d_.math("sinh", t), {a[0]});
      case Intrinsic::cosh: return call(d_.math("cosh", t), {a[0]});
      case Intrinsic::asinh: return call(d_.math("asinh", t), {a[0]});
      case Intrinsic::acosh: return call(d_.math("acosh", t), {a[0]});
      case Intrinsic::atanh: return call(d_.math("atanh", t), {a[0]});
      case Intrinsic::pow: return call(d_.math("pow", t), {a[0], a[1]});
      case Intrinsic::fma: return call(d_.math("fma", t), {a[0], a[1], a[2]});
      case Intrinsic::sigmoid: {
        const std::string one = float_literal(t, 1.0);
        return "(" + one + " / (" + one + " + " + d_.math("exp", t) + "(-" + expr(a[0]) + ")))";
      }
      case Intrinsic::abs:
        if (t.is_float()) return call(d_.math("fabs", t), {a[0]});
        if (t.is_uint()) return expr(a[0]);
        // OpenCL's abs of a signed integer is unsigned; CUDA names the
        // 64-bit one llabs.
        if (d_.cuda()) return call(t.bits() == 64 ? "llabs" : "abs", {a[0]});
        return "((" + d_.type(t) + ")abs(" + bare(a[0]) + "))";
    }
    KILN_ICHECK(false) << "no GPU code for intrinsic " << intrinsic_name(op->op);
    return "";
  }

  // An expression; in a vector store written lane by lane, lane lane_ of it.
  std::string expr(const Expr& e) {
    const DataType t = lane_ >= 0 ? e.dtype().element_of() : e.dtype();
    switch (e.kind()) {
      case ExprKind::IntImm: return int_literal(t, e.as<IntImmNode>()->value);
      case ExprKind::FloatImm: return float_literal(t, e.as<FloatImmNode>()->value);
      case ExprKind::Var: return name(Var(e.ptr()));
      case ExprKind::Add: return binary(e.as<AddNode>()->a, "+", e.as<AddNode>()->b);
      case ExprKind::Sub: return binary(e.as<SubNode>()->a, "-", e.as<SubNode>()->b);
      case ExprKind::Mul: return binary(e.as<MulNode>()->a, "*", e.as<MulNode>()->b);
      case ExprKind::Div: return binary(e.as<DivNode>()->a, "/", e.as<DivNode>()->b);
      case ExprKind::Mod: {
        const auto* op = e.as<ModNode>();
        return t.is_float() ? call(d_.math("fmod", t), {op->a, op->b}) : binary(op->a, "%", op->b);
      }
      case ExprKind::FloorDiv: {
        const auto* op = e.as<FloorDivNode>();
        if (t.is_float()) return "(" + d_.math("floor", t) + "(" + binary(op->a, "/", op->b) + "))";
        return floor_int(op->a, op->b, true);
      }
      case ExprKind::FloorMod: {
        const auto* op = e.as<FloorModNode>();
        if (t.is_float())
          return "(" + expr(op->a) + " - " + d_.math("floor", t) + "(" + binary(op->a, "/", op->b) + ") * " +
                 expr(op->b) + ")";
        return floor_int(op->a, op->b, false);
      }
      case ExprKind::Min: {
        const auto* op = e.as<MinNode>();
        return call(t.is_float() ? d_.math("fmin", t) : "min", {op->a, op->b});
      }
      case ExprKind::Max: {
        const auto* op = e.as<MaxNode>();
        return call(t.is_float() ? d_.math("fmax", t) : "max", {op->a, op->b});
      }
#define CMP(Name, Sym) \
  case ExprKind::Name: return binary(e.as<Name##Node>()->a, Sym, e.as<Name##Node>()->b);
        KILN_FOR_EACH_CMP_EXPR(CMP)
        KILN_FOR_EACH_LOGIC_EXPR(CMP)
#undef CMP
      case ExprKind::Not: return "(!" + expr(e.as<NotNode>()->a) + ")";
      case ExprKind::Select: {
        const auto* op = e.as<SelectNode>();
        return "(" + expr(op->cond) + " ? " + expr(op->true_value) + " : " + expr(op->false_value) + ")";
      }
      case ExprKind::Cast: {
        const Expr& v = e.as<CastNode>()->value;
        if (t.is_bool()) return "(" + expr(v) + " != 0)";
        return "((" + d_.type(t) + ")" + expr(v) + ")";
      }
      case ExprKind::Let: {
        // C has no let expression: the value, pure, is written where it is used.
        const auto* op = e.as<LetNode>();
        return expr(substitute(op->body, {{op->var, op->value}}));
      }
      case ExprKind::Call: return intrinsic(e.as<CallNode>());
      case ExprKind::BufferLoad: {
        const auto* op = e.as<BufferLoadNode>();
        std::string load = name(op->buffer) + "[" + index(op->indices, op->buffer) + "]";
        return op->buffer.dtype().is_bool() ? "(" + load + " != 0)" : load;
      }
      case ExprKind::Ramp: {
        const auto* op = e.as<RampNode>();
        KILN_ICHECK(lane_ >= 0) << "a vector reached the GPU code generator outside a vector store";
        return expr(ana_.simplify(add(op->base, mul(op->stride, make_const(op->base.dtype(), lane_)))));
      }
      case ExprKind::Broadcast:
        KILN_ICHECK(lane_ >= 0) << "a vector reached the GPU code generator outside a vector store";
        return expr(e.as<BroadcastNode>()->value);
      case ExprKind::StringImm:
      case ExprKind::Reduce: break;
    }
    KILN_ICHECK(false) << expr_kind_name(e.kind()) << " reached the GPU code generator";
    return "";
  }

  const Dialect& d_;
  std::ostringstream& os_;
  Names names_;
  arith::Analyzer ana_;
  int lane_ = -1;  // the lane being written, in a vector store written lane by lane
};

}  // namespace

std::string gpu_source(const GpuProgram& p, GpuDialect dialect) {
  const Dialect d(dialect);
  std::ostringstream os;
  os << d.preamble();
  for (const GpuKernel& k : p.kernels) {
    os << "\n";
    KernelWriter(d, os).kernel(p, k);
  }
  return os.str();
}

}  // namespace kiln
