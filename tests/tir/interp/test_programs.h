// Small builders shared by the interpreter tests: hand-built PrimFuncs in
// block form and views of std::vectors as arguments.
#pragma once

#include <vector>

#include "tir/interp/interpreter.h"
#include "tir/stmt.h"

namespace kiln::test {

inline const DataType kF32 = DataType::Float32();
inline const DataType kI32 = DataType::Int32();

template <typename T>
HostBuffer host(std::vector<T>& v, DataType t, std::vector<int64_t> shape) {
  return HostBuffer{t, std::move(shape), v.data()};
}

inline Stmt loop(const Var& v, int extent, Stmt body, ForKind kind = ForKind::kSerial, std::string tag = "") {
  return for_loop(v, Expr(0), Expr(extent), kind, std::move(body), std::move(tag));
}

inline IterVar spatial(const Var& v, int extent) { return IterVar(v, Range::from_extent(Expr(extent)), IterType::kSpatial); }
inline IterVar reduce_axis(const Var& v, int extent) { return IterVar(v, Range::from_extent(Expr(extent)), IterType::kReduce); }

// The function body wrapped in a root block, as create_prim_func makes it.
inline Stmt root(Stmt body, std::vector<Buffer> allocs = {}) {
  return block_realize({}, Expr(), block({.name = "root", .body = std::move(body), .alloc_buffers = std::move(allocs)}));
}

// C[i, j] = sum_k A[i, k] * B[k, j] in block form with an init, n x m x l.
inline PrimFunc matmul_block(int n, int m, int l) {
  Buffer A("A", kF32, {Expr(n), Expr(l)}), B("B", kF32, {Expr(l), Expr(m)}), C("C", kF32, {Expr(n), Expr(m)});
  Var i("i"), j("j"), k("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt init = buffer_store(C, Expr(0.0f), {vi, vj});
  Stmt body = buffer_store(C, buffer_load(C, {vi, vj}) + buffer_load(A, {vi, vk}) * buffer_load(B, {vk, vj}), {vi, vj});
  Stmt blk = block({.name = "C",
                    .iter_vars = {spatial(vi, n), spatial(vj, m), reduce_axis(vk, l)},
                    .reads = {BufferRegion::full(A), BufferRegion::full(B)},
                    .writes = {BufferRegion::full(C)},
                    .init = init,
                    .body = body});
  Stmt nest = loop(i, n, loop(j, m, loop(k, l, block_realize({i, j, k}, Expr(), blk))));
  return PrimFunc("matmul", {A, B, C}, root(nest));
}

// Deterministic test data in [-1, 1).
inline std::vector<float> ramp_data(size_t n, int seed) {
  std::vector<float> v(n);
  uint32_t s = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
  }
  return v;
}

}  // namespace kiln::test
