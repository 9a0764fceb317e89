#include "tir/te/tensor.h"

#include <limits>
#include <set>

#include "core/functor.h"

namespace kiln::te {

KILN_NODE_METHODS(TensorNode)

namespace {

// Tensors indexed while a compute body function runs: one list per compute()
// on this thread's stack, so a compute defined inside another's body records
// into its own list.
thread_local std::vector<std::vector<Tensor>*> g_recorders;

class RecordScope {
 public:
  explicit RecordScope(std::vector<Tensor>* out) { g_recorders.push_back(out); }
  ~RecordScope() { g_recorders.pop_back(); }
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;
};

// Extents become int32, the type of every loop and iter var create_prim_func makes.
std::vector<Expr> normalize_shape(std::vector<Expr> shape, const std::string& name) {
  for (size_t d = 0; d < shape.size(); ++d) {
    Expr& e = shape[d];
    if (!e.defined() || !e.dtype().is_integral() || !e.dtype().is_scalar())
      KILN_USER_ERROR() << "tensor " << name << " has a non-integer extent in dimension " << d;
    if (const int64_t* c = as_const_int(e)) {
      if (*c < 0 || *c > std::numeric_limits<int32_t>::max())
        KILN_USER_ERROR() << "tensor " << name << " has extent " << *c << " in dimension " << d
                          << ", outside [0, 2^31)";
    }
    e = cast(DataType::Int32(), e);
  }
  return shape;
}

void check_name(const std::string& name) {
  if (name.empty()) KILN_USER_ERROR() << "tensor without a name";
}

// A Reduce is the whole body or absent: anywhere else it has no loop nest to
// become, so it is a definition error.
void check_reduce_placement(const Expr& body, const std::string& name) {
  Expr inner = body;
  if (const auto* r = body.as<ReduceNode>()) {
    if (r->axis.empty()) KILN_USER_ERROR() << "reduction in compute " << name << " has no axis";
    for (const IterVar& iv : r->axis) {
      if (!iv.is_reduce())
        KILN_USER_ERROR() << "axis " << iv.var().name() << " of the reduction in compute " << name
                          << " is not a reduce axis";
    }
    inner = r->source;
  }
  post_order_visit(inner, [&](const Expr& e) {
    if (e.as<ReduceNode>())
      KILN_USER_ERROR() << "compute " << name << " has a reduction inside its body: a reduction must be the "
                        << "whole body";
  });
}

// The tensors behind the buffers the body loads, in order of first load.
std::vector<ObjectRef> resolve_inputs(const Expr& body, const std::vector<Tensor>& recorded,
                                      const std::string& name) {
  std::vector<ObjectRef> inputs;
  std::set<const Object*> seen;
  post_order_visit(body, [&](const Expr& e) {
    const auto* load = e.as<BufferLoadNode>();
    if (!load || !seen.insert(load->buffer.get()).second) return;
    for (const Tensor& t : recorded) {
      if (t.buffer().same_as(load->buffer)) {
        inputs.push_back(t);
        return;
      }
    }
    KILN_USER_ERROR() << "compute " << name << " loads " << load->buffer.name()
                      << " outside its body function: index tensors inside the function";
  });
  return inputs;
}

template <typename F, size_t... I>
Tensor compute_n(std::vector<Expr> shape, F fn, std::string name, std::index_sequence<I...>) {
  constexpr size_t n = sizeof...(I);
  if (shape.size() != n)
    KILN_USER_ERROR() << "compute " << name << " has " << shape.size() << " dimensions but its body takes " << n
                      << " indices";
  return compute(
      std::move(shape), [&](const std::vector<Var>& v) { return fn(v[I]...); }, std::move(name));
}

}  // namespace

std::vector<Tensor> Tensor::inputs() const {
  std::vector<Tensor> out;
  for (const ObjectRef& r : (*this)->inputs) out.push_back(Tensor(r.ptr()));
  return out;
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  if (static_cast<int>(indices.size()) != ndim())
    KILN_USER_ERROR() << "tensor " << name() << " has " << ndim() << " dimensions but is indexed with "
                      << indices.size();
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined() || !indices[d].dtype().is_integral())
      KILN_USER_ERROR() << "index " << d << " of tensor " << name() << " is not an integer";
  }
  if (!g_recorders.empty()) g_recorders.back()->push_back(*this);
  return buffer_load(buffer(), std::move(indices));
}

Tensor annotate(const Tensor& t, std::string key, Expr value) {
  if (t.is_placeholder()) KILN_USER_ERROR() << "annotate: " << t.name() << " is an input, not a compute";
  auto n = std::make_shared<TensorNode>(*t.operator->());
  n->annotations[std::move(key)] = std::move(value);
  return Tensor(ObjectPtr(std::move(n)));
}

Tensor placeholder(std::vector<Expr> shape, DataType dtype, std::string name) {
  check_name(name);
  auto n = std::make_shared<TensorNode>();
  n->buffer = Buffer(name, dtype, normalize_shape(std::move(shape), name));
  return Tensor(ObjectPtr(std::move(n)));
}

Tensor compute(std::vector<Expr> shape, std::function<Expr(const std::vector<Var>&)> fn, std::string name) {
  check_name(name);
  shape = normalize_shape(std::move(shape), name);
  std::vector<Var> vars;
  std::vector<IterVar> axis;
  for (size_t d = 0; d < shape.size(); ++d) {
    Var v(std::string("i").append(std::to_string(d)), DataType::Int32());
    vars.push_back(v);
    axis.push_back(IterVar(v, Range(Expr(0), shape[d]), IterType::kSpatial));
  }
  std::vector<Tensor> recorded;
  Expr body;
  {
    RecordScope scope(&recorded);
    body = fn(vars);
  }
  if (!body.defined()) KILN_USER_ERROR() << "compute " << name << " has no body";
  if (!body.dtype().is_scalar())
    KILN_USER_ERROR() << "compute " << name << " has a vector body of type " << body.dtype().str();
  check_reduce_placement(body, name);

  auto n = std::make_shared<TensorNode>();
  n->buffer = Buffer(name, body.dtype(), std::move(shape));
  n->axis = std::move(axis);
  n->inputs = resolve_inputs(body, recorded, name);
  n->body = std::move(body);
  return Tensor(ObjectPtr(std::move(n)));
}

Tensor compute(std::vector<Expr> shape, std::function<Expr(Var)> fn, std::string name) {
  return compute_n(std::move(shape), std::move(fn), std::move(name), std::make_index_sequence<1>{});
}
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var)> fn, std::string name) {
  return compute_n(std::move(shape), std::move(fn), std::move(name), std::make_index_sequence<2>{});
}
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var, Var)> fn, std::string name) {
  return compute_n(std::move(shape), std::move(fn), std::move(name), std::make_index_sequence<3>{});
}
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var, Var, Var)> fn, std::string name) {
  return compute_n(std::move(shape), std::move(fn), std::move(name), std::make_index_sequence<4>{});
}
Tensor compute(std::vector<Expr> shape, std::function<Expr(Var, Var, Var, Var, Var)> fn, std::string name) {
  return compute_n(std::move(shape), std::move(fn), std::move(name), std::make_index_sequence<5>{});
}

IterVar reduce_axis(Range dom, std::string name) {
  if (!dom.defined() || !dom->min.dtype().is_integral() || !dom->extent.dtype().is_integral())
    KILN_USER_ERROR() << "reduce axis " << name << " has a non-integer domain";
  Range d(cast(DataType::Int32(), dom->min), cast(DataType::Int32(), dom->extent));
  return IterVar(Var(std::move(name), DataType::Int32()), std::move(d), IterType::kReduce);
}

Expr sum(Expr source, std::vector<IterVar> axis) { return reduce(ReduceKind::kSum, std::move(source), std::move(axis)); }
Expr max_reduce(Expr source, std::vector<IterVar> axis) {
  return reduce(ReduceKind::kMax, std::move(source), std::move(axis));
}
Expr min_reduce(Expr source, std::vector<IterVar> axis) {
  return reduce(ReduceKind::kMin, std::move(source), std::move(axis));
}

}  // namespace kiln::te
