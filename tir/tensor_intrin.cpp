#include "tir/tensor_intrin.h"

#include <algorithm>
#include <optional>

#include "core/arith/analyzer.h"
#include "core/arith/linear.h"
#include "core/error.h"
#include "core/functor.h"
#include "core/printer.h"
#include "core/structural.h"
#include "tir/functor.h"
#include "tir/parser/parser.h"
#include "tir/transform/flatten_buffer.h"

namespace kiln {
namespace {

// C[i] += sum over k < 4 of A[k] * B[i, k], bytes widened to int32: the
// dot product of four unsigned bytes of A with four signed bytes of each
// of `lanes` rows of B, into each 32-bit lane of C.
PrimFunc dot_u8s8s32_desc(const std::string& name, int lanes) {
  const std::string n = std::to_string(lanes);
  return parse_prim_func(R"(
@T.prim_func
def )" + name + R"((A: T.Buffer((4,), "uint8"), B: T.Buffer(()" +
                         n + R"(, 4), "int8"), C: T.Buffer(()" + n + R"(,), "int32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i, k in T.grid()" + n + R"(, 4):
            with T.block("update"):
                v_i = T.axis.spatial()" + n + R"(, i)
                v_k = T.axis.reduce(4, k)
                T.reads(C[v_i], A[v_k], B[v_i, v_k])
                T.writes(C[v_i])
                C[v_i] = C[v_i] + T.Cast("int32", A[v_k]) * T.Cast("int32", B[v_i, v_k])
)");
}

// The loops from the nest's outer loop down, and the one store inside with
// the block's iter vars replaced by their bindings.
struct Nest {
  std::vector<const ForNode*> loops;
  Stmt store;
  Expr guard;  // undefined when the store runs unconditionally
};

bool uses_nest_loop(const Expr& e, const std::vector<const ForNode*>& loops) {
  return uses_var(e, [&](const VarNode* v) {
    return std::any_of(loops.begin(), loops.end(), [&](const ForNode* f) { return f->loop_var.get() == v; });
  });
}

std::variant<Nest, std::string> nest_of(const Stmt& loop) {
  Nest n;
  Stmt s = loop;
  while (const auto* f = s.as<ForNode>()) {
    n.loops.push_back(f);
    s = f->body;
  }
  if (const auto* r = s.as<BlockRealizeNode>()) {
    const auto* b = r->block.as<BlockNode>();
    if (r->predicate.defined() && !is_one(r->predicate)) {
      // A partial tile of the loops outside guards the whole nest.
      if (uses_nest_loop(r->predicate, n.loops))
        return "block '" + b->name + "' runs under the predicate " + to_string(r->predicate) +
               ", which depends on the intrinsic's loops";
      n.guard = r->predicate;
    }
    if (b->init.defined()) return "block '" + b->name + "' still has its init (decompose_reduction first)";
    if (!b->alloc_buffers.empty()) return "block '" + b->name + "' allocates buffers";
    if (!b->body.as<BufferStoreNode>()) return "the body of block '" + b->name + "' is not one store";
    std::vector<std::pair<Var, Expr>> bind;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) bind.emplace_back(b->iter_vars[i].var(), r->iter_values[i]);
    n.store = substitute(b->body, bind);
  } else if (s.as<BufferStoreNode>() || s.as<IfThenElseNode>()) {
    // Lowered: a predicate of the loops outside is a condition around the store.
    while (const auto* c = s.as<IfThenElseNode>()) {
      if (c->else_case.defined() || uses_nest_loop(c->condition, n.loops))
        return "the store runs under the condition " + to_string(c->condition) +
               ", which depends on the intrinsic's loops";
      n.guard = n.guard.defined() ? logical_and(n.guard, c->condition) : c->condition;
      s = c->then_case;
    }
    if (!s.as<BufferStoreNode>()) return std::string("the innermost loop holds more than one store or block");
    n.store = s;
  } else {
    return std::string("the innermost loop holds more than one store or block");
  }
  return n;
}

// One read or write of the nest: its buffer and flat element offset.
struct Access {
  Buffer buffer;
  Expr offset;
};

Expr flat_offset(const Buffer& b, const std::vector<Expr>& indices) {
  if (indices.size() == 1) return indices[0];
  const std::vector<int64_t> strides = buffer_strides(b);
  Expr off = make_zero(indices[0].dtype());
  for (size_t d = 0; d < indices.size(); ++d) off = off + indices[d] * int_imm(indices[d].dtype(), strides[d]);
  return off;
}

// The store's value with every load replaced by a placeholder variable of
// its type, and the loads in the order they were met.
//
// A factor read only where a condition of the loops outside holds, zero
// elsewhere (a convolution's padding inlined: T.Select(0 <= h < H, x[h],
// 0)), is the load, and the condition guards the nest: a zero factor adds
// nothing. The caller checks that the operand is a factor.
class LoadsOut : public ExprMutator {
 public:
  LoadsOut(const std::vector<const ForNode*>& loops, const Buffer& acc) : loops_(loops), acc_(acc) {}
  std::vector<Access> loads;
  std::vector<size_t> zero_guarded;  // indices into loads
  Expr guard;
  Expr visit_BufferLoad(const BufferLoadNode* op, const Expr&) override {
    loads.push_back({op->buffer, flat_offset(op->buffer, op->indices)});
    return Var("operand" + std::to_string(loads.size()), op->dtype);
  }
  Expr visit_Select(const SelectNode* op, const Expr& e) override {
    const auto* load = op->true_value.as<BufferLoadNode>();
    if (!load || load->buffer.same_as(acc_) || !is_zero(op->false_value) || uses_nest_loop(op->cond, loops_))
      return ExprMutator::visit_Select(op, e);
    guard = guard.defined() ? logical_and(guard, op->cond) : op->cond;
    zero_guarded.push_back(loads.size());
    return visit_BufferLoad(load, op->true_value);
  }

 private:
  const std::vector<const ForNode*>& loops_;
  Buffer acc_;
};

// Whether `e` is a product of operands (placeholder variables, cast or
// not): where one of them is zero, so is `e`.
bool is_product(const Expr& e) {
  if (e.as<VarNode>()) return true;
  if (const auto* c = e.as<CastNode>()) return is_product(c->value);
  if (const auto* m = e.as<MulNode>()) return is_product(m->a) && is_product(m->b);
  return false;
}

// The nest's accesses (the store first, then the loads), the shape of its
// value, and the zero-guarded loads' condition.
struct Shape {
  std::vector<Access> accesses;
  Expr value;
  Expr guard;
  bool zero_guarded = false;
};

Shape shape_of(const Nest& n) {
  const auto* st = n.store.as<BufferStoreNode>();
  LoadsOut out(n.loops, st->buffer);
  Shape s;
  s.value = out.mutate(st->value);
  s.guard = out.guard;
  s.zero_guarded = !out.zero_guarded.empty();
  s.accesses.push_back({st->buffer, flat_offset(st->buffer, st->indices)});
  for (Access& a : out.loads) s.accesses.push_back(std::move(a));
  return s;
}

// An access's strides along the nest's loops and its offset at their origin.
struct Placed {
  std::vector<int64_t> strides;
  Expr base;
};

std::optional<Placed> place(const Expr& offset, const Nest& n, arith::Analyzer& ana) {
  const Expr off = ana.simplify(offset);
  Placed p;
  std::vector<std::pair<Var, Expr>> origin;
  for (const ForNode* f : n.loops) {
    std::optional<int64_t> c = arith::coefficient_of(off, f->loop_var.operator->());
    if (!c) return std::nullopt;
    p.strides.push_back(*c);
    origin.emplace_back(f->loop_var, make_zero(f->loop_var.dtype()));
  }
  p.base = ana.simplify(substitute(off, origin));
  return p;
}

std::string strides_text(const std::vector<int64_t>& s) {
  std::string t;
  for (int64_t v : s) t += (t.empty() ? "" : ", ") + std::to_string(v);
  return "(" + t + ")";
}

}  // namespace

struct TensorIntrinPattern {
  Nest nest;
  Shape shape;
  std::vector<Placed> placed;  // per access of `shape`
  std::vector<size_t> param;   // per access: which parameter of the description
};

namespace {

std::shared_ptr<const TensorIntrinPattern> analyse(const TensorIntrin& intrin) {
  const auto* root = intrin.desc.body().as<BlockRealizeNode>();
  KILN_ICHECK(root) << "the description of " << intrin.name << " has no root block";
  std::variant<Nest, std::string> nest = nest_of(root->block.as<BlockNode>()->body);
  KILN_ICHECK(std::holds_alternative<Nest>(nest)) << intrin.name << ": " << std::get<std::string>(nest);
  auto p = std::make_shared<TensorIntrinPattern>();
  p->nest = std::get<Nest>(std::move(nest));
  p->shape = shape_of(p->nest);
  arith::Analyzer ana;
  for (const ForNode* f : p->nest.loops) ana.bind(f->loop_var, Range(f->min, f->extent));
  const std::vector<Buffer>& params = intrin.desc.params();
  for (const Access& a : p->shape.accesses) {
    std::optional<Placed> at = place(a.offset, p->nest, ana);
    KILN_ICHECK(at) << intrin.name << ": " << a.buffer.name() << " is not read linearly";
    p->placed.push_back(std::move(*at));
    size_t i = 0;
    while (i < params.size() && !params[i].same_as(a.buffer)) ++i;
    KILN_ICHECK(i < params.size()) << intrin.name << " accesses a buffer that is not its parameter";
    p->param.push_back(i);
  }
  return p;
}

std::vector<TensorIntrin> make_intrins() {
  std::vector<TensorIntrin> t;
  t.push_back({"x86_vnni_u8s8s32_16x4", "vpdpbusd on 512 bits (AVX-512 VNNI)",
               dot_u8s8s32_desc("x86_vnni_u8s8s32_16x4", 16), 0, {{"avx512vnni"}}});
  t.push_back({"x86_vnni_u8s8s32_8x4", "vpdpbusd on 256 bits (AVX-512 VNNI with VL, or AVX-VNNI)",
               dot_u8s8s32_desc("x86_vnni_u8s8s32_8x4", 8), 0, {{"avx512vnni", "avx512vl"}, {"avxvnni"}}});
  // vpmaddubsw would add two u8 x s8 products into a saturating int16
  // (255 * 127 * 2 = 64770 does not fit); the bytes are widened to int16
  // first and vpmaddwd adds pairs into int32, exactly.
  // With weights of 7 bits (kSmallWeightsAnn) two products never leave
  // the int16: vpmaddubsw, then vpmaddwd by ones, the same dot product in
  // two instructions where the exact form takes about seven.
  t.push_back({"x86_avx2_u8s7s32_8x4", "vpmaddubsw and vpmaddwd on 256 bits (AVX2), weights in [-64, 64]",
               dot_u8s8s32_desc("x86_avx2_u8s7s32_8x4", 8), 0, {{"avx2"}}, nullptr, kSmallWeightsAnn});
  t.push_back({"x86_avx2_u8s8s32_8x4", "vpmovzxbw/vpmovsxbw and vpmaddwd on 256 bits (AVX2), exact",
               dot_u8s8s32_desc("x86_avx2_u8s8s32_8x4", 8), 0, {{"avx2"}}});
  // Armv8.6's I8MM: usdot sums four u8 x s8 products into each 32-bit lane
  // of a 128-bit NEON register, exactly. SVE CPUs have NEON as well, so the
  // same instruction serves an SVE target of any length; the schedule's
  // vector loops around the nest make the wider tile.
  t.push_back({"arm_neon_usdot_u8s8s32_4x4", "usdot on 128 bits (AArch64 NEON with I8MM)",
               dot_u8s8s32_desc("arm_neon_usdot_u8s8s32_4x4", 4), 0, {{"i8mm"}}});
  // Armv8.2's dot product (Neoverse N1, Graviton 2) multiplies bytes of one
  // signedness only. B's bytes read as unsigned are b + 128 (b xor 0x80),
  // so a·b = udot(a, b xor 0x80) - 128·udot(a, 1): two udots, exact modulo
  // 2^32 like the int32 sum itself.
  t.push_back({"arm_neon_udot_u8s8s32_4x4", "two udots on 128 bits (AArch64 NEON with the dot product), exact",
               dot_u8s8s32_desc("arm_neon_udot_u8s8s32_4x4", 4), 0, {{"dotprod"}}});
  for (TensorIntrin& i : t) {
    i.pattern = analyse(i);
    i.num_loops = i.pattern->nest.loops.size();
  }
  return t;
}

}  // namespace

bool available_with(const TensorIntrin& t, const std::function<bool(const std::string&)>& has_feature) {
  for (const std::vector<std::string>& set : t.feature_sets)
    if (std::all_of(set.begin(), set.end(), has_feature)) return true;
  return false;
}

std::string feature_text(const TensorIntrin& t) {
  std::string s;
  for (const std::vector<std::string>& set : t.feature_sets) {
    std::string one;
    for (const std::string& f : set) one += (one.empty() ? "" : "+") + f;
    s += (s.empty() ? "" : " or ") + one;
  }
  return s;
}

const std::vector<TensorIntrin>& tensor_intrins() {
  static const std::vector<TensorIntrin> table = make_intrins();
  return table;
}

const TensorIntrin* find_tensor_intrin(std::string_view name) {
  for (const TensorIntrin& t : tensor_intrins())
    if (t.name == name) return &t;
  return nullptr;
}

std::string tensor_intrin_names() {
  std::string s;
  for (const TensorIntrin& t : tensor_intrins()) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

std::variant<TensorIntrinMatch, std::string> match_tensor_intrin(const Stmt& loop, const TensorIntrin& intrin) {
  const TensorIntrinPattern& pattern = *intrin.pattern;
  const Nest& want = pattern.nest;
  std::variant<Nest, std::string> have_nest = nest_of(loop);
  if (auto* why = std::get_if<std::string>(&have_nest)) return *why;
  Nest& have = std::get<Nest>(have_nest);

  // The loops: as many, from 0, of the same extents.
  if (have.loops.size() < want.loops.size())
    return "loop '" + have.loops[0]->loop_var->name + "' has " + std::to_string(have.loops.size()) +
           " loops under it down to the store, the intrinsic " + std::to_string(want.loops.size());
  if (have.loops.size() > want.loops.size())
    return "loop '" + have.loops[0]->loop_var->name + "' has " + std::to_string(have.loops.size()) +
           " loops under it down to the store, the intrinsic " + std::to_string(want.loops.size()) +
           " (tensorize the loop " + std::to_string(have.loops.size() - want.loops.size()) + " further in)";
  arith::Analyzer have_ana;
  for (size_t i = 0; i < want.loops.size(); ++i) {
    const ForNode* h = have.loops[i];
    const ForNode* w = want.loops[i];
    const int64_t* he = as_const_int(h->extent);
    if (!is_zero(h->min) || !he || *he != *as_const_int(w->extent))
      return "loop '" + h->loop_var->name + "' runs over [" + to_string(h->min) + ", " + to_string(h->min) + " + " +
             to_string(h->extent) + "), the intrinsic's loop '" + w->loop_var->name + "' over [0, " +
             to_string(w->extent) + ")";
    have_ana.bind(h->loop_var, Range(h->min, h->extent));
  }

  // The value: the same expression over the operands.
  const Shape hs = shape_of(have);
  const Shape& ws = pattern.shape;
  if (hs.accesses.size() != ws.accesses.size() ||
      !structural_equal(hs.value, ws.value, FreeVars::kMap))
    return "the store computes " + to_string(hs.value) + ", the intrinsic " + to_string(ws.value) +
           " (operands are loads, in order)";

  // A zero-guarded operand is the product's factor in the description: an
  // update acc + product, the product of operands.
  if (hs.zero_guarded) {
    const auto* add = ws.value.as<AddNode>();
    if (!add || !add->a.as<VarNode>() || !is_product(add->b))
      return "an operand is read under a condition (" + to_string(hs.guard) + "), and the intrinsic's update is not "
             "a sum of products";
  }
  TensorIntrinMatch m;
  m.guard = have.guard;
  if (hs.guard.defined()) m.guard = m.guard.defined() ? logical_and(m.guard, hs.guard) : hs.guard;
  // The operands: each parameter one buffer, every access of it at the
  // intrinsic's strides and from one base.
  m.operands.resize(intrin.desc.params().size());
  for (size_t a = 0; a < ws.accesses.size(); ++a) {
    const Access& w = ws.accesses[a];
    const Access& h = hs.accesses[a];
    const Placed* wp = &pattern.placed[a];
    const std::string what = a == 0 ? "the store into " : "a load of ";
    if (h.buffer->dtype != w.buffer->dtype)
      return what + "'" + h.buffer.name() + "' is " + h.buffer->dtype.str() + ", the intrinsic's " +
             w.buffer.name() + " " + w.buffer->dtype.str();
    std::optional<Placed> hp = place(h.offset, have, have_ana);
    if (!hp) return what + "'" + h.buffer.name() + "' is not at a linear offset in the loops: " + to_string(h.offset);
    if (hp->strides != wp->strides)
      return what + "'" + h.buffer.name() + "' moves by " + strides_text(hp->strides) +
             " elements along the loops, the intrinsic's " + w.buffer.name() + " by " + strides_text(wp->strides);
    TensorOperand& op = m.operands[pattern.param[a]];
    if (!op.buffer.defined()) {
      op = {h.buffer, hp->base};
    } else if (!op.buffer.same_as(h.buffer) || !structural_equal(op.offset, hp->base)) {
      return "the intrinsic's " + w.buffer.name() + " is both '" + op.buffer.name() + "' at " + to_string(op.offset) +
             " and '" + h.buffer.name() + "' at " + to_string(hp->base);
    }
  }
  return m;
}

}  // namespace kiln
