#include "tir/interp/interpreter.h"

#include "tir/interp/compiler.h"
#include "tir/buffer_layout.h"

namespace kiln {

using interp::Frame;
using interp::LiveBuffer;
using interp::ParamDim;
using interp::Scalar;

Interpreter::Interpreter(const PrimFunc& f)
    : program_(std::make_unique<interp::Program>(interp::Compiler().compile(f))) {}
Interpreter::~Interpreter() = default;
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

void Interpreter::run(const std::vector<HostBuffer>& args) const {
  const interp::Program& p = *program_;
  if (args.size() != p.params.size())
    KILN_USER_ERROR() << p.name << " takes " << p.params.size() << " arguments, got " << args.size();
  std::vector<Scalar> slots(p.num_slots, Scalar{.i = 0});
  std::vector<LiveBuffer> buffers(p.buffers.size());
  Frame fr{slots.data(), buffers.data()};

  auto where = [&](size_t i) {
    return "argument " + std::to_string(i) + " (" + p.buffers[p.params[i].buffer].name + ") of " + p.name;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const HostBuffer& a = args[i];
    const interp::BufferInfo& info = p.buffers[p.params[i].buffer];
    if (a.dtype != info.dtype)
      KILN_USER_ERROR() << where(i) << " has type " << a.dtype.str() << ", expected " << info.dtype.str();
    if (static_cast<int>(a.shape.size()) != info.ndim)
      KILN_USER_ERROR() << where(i) << " has " << a.shape.size() << " dimensions, expected " << info.ndim;
    int64_t n = 1;
    for (size_t d = 0; d < a.shape.size(); ++d) {
      if (a.shape[d] < 0) KILN_USER_ERROR() << where(i) << " has extent " << a.shape[d] << " in dimension " << d;
      n *= a.shape[d];
      const ParamDim& pd = p.params[i].dims[d];
      if (pd.kind == ParamDim::Kind::kConst && pd.value != a.shape[d])
        KILN_USER_ERROR() << where(i) << " has extent " << a.shape[d] << " in dimension " << d << ", expected "
                          << pd.value;
      if (pd.kind == ParamDim::Kind::kBind) slots[pd.slot].i = a.shape[d];
    }
    if (!a.data && n > 0) KILN_USER_ERROR() << where(i) << " has no data";
    LiveBuffer& lb = buffers[p.params[i].buffer];
    lb.data = static_cast<char*>(a.data);
    lb.shape = a.shape;
    compute_layout(lb.shape, 0, 0, 0, lb.strides);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    for (size_t d = 0; d < args[i].shape.size(); ++d) {
      const ParamDim& pd = p.params[i].dims[d];
      if (pd.kind != ParamDim::Kind::kCheck) continue;
      const int64_t want = pd.expr.eval(fr);
      if (want != args[i].shape[d])
        KILN_USER_ERROR() << where(i) << " has extent " << args[i].shape[d] << " in dimension " << d
                          << ", expected " << want;
    }
  }
  p.body->run(fr);
}

void interpret(const PrimFunc& f, const std::vector<HostBuffer>& args) { Interpreter(f).run(args); }

}  // namespace kiln
