// kiln.onnx: a model from an .onnx file (driver/model_program.h), tuned
// (driver/tune.h, as `kiln tune`), compiled (as `kiln compile`) and run (as
// `kiln run`), or run in the reference executor for comparison.
//
//   m = kiln.onnx.load("resnet18.onnx")
//   m.tune(db="tuning.db", trials_per_task=200)
//   run = m.compile(db="tuning.db")
//   (logits,) = run(images)
#include <pybind11/stl.h>

#include <cstring>

#include "driver/model_program.h"
#include "driver/pick_in_model.h"
#include "driver/tune.h"
#include "graph/compiled_model.h"
#include "graph/reference.h"
#include "python/src/arrays.h"
#include "python/src/background.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"
#include "python/src/pools.h"
#include "search/progress_json.h"
#include "search/task_scheduler.h"
#include "search/tune_options.h"
#include "tuning_logs/open_database.h"

namespace kiln::py {
namespace {

struct Model {
  std::string path;
  Target target;
  ModelProgram program;
};

// Arrays copied into NDArrays as `infos` describe them.
std::vector<NDArray> inputs_of(const pyb::args& arrays, const std::vector<graph::TensorInfo>& infos) {
  if (arrays.size() != infos.size())
    throw pyb::type_error("the model takes " + std::to_string(infos.size()) + " inputs, got " +
                          std::to_string(arrays.size()));
  std::vector<NDArray> out;
  for (size_t i = 0; i < infos.size(); ++i) {
    const ArgSpec spec{infos[i].name, infos[i].dtype, infos[i].shape, false};
    BorrowedArray b(arrays[i], spec, static_cast<int>(i));
    out.emplace_back(spec.dtype, spec.shape);
    std::memcpy(out.back().data(), b.data(), out.back().nbytes());
  }
  return out;
}

pyb::list numpy_of(const std::vector<NDArray>& arrays, const std::vector<graph::TensorInfo>& infos) {
  pyb::list out;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const ArgSpec spec{infos[i].name, arrays[i].dtype(), arrays[i].shape(), true};
    pyb::object a = new_numpy_array(spec);
    BorrowedArray b(a, spec, static_cast<int>(i));
    std::memcpy(b.data(), arrays[i].data(), arrays[i].nbytes());
    out.append(a);
  }
  return out;
}

std::vector<graph::TensorInfo> infos_of(const graph::Graph& g, const std::vector<int>& values) {
  std::vector<graph::TensorInfo> out;
  for (int v : values) out.push_back({g.value(v).name, g.value(v).dtype, g.value(v).shape});
  return out;
}

pyb::list info_list(const std::vector<graph::TensorInfo>& infos) {
  pyb::list out;
  for (const graph::TensorInfo& t : infos) {
    pyb::dict d;
    d["name"] = t.name, d["dtype"] = t.dtype.str(), d["shape"] = pyb::tuple(pyb::cast(t.shape));
    out.append(d);
  }
  return out;
}

class Compiled {
 public:
  explicit Compiled(const std::string& dir) : model_(graph::CompiledModel::load(dir)) {
    const Target t = Target::parse(model_.target());
    pool_ = &pool_for(std::max(1, t.num_cores()));
  }
  pyb::list call(const pyb::args& arrays) {
    std::vector<NDArray> in = inputs_of(arrays, model_.inputs());
    std::vector<NDArray> out;
    {
      pyb::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(pool_->busy);
      out = model_.run(in, pool_->pool);
    }
    return numpy_of(out, model_.outputs());
  }
  const graph::CompiledModel& model() const { return model_; }

 private:
  graph::CompiledModel model_;
  Pool* pool_;
};

}  // namespace

void bind_model(pyb::module_& parent) {
  // Model.tune's default, the one `kiln tune` has.
  parent.attr("MODEL_TRIALS_PER_TASK") = kModelTrialsPerTask;
  pyb::module_ m = parent.def_submodule("onnx_impl", "ONNX models (kiln.onnx wraps it).");

  pyb::class_<Model>(m, "Model")
      .def(pyb::init([](const std::string& path, const std::string& input_shapes, const std::string& layout,
                        pyb::handle target) {
             const Target t = to_target(target);
             return Model{path, t, prepare_model(path, input_shapes, pass_options(layout, t))};
           }),
           pyb::arg("path"), pyb::arg("input_shapes") = "", pyb::arg("layout") = "nchwc",
           pyb::arg("target") = pyb::none())
      .def_property_readonly("path", [](const Model& m) { return m.path; })
      .def_property_readonly("target", [](const Model& m) { return m.target; })
      .def_property_readonly("inputs", [](const Model& m) {
        return info_list(infos_of(m.program.imported, m.program.imported.inputs));
      })
      .def_property_readonly("outputs", [](const Model& m) {
        return info_list(infos_of(m.program.imported, m.program.imported.outputs));
      })
      .def_property_readonly("num_groups", [](const Model& m) { return m.program.groups.size(); })
      .def_property_readonly("tasks",
                             [](const Model& m) {
                               pyb::list out;
                               for (const graph::Task& t : m.program.tasks) {
                                 pyb::dict d;
                                 d["name"] = t.name, d["key"] = t.key, d["weight"] = t.weight();
                                 d["flops"] = t.flops, d["signature"] = t.signature;
                                 d["func"] = t.func;
                                 out.append(d);
                               }
                               return out;
                             })
      .def(
          "reference",
          [](const Model& m, const pyb::args& arrays) {
            const auto in_infos = infos_of(m.program.imported, m.program.imported.inputs);
            std::vector<NDArray> in = inputs_of(arrays, in_infos);
            std::vector<NDArray> out;
            {
              pyb::gil_scoped_release nogil;
              out = graph::run_reference(m.program.imported, in);
            }
            return numpy_of(out, infos_of(m.program.imported, m.program.imported.outputs));
          })
      .def(
          "_tune",
          [](const Model& m, const std::string& db, pyb::handle options, int64_t trials, int64_t trials_per_task,
             const std::string& policy, bool warm_weights) {
            search::TaskSchedulerOptions o;
            o.tune = search::TuneOptions::from_json(to_json(options));
            o.tune.target = m.target;
            o.tune.check();
            o.trials = trials;
            o.trials_per_task = trials_per_task;
            o.time_budget_s = o.tune.time_budget_s;
            o.policy = search::parse_policy(policy);
            std::vector<search::SchedulerTask> tasks = model_tasks(m.program, warm_weights);
            return std::make_unique<BackgroundJob>(
                [tasks, o, db](const auto& report, const std::atomic<bool>* stop) {
                  auto database = tuning::open_database(db);
                  search::SchedulerResult r = tune_model(
                      tasks, o, *database, [&](const search::SchedulerProgress& p) { report(search::progress_json(p, tasks)); },
                      stop);
                  nlohmann::json per_task = nlohmann::json::array();
                  for (size_t i = 0; i < tasks.size(); ++i)
                    per_task.push_back({{"name", tasks[i].name},
                                        {"key", tasks[i].task.entry.key},
                                        {"weight", tasks[i].weight},
                                        {"trials", r.tasks[i].trials},
                                        {"untuned_ms", r.tasks[i].untuned_secs * 1e3},
                                        {"best_ms", r.tasks[i].best_secs * 1e3}});
                  return nlohmann::json{{"tasks", per_task},
                                        {"latency_ms", r.last.latency_s * 1e3},
                                        {"untuned_latency_ms", r.last.untuned_latency_s * 1e3},
                                        {"trials_now", r.last.trials_now},
                                        {"elapsed_s", r.last.elapsed_s},
                                        {"internal_errors", r.last.internal_errors},
                                        {"first_internal_error", r.last.first_internal_error},
                                        {"stopped", r.stopped}};
                });
          },
          pyb::arg("db"), pyb::arg("options"), pyb::arg("trials") = 0, pyb::arg("trials_per_task") = kModelTrialsPerTask,
          pyb::arg("policy") = "gradient", pyb::arg("warm_weights") = false)
      .def(
          "_compile",
          [](const Model& m, const std::string& dir, const std::string& db, int pick) {
            pyb::gil_scoped_release nogil;
            const std::vector<PrimFunc> scheduled = scheduled_for_model(m.program, db, m.target, pick);
            graph::write_compiled_model(m.program.graph, m.program.groups, m.program.tasks, scheduled, m.target, dir,
                                        std::max(1, m.target.num_cores()));
          },
          pyb::arg("dir"), pyb::arg("db") = "", pyb::arg("pick_in_model") = 1);

  pyb::class_<Compiled>(m, "CompiledModel")
      .def(pyb::init<const std::string&>(), pyb::arg("dir"))
      .def("__call__", &Compiled::call)
      .def_property_readonly("inputs", [](const Compiled& c) { return info_list(c.model().inputs()); })
      .def_property_readonly("outputs", [](const Compiled& c) { return info_list(c.model().outputs()); })
      .def_property_readonly("target", [](const Compiled& c) { return c.model().target(); })
      .def_property_readonly("arena_bytes", [](const Compiled& c) { return c.model().arena_bytes(); });
}

}  // namespace kiln::py
