// Buffer accesses and intermediate storage.
//
// Index forms (docs/lowered_ir.md): a scalar index is a scalar access,
// Ramp(base, 1, n) a contiguous vector access aligned to the element, a
// Broadcast a single element, anything else a masked gather/scatter (which
// LLVM scalarises where the target has none).
//
// One gather has a cheaper form: a contiguous ramp clamped into a range,
// offset + clamp(Ramp(b, 1, n), lo, hi), which is how padding reads its
// input (ops/pad.cpp: the clamp keeps the load in bounds where the select
// around it discards the value). The lanes inside [lo, hi] are one masked
// contiguous load; the clamped lanes below and above read the elements at
// offset + clamp(b) and offset + clamp(b + n - 1), which the gather reads
// too, so nothing is read that the gather would not read.
//
// Another is an index that takes a few distinct values, each a constant
// offset from one scalar: base + (floordiv(Ramp(0, 1, 16), 8) * 8), a
// grouped convolution's input channel for 16 output channels in groups of
// 8 (ops/blocked.h). It is that many scalar loads, each broadcast to its
// lanes, instead of a gather of 16 (which on a Zen 5 cost the 16-lane
// design more than the two 8-lane vectors that the tuner then chose).
//
// Allocate: small constant-size buffers go on the stack (in the function's
// entry block, so a loop does not grow the stack); the rest come from the
// runtime's alloc_scratch and are freed when the Allocate's body ends.
#include <algorithm>

#include "core/int_div.h"
#include "targets/codegen/llvm/codegen_impl.h"
#include "targets/runtime/kernel_abi.h"

namespace kiln::llvm_backend {
namespace {

// Buffers up to this size (bytes) with a constant size live on the stack.
constexpr int64_t kMaxStackBytes = 32 * 1024;
constexpr uint64_t kAllocAlign = 64;

const Expr& single_index(const std::vector<Expr>& indices, const Buffer& b, const std::string& symbol) {
  KILN_ICHECK(indices.size() == 1) << "access to " << b.name() << " with " << indices.size()
                                   << " indices (buffers must be flat) in " << symbol;
  return indices[0];
}

}  // namespace

llvm::Value* CodeGen::emit_index(const Expr& index) {
  const bool saved = in_index_;
  in_index_ = true;
  llvm::Value* v = emit(index);
  in_index_ = saved;
  return v;
}

llvm::Value* CodeGen::buffer_ptr(const Buffer& b) {
  auto it = buffers_.find(&*b);
  KILN_ICHECK(it != buffers_.end()) << "buffer '" << b.name() << "' is neither a parameter nor allocated in "
                                    << symbol_;
  return it->second;
}

namespace {

// offset + clamp(Ramp(base, 1, lanes), lo, hi), either bound optional;
// min_inside: the clamp is max(min(x, hi), lo), else min(max(x, lo), hi)
// (they differ when lo > hi).
struct ClampedRamp {
  Expr offset, base, lo, hi;
  int64_t lanes = 0;
  bool min_inside = true;
};

std::optional<ClampedRamp> match_clamped_ramp(const Expr& index) {
  ClampedRamp m;
  Expr e = index;
  if (const auto* add = e.as<AddNode>()) {
    const auto* bc = add->a.as<BroadcastNode>();
    Expr rest = add->b;
    if (!bc) bc = add->b.as<BroadcastNode>(), rest = add->a;
    if (!bc) return std::nullopt;
    m.offset = bc->value;
    e = rest;
  }
  // Peel max(., Broadcast(lo)) and min(., Broadcast(hi)), once each.
  for (int i = 0; i < 2; ++i) {
    if (const auto* mx = e.as<MaxNode>(); mx && !m.lo.defined()) {
      const auto* bc = mx->b.as<BroadcastNode>();
      if (!bc) return std::nullopt;
      m.lo = bc->value, e = mx->a;
      if (i == 1) m.min_inside = false;
    } else if (const auto* mn = e.as<MinNode>(); mn && !m.hi.defined()) {
      const auto* bc = mn->b.as<BroadcastNode>();
      if (!bc) return std::nullopt;
      m.hi = bc->value, e = mn->a;
    }
  }
  const auto* r = e.as<RampNode>();
  if (!r || !is_const_int(r->stride, 1) || (!m.lo.defined() && !m.hi.defined())) return std::nullopt;
  m.base = r->base, m.lanes = r->lanes;
  return m;
}

// index = Broadcast(base) + offsets, the offsets a constant per lane.
struct LaneOffsets {
  Expr base;  // scalar; undefined for 0
  std::vector<int64_t> offsets;
};

// LaneOffsets of a vector index built from Broadcast, Ramp with a constant
// stride, +, -, * by a constant and floordiv/floormod by a positive
// constant of a lane-constant operand (one whose base is a constant too).
std::optional<LaneOffsets> match_lane_offsets(const Expr& e) {
  const int64_t lanes = e.dtype().lanes();
  auto broadcast_const = [](const Expr& x) -> const int64_t* {
    const auto* bc = x.as<BroadcastNode>();
    return bc ? as_const_int(bc->value) : nullptr;
  };
  if (const auto* bc = e.as<BroadcastNode>()) return LaneOffsets{bc->value, std::vector<int64_t>(lanes, 0)};
  if (const auto* r = e.as<RampNode>()) {
    const int64_t* stride = as_const_int(r->stride);
    if (!stride) return std::nullopt;
    LaneOffsets m{r->base, {}};
    for (int64_t i = 0; i < lanes; ++i) m.offsets.push_back(i * *stride);
    return m;
  }
  const bool add = e.as<AddNode>() != nullptr, sub = e.as<SubNode>() != nullptr;
  if (add || sub) {
    const BinaryOperands o = binary_operands(e);
    std::optional<LaneOffsets> a = match_lane_offsets(*o.a), b = match_lane_offsets(*o.b);
    if (!a || !b) return std::nullopt;
    for (int64_t i = 0; i < lanes; ++i) a->offsets[i] += sub ? -b->offsets[i] : b->offsets[i];
    if (b->base.defined()) a->base = !a->base.defined() ? (sub ? make_zero(b->base.dtype()) - b->base : b->base)
                                     : sub            ? a->base - b->base
                                                      : a->base + b->base;
    return a;
  }
  if (const auto* mul = e.as<MulNode>()) {
    const int64_t* c = broadcast_const(mul->b);
    const Expr* x = &mul->a;
    if (!c) c = broadcast_const(mul->a), x = &mul->b;
    if (!c) return std::nullopt;
    std::optional<LaneOffsets> m = match_lane_offsets(*x);
    if (!m) return std::nullopt;
    for (int64_t& v : m->offsets) v *= *c;
    if (m->base.defined()) m->base = m->base * make_const(m->base.dtype(), *c);
    return m;
  }
  const bool div = e.as<FloorDivNode>() != nullptr, mod = e.as<FloorModNode>() != nullptr;
  if (div || mod) {
    const BinaryOperands o = binary_operands(e);
    const int64_t* c = broadcast_const(*o.b);
    if (!c || *c <= 0) return std::nullopt;
    std::optional<LaneOffsets> m = match_lane_offsets(*o.a);
    if (!m) return std::nullopt;
    int64_t base = 0;
    if (m->base.defined()) {
      const int64_t* k = as_const_int(m->base);
      if (!k) return std::nullopt;
      base = *k;
    }
    for (int64_t& v : m->offsets) v = div ? floordiv_i(base + v, *c) : floormod_i(base + v, *c);
    m->base = Expr();
    return m;
  }
  return std::nullopt;
}

}  // namespace

llvm::Value* CodeGen::emit_few_element_load(llvm::Type* mt, llvm::Value* base, llvm::Align align, const Expr& index,
                                            const std::string& name) {
  const std::optional<LaneOffsets> m = match_lane_offsets(index);
  if (!m) return nullptr;
  std::vector<int64_t> distinct;
  for (int64_t v : m->offsets)
    if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
  const unsigned n = static_cast<unsigned>(m->offsets.size());
  if (distinct.size() * 4 > n) return nullptr;
  llvm::Value* row = m->base.defined() ? b_.CreateInBoundsGEP(mt, base, emit_index(m->base)) : base;
  llvm::Value* out = nullptr;
  for (int64_t d : distinct) {
    llvm::Value* p = b_.CreateInBoundsGEP(mt, row, b_.getInt64(d));
    llvm::Value* v = b_.CreateVectorSplat(n, b_.CreateAlignedLoad(mt, p, align, name));
    if (!out) {
      out = v;
      continue;
    }
    std::vector<llvm::Constant*> lanes_of_d;
    for (int64_t o : m->offsets) lanes_of_d.push_back(b_.getInt1(o == d));
    out = b_.CreateSelect(llvm::ConstantVector::get(lanes_of_d), v, out);
  }
  return out;
}

llvm::Value* CodeGen::emit_load(const BufferLoadNode* op) {
  const Expr& index = single_index(op->indices, op->buffer, symbol_);
  DataType elem = op->buffer->dtype;
  llvm::Type* mt = mem_type(elem);
  llvm::Align align(elem.bytes());
  llvm::Value* base = buffer_ptr(op->buffer);
  const int lanes = index.dtype().lanes();

  if (lanes == 1) {
    llvm::Value* p = b_.CreateInBoundsGEP(mt, base, emit_index(index));
    return from_memory(b_.CreateAlignedLoad(mt, p, align, op->buffer->name), elem);
  }
  llvm::Type* vt = llvm::FixedVectorType::get(mt, lanes);
  if (const auto* r = index.as<RampNode>(); r && is_const_int(r->stride, 1)) {
    llvm::Value* p = b_.CreateInBoundsGEP(mt, base, emit_index(r->base));
    return from_memory(b_.CreateAlignedLoad(vt, p, align, op->buffer->name), elem);
  }
  if (const auto* bc = index.as<BroadcastNode>()) {
    llvm::Value* p = b_.CreateInBoundsGEP(mt, base, emit_index(bc->value));
    llvm::Value* v = from_memory(b_.CreateAlignedLoad(mt, p, align, op->buffer->name), elem);
    return b_.CreateVectorSplat(lanes, v);
  }
  if (std::optional<ClampedRamp> m = match_clamped_ramp(index))
    return from_memory(emit_clamped_load(mt, base, align, m->offset, m->base, m->lo, m->hi, m->min_inside, m->lanes),
                       elem);
  if (llvm::Value* v = emit_few_element_load(mt, base, align, index, op->buffer->name)) return from_memory(v, elem);
  if (llvm::Value* v = emit_runs_load(mt, base, align, index, op->buffer->name)) return from_memory(v, elem);
  llvm::Value* ptrs = b_.CreateInBoundsGEP(mt, base, emit_index(index));
  return from_memory(b_.CreateMaskedGather(vt, ptrs, align, nullptr, nullptr, op->buffer->name), elem);
}

// Read access, locality 2 (prefetcht1 on x86: into the level-2 cache, where
// tir/transform/prefetch_panels.h wants the next panel), data cache. Not
// an inbounds GEP: a prefetch may name a line past what the kernel reads.
void CodeGen::emit_prefetch(const PrefetchNode* op) {
  const Expr& index = single_index(op->indices, op->buffer, symbol_);
  KILN_ICHECK(index.dtype().lanes() == 1) << "prefetch of a vector index in " << symbol_;
  llvm::Value* p = b_.CreateGEP(mem_type(op->buffer->dtype), buffer_ptr(op->buffer), emit_index(index));
  b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {p->getType()}, {p, b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
}

llvm::Value* CodeGen::emit_clamped_load(llvm::Type* mt, llvm::Value* base, llvm::Align align, const Expr& offset,
                                        const Expr& ramp_base, const Expr& lo, const Expr& hi, bool min_inside,
                                        int64_t lanes) {
  llvm::Value* b = emit_index(ramp_base);
  llvm::Type* it = b->getType();
  auto cast = [&](llvm::Value* v) { return b_.CreateSExtOrTrunc(v, it); };
  llvm::Value* vlo = lo.defined() ? cast(emit_index(lo)) : nullptr;
  llvm::Value* vhi = hi.defined() ? cast(emit_index(hi)) : nullptr;
  llvm::Value* row = offset.defined() ? b_.CreateInBoundsGEP(mt, base, emit_index(offset)) : base;
  auto clamp = [&](llvm::Value* x) {
    if (vhi && min_inside) x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, vhi);
    if (vlo) x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, vlo);
    if (vhi && !min_inside) x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, vhi);
    return x;
  };
  // The lane indices b + i, and which of them the clamp leaves alone.
  const unsigned n = static_cast<unsigned>(lanes);
  std::vector<llvm::Constant*> steps;
  for (unsigned i = 0; i < n; ++i) steps.push_back(llvm::ConstantInt::get(it, i));
  llvm::Value* idx = b_.CreateAdd(b_.CreateVectorSplat(n, b), llvm::ConstantVector::get(steps));
  llvm::Value* inside = llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(b_.getInt1Ty(), n));
  if (vlo) inside = b_.CreateAnd(inside, b_.CreateICmpSGE(idx, b_.CreateVectorSplat(n, vlo)));
  if (vhi) inside = b_.CreateAnd(inside, b_.CreateICmpSLE(idx, b_.CreateVectorSplat(n, vhi)));
  // Clamped lanes: the first lane's element below the range, the last's above.
  auto element_at = [&](llvm::Value* i) {
    return b_.CreateVectorSplat(n, b_.CreateAlignedLoad(mt, b_.CreateInBoundsGEP(mt, row, i), align));
  };
  llvm::Value* low = vlo ? element_at(clamp(b)) : nullptr;
  llvm::Value* high = vhi ? element_at(clamp(b_.CreateAdd(b, llvm::ConstantInt::get(it, n - 1)))) : nullptr;
  llvm::Value* fill =
      low && high ? b_.CreateSelect(b_.CreateICmpSLT(idx, b_.CreateVectorSplat(n, vlo)), low, high) : low ? low : high;
  // The first lane's address may lie outside the buffer: a plain GEP, and
  // the masked load touches only the lanes inside.
  llvm::Value* first = b_.CreateGEP(mt, row, b);
  return b_.CreateMaskedLoad(llvm::FixedVectorType::get(mt, n), first, align, inside, fill);
}

void CodeGen::emit_store(const BufferStoreNode* op) {
  const Expr& index = single_index(op->indices, op->buffer, symbol_);
  DataType elem = op->buffer->dtype;
  llvm::Type* mt = mem_type(elem);
  llvm::Align align(elem.bytes());
  llvm::Value* base = buffer_ptr(op->buffer);
  const int lanes = index.dtype().lanes();
  KILN_ICHECK(op->value.dtype().lanes() == lanes)
      << "store of " << op->value.dtype().str() << " at a " << lanes << "-lane index of " << op->buffer->name
      << " in " << symbol_;
  llvm::Value* value = to_memory(emit(op->value), elem);

  if (lanes == 1) {
    b_.CreateAlignedStore(value, b_.CreateInBoundsGEP(mt, base, emit_index(index)), align);
    return;
  }
  if (const auto* r = index.as<RampNode>(); r && is_const_int(r->stride, 1)) {
    b_.CreateAlignedStore(value, b_.CreateInBoundsGEP(mt, base, emit_index(r->base)), align);
    return;
  }
  if (const auto* bc = index.as<BroadcastNode>()) {
    // Every lane writes the same element: the last one wins, as in a loop.
    llvm::Value* last = b_.CreateExtractElement(value, static_cast<uint64_t>(lanes - 1));
    b_.CreateAlignedStore(last, b_.CreateInBoundsGEP(mt, base, emit_index(bc->value)), align);
    return;
  }
  b_.CreateMaskedScatter(value, b_.CreateInBoundsGEP(mt, base, emit_index(index)), align);
}

void CodeGen::emit_allocate(const AllocateNode* op) {
  const Buffer& buf = op->buffer;
  KILN_ICHECK(buf->shape.size() == 1) << "allocation of " << buf->name << " is not flat in " << symbol_;
  DataType elem = buf->dtype;
  llvm::Type* mt = mem_type(elem);
  const int64_t elem_bytes = static_cast<int64_t>(module_.getDataLayout().getTypeAllocSize(mt));
  std::optional<int64_t> n = const_int(buf->shape[0]);

  llvm::Value* ptr;
  bool on_heap = false;
  if (n && *n >= 0 && *n * elem_bytes <= kMaxStackBytes) {
    ptr = entry_alloca(mt, static_cast<uint64_t>(std::max<int64_t>(*n, 1)), kAllocAlign, buf->name);
  } else {
    llvm::Value* count = b_.CreateSExtOrTrunc(emit(buf->shape[0]), b_.getInt64Ty());
    llvm::Value* bytes = b_.CreateMul(count, b_.getInt64(static_cast<uint64_t>(elem_bytes)));
    llvm::FunctionType* alloc_ty =
        llvm::FunctionType::get(b_.getPtrTy(), {b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    llvm::CallInst* call = b_.CreateCall(alloc_ty, runtime_field(kRtAllocScratch), {runtime_field(kRtPool), bytes, b_.getInt64(kAllocAlign)},
                                         buf->name);
    call->addRetAttr(llvm::Attribute::NoAlias);
    ptr = call;
    llvm::Value* failed = b_.CreateICmpEQ(ptr, llvm::ConstantPointerNull::get(b_.getPtrTy()));
    emit_status_check(b_.CreateSelect(failed, b_.getInt32(KILN_STATUS_ALLOC_FAILED), b_.getInt32(KILN_STATUS_OK)));
    fs_.live_scratch.push_back(ptr);
    on_heap = true;
  }

  auto [it, inserted] = buffers_.emplace(&*buf, ptr);
  KILN_ICHECK(inserted) << "buffer " << buf->name << " allocated twice in " << symbol_;
  emit(op->body);
  buffers_.erase(&*buf);

  if (on_heap) {
    fs_.live_scratch.pop_back();
    llvm::FunctionType* free_ty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getPtrTy()}, false);
    b_.CreateCall(free_ty, runtime_field(kRtFreeScratch), {runtime_field(kRtPool), ptr});
  }
}

// A gather whose lanes read a few contiguous runs of memory, each at a
// constant offset from one scalar (the rows of a small block being
// transposed or interleaved: four rows of 16 bytes into the layout of an
// int8 dot product, lane l reading row l % 4 at column l / 4): one vector
// load per run, shuffled into the lanes' order. LLVM scalarizes a gather of
// bytes into as many loads and inserts as lanes. At most a quarter as many
// runs as lanes (every run holds only offsets some lane reads, so no byte
// is loaded in vain).
llvm::Value* CodeGen::emit_runs_load(llvm::Type* mt, llvm::Value* base, llvm::Align align, const Expr& index,
                                     const std::string& name) {
  const std::optional<LaneOffsets> m = match_lane_offsets(index);
  if (!m) return nullptr;
  std::vector<int64_t> sorted = m->offsets;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  struct Run {
    int64_t first, length;
  };
  std::vector<Run> runs;
  for (int64_t v : sorted) {
    if (!runs.empty() && runs.back().first + runs.back().length == v) ++runs.back().length;
    else runs.push_back({v, 1});
  }
  const int64_t n = static_cast<int64_t>(m->offsets.size());
  if (runs.size() < 2 || static_cast<int64_t>(runs.size()) * 4 > n) return nullptr;
  llvm::Value* row = m->base.defined() ? b_.CreateInBoundsGEP(mt, base, emit_index(m->base)) : base;
  // Each run loaded whole and widened to n lanes; the lanes it serves taken
  // from it, the others kept.
  llvm::Value* out = llvm::PoisonValue::get(llvm::FixedVectorType::get(mt, static_cast<unsigned>(n)));
  for (const Run& r : runs) {
    auto* vt = llvm::FixedVectorType::get(mt, static_cast<unsigned>(r.length));
    llvm::Value* v = b_.CreateAlignedLoad(vt, b_.CreateInBoundsGEP(mt, row, b_.getInt64(r.first)), align, name);
    std::vector<int> widen(static_cast<size_t>(n), -1);
    for (int64_t i = 0; i < std::min(n, r.length); ++i) widen[static_cast<size_t>(i)] = static_cast<int>(i);
    llvm::Value* wide = r.length == n ? v : b_.CreateShuffleVector(v, widen);
    std::vector<int> pick(static_cast<size_t>(n));
    for (int64_t l = 0; l < n; ++l) {
      const int64_t o = m->offsets[static_cast<size_t>(l)];
      pick[static_cast<size_t>(l)] = o >= r.first && o < r.first + r.length ? static_cast<int>(n + (o - r.first))
                                                                           : static_cast<int>(l);
    }
    out = b_.CreateShuffleVector(out, wide, pick);
  }
  return out;
}

}  // namespace kiln::llvm_backend
