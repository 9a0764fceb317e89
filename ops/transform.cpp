#include "ops/transform.h"

#include "core/error.h"
#include "ops/common.h"

namespace kiln::ops {
namespace {

std::vector<int64_t> extents(const std::string& op, const te::Tensor& t) {
  std::vector<int64_t> out;
  for (int d = 0; d < t.ndim(); ++d) out.push_back(const_extent(op, t, d));
  return out;
}

}  // namespace

te::Tensor transpose(const te::Tensor& A, const std::vector<int64_t>& perm, const std::string& name) {
  const std::vector<int64_t> in = extents(name, A);
  if (perm.size() != in.size()) KILN_USER_ERROR() << name << ": perm of " << perm.size() << " axes for rank " << in.size();
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(in.at(static_cast<size_t>(p)));
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(in.size());
        for (size_t d = 0; d < perm.size(); ++d) idx[static_cast<size_t>(perm[d])] = i[d];
        return A(idx);
      },
      name);
}

te::Tensor reshape(const te::Tensor& A, const std::vector<int64_t>& shape, const std::string& name) {
  const std::vector<int64_t> in = extents(name, A);
  int64_t n_in = 1, n_out = 1;
  for (int64_t e : in) n_in *= e;
  for (int64_t e : shape) n_out *= e;
  if (n_in != n_out) KILN_USER_ERROR() << name << ": " << n_in << " elements into a shape of " << n_out;
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        // The row-major position, then A's indices of it; axes of extent 1
        // contribute nothing and are left out of both.
        Expr flat = i32(0);
        for (size_t d = 0; d < shape.size(); ++d)
          if (shape[d] != 1) flat = is_zero(flat) ? Expr(i[d]) : flat * i32(shape[d]) + i[d];
        std::vector<Expr> idx(in.size(), i32(0));
        int64_t stride = 1;
        for (size_t d = in.size(); d-- > 0;) {
          if (in[d] != 1) {
            Expr q = stride == 1 ? flat : floordiv(flat, i32(stride));
            idx[d] = stride * in[d] == n_in ? q : floormod(q, i32(in[d]));
          }
          stride *= in[d];
        }
        return A(idx);
      },
      name);
}

te::Tensor concat(const std::vector<te::Tensor>& all_parts, int64_t axis, const std::string& name) {
  if (all_parts.empty()) KILN_USER_ERROR() << name << ": nothing to join";
  std::vector<int64_t> shape = extents(name, all_parts[0]);
  const size_t a = static_cast<size_t>(axis);
  // Parts of extent 0 along the axis add nothing, and have no element a
  // clamped index could read: left out (all of them when all are empty).
  std::vector<te::Tensor> parts;
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (const te::Tensor& p : all_parts) {
    std::vector<int64_t> e = extents(name, p);
    if (e.size() != shape.size()) KILN_USER_ERROR() << name << ": parts of different ranks";
    if (e[a] == 0) continue;
    parts.push_back(p);
    offsets.push_back(total);
    total += e[a];
  }
  shape[a] = total;
  if (parts.empty()) parts.push_back(all_parts[0]), offsets.push_back(0);
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        // The last part whose offset the index has reached. A select
        // evaluates both sides, so each part's index is clamped into it
        // (as ops/pad.h does): the loads the select drops stay in bounds.
        auto load = [&](size_t k) {
          std::vector<Expr> idx(i.begin(), i.end());
          const int64_t end = (k + 1 < parts.size() ? offsets[k + 1] : total) - offsets[k];
          if (offsets[k] != 0) idx[a] = max(i[a] - i32(offsets[k]), i32(0));
          if (k + 1 < parts.size()) idx[a] = min(idx[a], i32(end - 1));
          return parts[k](idx);
        };
        Expr out = load(parts.size() - 1);
        for (size_t k = parts.size() - 1; k-- > 0;) out = select(lt(i[a], i32(offsets[k + 1])), load(k), out);
        return out;
      },
      name);
}

te::Tensor strided_slice(const te::Tensor& A, const std::vector<int64_t>& start, const std::vector<int64_t>& step,
                         const std::vector<int64_t>& count, const std::string& name) {
  const size_t rank = static_cast<size_t>(A.ndim());
  if (start.size() != rank || step.size() != rank || count.size() != rank)
    KILN_USER_ERROR() << name << ": starts, steps and counts must give every one of " << rank << " axes";
  return te::compute(
      i32s(count),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx;
        for (size_t d = 0; d < rank; ++d) {
          Expr x = step[d] == 1 ? Expr(i[d]) : i[d] * i32(step[d]);
          idx.push_back(start[d] == 0 ? x : x + i32(start[d]));
        }
        return A(idx);
      },
      name);
}

te::Tensor take(const te::Tensor& A, const std::vector<int64_t>& indices, const std::vector<int64_t>& index_shape,
                int64_t axis, const std::string& name) {
  const std::vector<int64_t> in = extents(name, A);
  const size_t a = static_cast<size_t>(axis);
  std::vector<int64_t> shape(in.begin(), in.begin() + axis);
  shape.insert(shape.end(), index_shape.begin(), index_shape.end());
  shape.insert(shape.end(), in.begin() + axis + 1, in.end());
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        // The position along A's axis: indices[j] for the flat index j of
        // the index axes, as a chain of selects over the constants.
        Expr j = i32(0);
        for (size_t d = 0; d < index_shape.size(); ++d) j = j * i32(index_shape[d]) + i[a + d];
        auto wrapped = [&](size_t k) { return indices[k] < 0 ? indices[k] + in[a] : indices[k]; };
        Expr pos = i32(wrapped(indices.size() - 1));
        for (size_t k = indices.size() - 1; k-- > 0;) pos = select(eq(j, i32(static_cast<int64_t>(k))), i32(wrapped(k)), pos);
        std::vector<Expr> idx(i.begin(), i.begin() + axis);
        idx.push_back(pos);
        idx.insert(idx.end(), i.begin() + axis + static_cast<int64_t>(index_shape.size()), i.end());
        return A(idx);
      },
      name);
}

}  // namespace kiln::ops
