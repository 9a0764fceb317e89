// kiln.Target, kiln.build and the kernels it returns.
//
//   k = kiln.build(sch, kiln.Target("llvm -num-cores=2"))
//   k(a, b, c)          # numpy arrays, torch tensors, anything with __dlpack__
//   c = k(a, b)         # the output allocated (numpy) and returned
//
// A call borrows its arrays (arrays.h), releases the GIL and runs the
// kernel on the target's thread pool, one pool per thread count shared by
// every kernel of the process (calls on one pool take turns).
#include <pybind11/stl.h>

#include <mutex>

#include "driver/op_program.h"
#include "python/src/arrays.h"
#include "python/src/convert.h"
#include "python/src/bindings.h"
#include "python/src/pools.h"
#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/timing.h"
#include "targets/target.h"
#include "tir/interp/interpreter.h"
#include "tir/printer.h"
#include "tir/schedule/schedule.h"

namespace kiln::py {

Target to_target(pyb::handle h) {
  if (h.is_none()) return Target::host();
  if (pyb::isinstance<Target>(h)) return h.cast<Target>();
  return Target::parse(h.cast<std::string>());
}

namespace {

class Kernel {
 public:
  Kernel(PrimFunc scheduled, PrimFunc lowered, const Target& target, std::string applied = "")
      : scheduled_(std::move(scheduled)), lowered_(std::move(lowered)), target_(target), applied_(std::move(applied)),
        specs_(arg_specs(scheduled_)), pool_(&pool_for(std::max(1, target.num_cores()))) {
    pyb::gil_scoped_release nogil;  // LLVM takes a while; let other threads run
    kernel_ = build(lowered_, target_);
  }

  // k(inputs..., output) or k(inputs...) -> output.
  pyb::object call(const pyb::args& args) const {
    const size_t n = specs_.size();
    if (args.size() != n && args.size() != n - 1)
      throw pyb::type_error(kernel_->name() + " takes " + std::to_string(n - 1) + " inputs and the output (" +
                            std::to_string(n) + " arrays), or the inputs alone; got " + std::to_string(args.size()));
    pyb::object out;
    std::vector<BorrowedArray> borrowed;
    borrowed.reserve(n);
    std::vector<void*> data(n);
    for (size_t i = 0; i < n; ++i) {
      pyb::handle a;
      if (i < args.size()) {
        a = args[i];
      } else {
        out = new_numpy_array(specs_[i]);
        a = out;
      }
      borrowed.emplace_back(a, specs_[i], static_cast<int>(i));
      data[i] = borrowed.back().data();
    }
    int32_t status;
    {
      pyb::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(pool_->busy);
      KilnRuntimeApi api = runtime_api_for(pool_->pool);
      status = kernel_->function()(data.data(), &api);
    }
    if (status != KILN_STATUS_OK)
      throw std::runtime_error("kernel " + kernel_->name() + " failed with status " + std::to_string(status));
    for (BorrowedArray& b : borrowed) b.finish();
    return out ? out : pyb::none();
  }

  // Seconds per run (the median of the samples), timed as `kiln bench-op`
  // reports a kernel (targets/runtime/timing.h), on arguments drawn from a seed.
  double time(int repeat) const {
    std::vector<NDArray> args = make_arguments(specs_, 1);
    pyb::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(pool_->busy);
    Timing t = measure_kernel(*kernel_, args, pool_->pool, report_timing(repeat));
    return median(t.ms_per_run) / 1e3;
  }

  const PrimFunc& scheduled() const { return scheduled_; }
  const PrimFunc& lowered() const { return lowered_; }
  const Target& target() const { return target_; }
  const std::vector<ArgSpec>& specs() const { return specs_; }
  const std::string& name() const { return kernel_->name(); }
  const std::string& applied() const { return applied_; }

 private:
  PrimFunc scheduled_, lowered_;
  Target target_;
  std::string applied_;
  std::vector<ArgSpec> specs_;
  Pool* pool_;
  std::unique_ptr<CompiledKernel> kernel_;
};

pyb::list spec_info(const std::vector<ArgSpec>& specs) {
  pyb::list out;
  for (const ArgSpec& s : specs) {
    pyb::dict d;
    d["name"] = s.name;
    d["shape"] = pyb::tuple(pyb::cast(s.shape));
    d["dtype"] = s.dtype.str();
    d["output"] = s.is_output;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_kernel(pyb::module_& m) {
  pyb::class_<Target>(m, "Target",
                      "The machine kernels are compiled for (docs/targets.md).\n\n"
                      "    kiln.Target('llvm -num-cores=2'), kiln.Target('llvm -mcpu=znver4'), kiln.Target.host()")
      .def(pyb::init([](const std::string& s) { return Target::parse(s); }), pyb::arg("target") = "llvm")
      .def_static("host", &Target::host)
      .def_property_readonly("kind", &Target::kind)
      .def_property_readonly("mcpu", &Target::mcpu)
      .def_property_readonly("num_cores", &Target::num_cores)
      .def_property_readonly("features", &Target::isa_features, "The instruction sets it enables (avx2, avx512f, ...).")
      .def("has_feature", &Target::has_feature, pyb::arg("name"))
      .def("__str__", &Target::str)
      .def("__repr__", [](const Target& t) { return "kiln.Target('" + t.str() + "')"; })
      .def("__eq__", [](const Target& a, const Target& b) { return a == b; });

  pyb::class_<Kernel>(m, "Kernel",
                      "A compiled kernel. Call it on arrays: k(a, b, out), or k(a, b) to get the output back.")
      .def("__call__", &Kernel::call)
      .def("time", &Kernel::time, pyb::arg("repeat") = kReportSamples,
           "Seconds per run, the median of `repeat` samples of at least 100 ms each, timed as `kiln bench-op` "
           "times (on arguments drawn from a seed).")
      .def_property_readonly("name", &Kernel::name)
      .def_property_readonly("params", [](const Kernel& k) { return spec_info(k.specs()); })
      .def_property_readonly("target", &Kernel::target)
      .def_property_readonly("record", &Kernel::applied,
                             "The tuning database record it was scheduled by (\"tuning.db: record 17 (...)\"); "
                             "empty for a hand schedule or a default program.")
      .def_property_readonly("scheduled", &Kernel::scheduled, "The function as scheduled (block form).")
      .def_property_readonly("lowered", &Kernel::lowered, "The function the code generator took (lowered form).")
      .def("__repr__", [](const Kernel& k) { return "<kiln.Kernel " + k.name() + " for '" + k.target().str() + "'>"; });

  m.def(
      "build",
      [](pyb::handle what, pyb::handle target, const std::string& db) {
        const Target t = to_target(target);
        if (pyb::isinstance<Schedule>(what)) {
          const PrimFunc& f = what.cast<const Schedule&>().func();
          return std::make_unique<Kernel>(f, lower(f, t), t);
        }
        const auto f = what.cast<PrimFunc>();
        PrepareOptions o;
        o.db = db;
        ScheduledProgram p = schedule_and_lower(f, f.name(), t, o);
        return std::make_unique<Kernel>(p.scheduled, p.lowered, t, p.applied);
      },
      pyb::arg("func"), pyb::arg("target") = pyb::none(), pyb::arg("db") = "",
      "Compiles a schedule as it stands, or a function: with db, as the tuning database's best record for it\n"
      "schedules it; without, its default program.\n\n"
      "    k = kiln.build(sch, 'llvm -num-cores=2')\n    k = kiln.build(f, 'llvm -num-cores=2', db='tuning.db')");

  m.def(
      "reference",
      [](const PrimFunc& f, const pyb::args& arrays) {
        const std::vector<ArgSpec> specs = arg_specs(f);
        if (arrays.size() != specs.size())
          throw pyb::type_error(f.name() + " takes " + std::to_string(specs.size()) + " arrays, got " +
                                std::to_string(arrays.size()));
        std::vector<BorrowedArray> borrowed;
        borrowed.reserve(specs.size());
        std::vector<HostBuffer> bufs;
        for (size_t i = 0; i < specs.size(); ++i) {
          borrowed.emplace_back(arrays[i], specs[i], static_cast<int>(i));
          bufs.push_back({specs[i].dtype, specs[i].shape, borrowed.back().data()});
        }
        {
          pyb::gil_scoped_release nogil;
          interpret(f, bufs);
        }
        for (BorrowedArray& b : borrowed) b.finish();
      },
      pyb::arg("func"),
      "Runs a function (any form, any schedule) in kiln's reference interpreter on arrays: inputs, then the\n"
      "output, which it writes. Slow, and obviously right: what every kernel is checked against.");
}

}  // namespace kiln::py
