#include "tir/interp/compiler.h"

#include "tir/buffer_layout.h"

namespace kiln::interp {

int Compiler::bind_var(const Var& v) {
  const int s = num_slots_;
  num_slots_ += std::max(1, v.dtype().lanes());
  var_slots_[static_cast<const VarNode*>(v.get())].push_back(s);
  return s;
}

void Compiler::alias_var(const Var& v, int slot) {
  var_slots_[static_cast<const VarNode*>(v.get())].push_back(slot);
}

void Compiler::set_range(int slot, int64_t lo, int64_t hi) { ranges_[slot] = {lo, hi}; }
void Compiler::clear_range(int slot) { ranges_.erase(slot); }

std::optional<std::pair<int64_t, int64_t>> Compiler::range_of(const IndexCode& i) const {
  if (i.is_constant()) return std::make_pair(i.constant_value(), i.constant_value());
  if (i.is_slot()) {
    auto it = ranges_.find(i.slot_index());
    if (it != ranges_.end()) return it->second;
  }
  return std::nullopt;
}

void Compiler::unbind_var(const Var& v) {
  auto it = var_slots_.find(static_cast<const VarNode*>(v.get()));
  KILN_ICHECK(it != var_slots_.end() && !it->second.empty()) << "unbinding unbound " << v.name();
  it->second.pop_back();
}

int Compiler::slot_of(const VarNode* v) const {
  auto it = var_slots_.find(v);
  if (it == var_slots_.end() || it->second.empty())
    KILN_USER_ERROR() << "variable " << v->name << " is used outside the scope that defines it";
  return it->second.back();
}

int Compiler::declare_buffer(const Buffer& b, bool dense) {
  const int id = static_cast<int>(buffers_.size());
  BufferInfo info{b.name(), b.dtype(), elem_of(b.dtype()), b.ndim()};
  info.static_layout = true;
  for (const Expr& e : b.shape()) {
    const int64_t* c = as_const_int(e);
    if (!c || *c < 0) {
      info.static_layout = false;
      break;
    }
    info.shape.push_back(*c);
  }
  if (info.static_layout) {
    compute_layout(info.shape, b->align_axis, dense ? 0 : b->align_factor, dense ? 0 : b->align_offset, info.strides);
  } else {
    info.shape.clear();
  }
  buffers_.push_back(std::move(info));
  buffer_ids_[static_cast<const BufferNode*>(b.get())].push_back(id);
  return id;
}

void Compiler::undeclare_buffer(const Buffer& b) {
  auto it = buffer_ids_.find(static_cast<const BufferNode*>(b.get()));
  KILN_ICHECK(it != buffer_ids_.end() && !it->second.empty()) << "undeclaring undeclared " << b.name();
  it->second.pop_back();
}

int Compiler::buffer_id(const Buffer& b) const {
  auto it = buffer_ids_.find(static_cast<const BufferNode*>(b.get()));
  if (it == buffer_ids_.end() || it->second.empty())
    KILN_USER_ERROR() << "buffer " << b.name() << " is neither a parameter nor allocated where it is used";
  return it->second.back();
}

Program Compiler::compile(const PrimFunc& f) {
  Program p;
  p.name = f.name();
  // Shape variables are bound by the first parameter extent that is exactly
  // that variable; every other extent is checked once all are bound.
  for (const Buffer& b : f.params()) {
    ParamInfo info;
    info.buffer = declare_buffer(b, /*dense=*/true);
    for (const Expr& e : b.shape()) {
      ParamDim d;
      if (const int64_t* c = as_const_int(e)) {
        d.value = *c;
      } else if (const auto* v = e.as<VarNode>(); v && !var_slots_.count(v)) {
        if (!v->dtype.is_integral() || !v->dtype.is_scalar())
          KILN_USER_ERROR() << "shape variable " << v->name << " of " << b.name() << " has type " << v->dtype.str();
        d.kind = ParamDim::Kind::kBind;
        d.slot = bind_var(Var(e.ptr()));
      } else {
        d.kind = ParamDim::Kind::kCheck;
      }
      info.dims.push_back(std::move(d));
    }
    p.params.push_back(std::move(info));
  }
  for (size_t i = 0; i < f.params().size(); ++i) {
    const Buffer& b = f.params()[i];
    for (size_t d = 0; d < b.shape().size(); ++d) {
      if (p.params[i].dims[d].kind == ParamDim::Kind::kCheck) p.params[i].dims[d].expr = index(b.shape()[d]);
    }
  }
  p.body = stmt(f.body());
  p.buffers = buffers_;
  p.num_slots = num_slots_;
  return p;
}

}  // namespace kiln::interp
