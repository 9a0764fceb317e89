#include "tir/transform/flatten_buffer.h"

#include <limits>
#include <unordered_map>

#include "tir/buffer_layout.h"
#include "tir/functor.h"

namespace kiln {

std::vector<int64_t> buffer_strides(const Buffer& b) {
  // The outermost extent does not enter the strides.
  std::vector<int64_t> shape;
  for (int i = 0; i < b.ndim(); ++i) {
    const int64_t* ext = as_const_int(b.shape()[i]);
    KILN_ICHECK(ext || i == 0) << "buffer " << b.name() << " has a non-constant extent";
    shape.push_back(ext ? *ext : 1);
  }
  std::vector<int64_t> strides;
  compute_layout(shape, b->align_axis, b->align_factor, b->align_offset, strides);
  return strides;
}

int64_t buffer_flat_size(const Buffer& b) {
  if (b.ndim() == 0) return 1;
  const int64_t* ext0 = as_const_int(b.shape()[0]);
  KILN_ICHECK(ext0) << "buffer " << b.name() << " has a non-constant extent";
  return buffer_strides(b)[0] * *ext0;
}

namespace {

class Flattener : public StmtMutator {
 public:
  using StmtMutator::mutate;

  Buffer flat(const Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second.buffer;
    int64_t size = buffer_flat_size(b);
    DataType index_type = size >= (int64_t{1} << 31) ? DataType::Int64() : DataType::Int32();
    Buffer f(b.name(), b.dtype(), {int_imm(index_type, size)}, b->scope);
    flat_[b.get()] = {f, buffer_strides(b), index_type};
    return f;
  }

  Expr visit_BufferLoad(const BufferLoadNode* op, const Expr&) override {
    Buffer f = flat(op->buffer);
    return buffer_load(f, {flat_index(op->buffer, op->indices)});
  }

  Stmt visit_BufferStore(const BufferStoreNode* op, const Stmt&) override {
    Buffer f = flat(op->buffer);
    return buffer_store(f, mutate(op->value), {flat_index(op->buffer, op->indices)});
  }

  Stmt visit_Allocate(const AllocateNode* op, const Stmt&) override {
    Buffer f = flat(op->buffer);
    return allocate(f, mutate(op->body));
  }

 private:
  struct Flat {
    Buffer buffer;
    std::vector<int64_t> strides;
    DataType index_type;
  };

  Expr flat_index(const Buffer& b, const std::vector<Expr>& indices) {
    const Flat& f = flat_.at(b.get());
    KILN_ICHECK(indices.size() == f.strides.size())
        << "access to " << b.name() << " with " << indices.size() << " indices, rank " << f.strides.size();
    Expr index;
    for (size_t i = 0; i < indices.size(); ++i) {
      Expr idx = mutate(indices[i]);
      DataType t = f.index_type.with_lanes(idx.dtype().lanes());
      if (idx.dtype() != t) idx = cast(t, idx);
      Expr term = f.strides[i] == 1 ? idx : mul(idx, int_imm(f.index_type, f.strides[i]));
      index = index.defined() ? add(index, term) : term;
    }
    return index.defined() ? index : int_imm(f.index_type, 0);
  }

  std::unordered_map<const Object*, Flat> flat_;
};

}  // namespace

PrimFunc flatten_buffers(const PrimFunc& f) {
  Flattener fl;
  std::vector<Buffer> params;
  for (const Buffer& p : f.params()) params.push_back(fl.flat(p));
  Stmt body = fl.mutate(f.body());
  return PrimFunc(f.name(), std::move(params), std::move(body), f->attrs);
}

}  // namespace kiln
