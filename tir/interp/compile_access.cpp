// Buffer loads and stores: index evaluation, bounds checks, element access.
//
// Every index of every dimension is checked against the buffer's extent, in
// block form (any rank) as in lowered form (one flat index), so an access that
// would stray into a neighbouring row is caught too. The one exception is
// provable: an index that is a loop variable whose constant range lies inside
// a constant extent is not checked again at every access.
//
// Storage layout (strides, storage_align padding) is a compile-time constant
// for buffers of constant shape, and otherwise comes from the LiveBuffer, set
// when the buffer is bound or allocated.
#include <sstream>

#include "tir/interp/compiler.h"

namespace kiln::interp {

namespace {

class Access {
 public:
  Access(Compiler& c, const Buffer& b, const std::vector<Expr>& indices, int lanes) : lanes_(lanes) {
    buffer_ = c.buffer_id(b);
    const BufferInfo& info = c.buffer_info(buffer_);
    if (static_cast<int>(indices.size()) != info.ndim)
      KILN_USER_ERROR() << "access to " << info.name << " with " << indices.size() << " indices, but it has "
                        << info.ndim << " dimensions";
    name_ = info.name;
    static_ = info.static_layout;
    for (size_t d = 0; d < indices.size(); ++d) {
      const Expr& i = indices[d];
      DataType t = i.dtype();
      if (!t.is_integral() || (t.lanes() != 1 && t.lanes() != lanes))
        KILN_USER_ERROR() << "index of " << name_ << " has type " << t.str();
      Dim dim;
      if (t.is_scalar()) {
        dim.index = c.index(i);
        vector_.push_back(nullptr);
      } else {
        vector_.push_back(c.expr(i));
      }
      if (static_) {
        dim.extent = info.shape[d];
        dim.stride = info.strides[d];
        auto r = c.range_of(dim.index);
        dim.check = !(t.is_scalar() && r && (r->first > r->second || (r->first >= 0 && r->second < dim.extent)));
      }
      dims_.push_back(std::move(dim));
    }
    // The fast form: a constant layout indexed by variables and in-bounds
    // constants, offset = base + sum(slot * stride).
    fast_ = static_ && lanes == 1;
    for (const Dim& d : dims_) {
      if (!fast_) break;
      if (d.index.is_slot()) {
        fast_dims_.push_back(FastDim{d.index.slot_index(), d.check, d.extent, d.stride});
      } else if (d.index.is_constant() && !d.check) {
        base_ += d.index.constant_value() * d.stride;
      } else {
        fast_ = false;
      }
    }
    lane_index_.resize(indices.size() * static_cast<size_t>(lanes));
  }

  int buffer() const { return buffer_; }

  // The element offset of a scalar access. Kept small so it inlines into
  // loads and stores; the error path is out of line.
  [[gnu::always_inline]] int64_t offset(Frame& fr) const {
    if (fast_) [[likely]] {
      int64_t off = base_;
      for (const FastDim& d : fast_dims_) {
        const int64_t x = fr.slots[d.slot].i;
        if (d.check && static_cast<uint64_t>(x) >= static_cast<uint64_t>(d.extent)) [[unlikely]]
          scalar_out_of_bounds(fr);
        off += x * d.stride;
      }
      return off;
    }
    return general_offset(fr);
  }

  [[gnu::noinline]] int64_t general_offset(Frame& fr) const {
    int64_t off = 0;
    if (static_) {
      for (const Dim& d : dims_) {
        const int64_t x = d.index.eval(fr);
        if (d.check && static_cast<uint64_t>(x) >= static_cast<uint64_t>(d.extent)) [[unlikely]]
          scalar_out_of_bounds(fr);
        off += x * d.stride;
      }
      return off;
    }
    const LiveBuffer& b = fr.buffers[buffer_];
    const int64_t* shape = b.shape.data();
    const int64_t* strides = b.strides.data();
    for (size_t d = 0; d < dims_.size(); ++d) {
      const int64_t x = dims_[d].index.eval(fr);
      if (static_cast<uint64_t>(x) >= static_cast<uint64_t>(shape[d])) [[unlikely]]
        scalar_out_of_bounds(fr);
      off += x * strides[d];
    }
    return off;
  }

  // The element offsets of every lane of a vector access.
  void offsets(Frame& fr, int64_t* out) const {
    const LiveBuffer& b = fr.buffers[buffer_];
    const size_t nd = dims_.size();
    for (size_t d = 0; d < nd; ++d) {
      Scalar* lanes = &lane_index_[d * lanes_];
      if (vector_[d]) {
        vector_[d]->eval_lanes(fr, lanes);
      } else {
        int64_t x = dims_[d].index.eval(fr);
        for (int l = 0; l < lanes_; ++l) lanes[l].i = x;
      }
    }
    for (int l = 0; l < lanes_; ++l) {
      int64_t off = 0;
      for (size_t d = 0; d < nd; ++d) {
        int64_t x = lane_index_[d * lanes_ + l].i;
        if (static_cast<uint64_t>(x) >= static_cast<uint64_t>(b.shape[d])) {
          std::vector<int64_t> at;
          for (size_t e = 0; e < nd; ++e) at.push_back(lane_index_[e * lanes_ + l].i);
          out_of_bounds(b, at, l);
        }
        off += x * b.strides[d];
      }
      out[l] = off;
    }
  }

 private:
  [[noreturn, gnu::noinline, gnu::cold]] void scalar_out_of_bounds(Frame& fr) const {
    std::vector<int64_t> at;
    for (const Dim& d : dims_) at.push_back(d.index.eval(fr));
    out_of_bounds(fr.buffers[buffer_], at, -1);
  }

  [[noreturn, gnu::noinline, gnu::cold]] void out_of_bounds(const LiveBuffer& b, const std::vector<int64_t>& at, int lane) const {
    auto list = [](std::ostream& os, const std::vector<int64_t>& v) {
      os << "[";
      for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
      os << "]";
    };
    std::ostringstream os;
    os << "out-of-bounds access to " << name_ << " at index ";
    list(os, at);
    if (lane >= 0) os << " (lane " << lane << " of " << lanes_ << ")";
    os << ": its shape is ";
    list(os, b.shape);
    KILN_USER_ERROR() << os.str();
  }

  // One dimension of a scalar access; extent and stride when static_.
  struct Dim {
    IndexCode index = IndexCode::constant(0);
    int64_t extent = 0, stride = 0;
    bool check = true;
  };

  struct FastDim {
    int slot;
    bool check;
    int64_t extent, stride;
  };

  int buffer_ = 0;
  int lanes_ = 1;
  bool static_ = false;
  bool fast_ = false;
  int64_t base_ = 0;
  std::string name_;
  std::vector<Dim> dims_;
  std::vector<FastDim> fast_dims_;
  std::vector<ExprPtr> vector_;
  // Lanes of every dimension's index, dimension-major.
  mutable std::vector<Scalar> lane_index_;
};

template <Elem E>
class ScalarLoad final : public ExprCode {
  using IO = ElemIO<E>;

 public:
  ScalarLoad(DataType t, Access a) : ExprCode(t), a_(std::move(a)) {}
  int64_t eval_int(Frame& fr) const override {
    if constexpr (IO::kFloat) {
      return ExprCode::eval_int(fr);
    } else {
      int64_t off = a_.offset(fr);
      return IO::read(fr.buffers[a_.buffer()].data + off * IO::kBytes);
    }
  }
  double eval_float(Frame& fr) const override {
    if constexpr (IO::kFloat) {
      int64_t off = a_.offset(fr);
      return IO::read(fr.buffers[a_.buffer()].data + off * IO::kBytes);
    } else {
      return ExprCode::eval_float(fr);
    }
  }

 private:
  Access a_;
};

class VectorLoad final : public ExprCode {
 public:
  VectorLoad(DataType t, Access a) : ExprCode(t), a_(std::move(a)), elem_(elem_of(t.element_of())), off_(t.lanes()) {}
  void eval_lanes(Frame& fr, Scalar* out) const override {
    a_.offsets(fr, off_.data());
    const char* base = fr.buffers[a_.buffer()].data;
    for (int l = 0; l < lanes(); ++l) out[l] = read_element(elem_, base, off_[l]);
  }

 private:
  Access a_;
  Elem elem_;
  mutable std::vector<int64_t> off_;
};

template <Elem E>
class ScalarStore final : public StmtCode {
  using IO = ElemIO<E>;

 public:
  ScalarStore(Access a, ExprPtr v) : a_(std::move(a)), v_(std::move(v)) {}
  void run(Frame& fr) const override {
    if constexpr (IO::kFloat) {
      double v = v_->eval_float(fr);
      int64_t off = a_.offset(fr);
      IO::write(fr.buffers[a_.buffer()].data + off * IO::kBytes, v);
    } else {
      int64_t v = v_->eval_int(fr);
      int64_t off = a_.offset(fr);
      IO::write(fr.buffers[a_.buffer()].data + off * IO::kBytes, v);
    }
  }

 private:
  Access a_;
  ExprPtr v_;
};

// Lanes are written in order, so with repeated indices the last lane wins.
class VectorStore final : public StmtCode {
 public:
  VectorStore(Access a, ExprPtr v, Elem e)
      : a_(std::move(a)), v_(std::move(v)), elem_(e), values_(v_->lanes()), off_(v_->lanes()) {}
  void run(Frame& fr) const override {
    v_->eval_lanes(fr, values_.data());
    a_.offsets(fr, off_.data());
    char* base = fr.buffers[a_.buffer()].data;
    for (size_t l = 0; l < values_.size(); ++l) write_element(elem_, base, off_[l], values_[l]);
  }

 private:
  Access a_;
  ExprPtr v_;
  Elem elem_;
  mutable std::vector<Scalar> values_;
  mutable std::vector<int64_t> off_;
};

int index_lanes(const std::vector<Expr>& indices) {
  int lanes = 1;
  for (const Expr& i : indices) lanes = std::max(lanes, i.dtype().lanes());
  return lanes;
}

}  // namespace

ExprPtr Compiler::load(const BufferLoadNode* op) {
  const DataType t = op->dtype;
  const int lanes = index_lanes(op->indices);
  if (t.element_of() != op->buffer.dtype() || t.lanes() != lanes)
    KILN_USER_ERROR() << "load of " << t.str() << " from " << op->buffer.name() << " of "
                      << op->buffer.dtype().str() << " with " << lanes << "-lane indices";
  Access a(*this, op->buffer, op->indices, lanes);
  if (lanes > 1) return std::make_unique<VectorLoad>(t, std::move(a));
  return dispatch_elem(elem_of(t), [&](auto k) -> ExprPtr {
    return std::make_unique<ScalarLoad<decltype(k)::value>>(t, std::move(a));
  });
}

StmtPtr Compiler::store(const BufferStoreNode* op) {
  const DataType t = op->value.dtype();
  const int lanes = index_lanes(op->indices);
  if (t.element_of() != op->buffer.dtype() || t.lanes() != lanes)
    KILN_USER_ERROR() << "store of " << t.str() << " into " << op->buffer.name() << " of "
                      << op->buffer.dtype().str() << " with " << lanes << "-lane indices";
  Access a(*this, op->buffer, op->indices, lanes);
  ExprPtr v = expr(op->value);
  const Elem e = elem_of(t.element_of());
  if (lanes > 1) return std::make_unique<VectorStore>(std::move(a), std::move(v), e);
  return dispatch_elem(e, [&](auto k) -> StmtPtr {
    return std::make_unique<ScalarStore<decltype(k)::value>>(std::move(a), std::move(v));
  });
}

}  // namespace kiln::interp
