// Tuning from Python: the jobs kiln.tune_op and kiln.onnx.Model.tune run
// in the background (background.h), started through the same driver calls
// as `kiln tune-op` and `kiln tune` (driver/tune.h), with the same options
// (search::TuneOptions, given as a dict and checked by its from_json).
#include <pybind11/stl.h>

#include "core/error.h"
#include "driver/tune.h"
#include "ops/workload.h"
#include "python/src/background.h"
#include "python/src/bindings.h"
#include "search/progress_json.h"

namespace kiln::py {
namespace {

// A function, or what named_task takes.
search::TuneTask task_of(pyb::handle what, const std::string& db) {
  if (pyb::isinstance<PrimFunc>(what)) {
    const auto f = what.cast<PrimFunc>();
    return workload_task(f, f.name());
  }
  return named_task(what.cast<std::string>(), db);
}

search::TuneOptions options_of(pyb::handle options) {
  search::TuneOptions o = search::TuneOptions::from_json(to_json(options));
  o.check();
  return o;
}

}  // namespace

void bind_tune(pyb::module_& m) {
  bind_background_job(m);

  m.def(
      "_tune_op",
      [](pyb::handle what, const std::string& db, pyb::handle options, const std::string& runner,
         const std::string& token, const std::string& tls_ca) {
        search::TuneTask task = task_of(what, db);
        search::TuneOptions o = options_of(options);
        RunnerAddress r{runner, token, tls_ca};
        return std::make_unique<BackgroundJob>([task, o, db, r](const auto& report, const std::atomic<bool>* stop) {
          search::TuneResult res = tune_workload(
              task, o, db, r, [&](const search::TuneProgress& p) { report(search::progress_json(p)); }, stop);
          nlohmann::json out = search::progress_json(res.last);
          out["workload_key"] = task.entry.key;
          out["workload"] = task.entry.shape;
          out["flops"] = task.entry.flops;
          out["target"] = o.target.str();
          out["measured_now"] = res.measured_now;
          out["stopped"] = res.stopped;
          out["first_internal_error"] = res.last.first_internal_error;
          if (res.best) out["best_record"] = res.best->id;
          return out;
        });
      },
      pyb::arg("workload"), pyb::arg("db"), pyb::arg("options"), pyb::arg("runner") = "local",
      pyb::arg("token") = "", pyb::arg("tls_ca") = "");

  m.def(
      "_workload",
      [](const std::string& s) { return ops::build_workload(ops::parse_workload(s)); }, pyb::arg("workload"),
      "The unscheduled function of a workload string (docs/workloads.md).");
}

}  // namespace kiln::py
