#include "driver/tune.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "driver/op_program.h"
#include "graph/memory_plan.h"
#include "ops/workload.h"
#include "rpc/builder.h"
#include "rpc/runner/device.h"
#include "rpc/runner_client.h"
#include "search/strategy_by_name.h"
#include "targets/runtime/arguments.h"
#include "tir/analysis/flops.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/open_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln {
namespace {

// The search runs between batches, on the machine's cores.
int search_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

}  // namespace

std::unique_ptr<rpc::Runner> connect_runner(const RunnerAddress& r, const Target& target) {
  // Another CPU's target: a local runner of that device (its worker under
  // emulation, or WebAssembly's engine: rpc/runner/device.h).
  if (r.address == "local" && rpc::is_foreign(target))
    return std::make_unique<rpc::LocalRunner>(rpc::LocalRunnerOptions{.args = {"--device-target=" + target.str()}});
  std::string token = r.token;
  if (const char* env = std::getenv("KILN_RUNNER_TOKEN"); token.empty() && env) token = env;
  return rpc::connect_runner(r.address, token, r.tls_ca);
}

std::string func_signature(const PrimFunc& f) {
  const std::vector<ArgSpec> specs = arg_specs(f);
  std::ostringstream s;
  s << f.name() << "(";
  for (size_t i = 0; i < specs.size(); ++i) {
    s << (specs[i].is_output ? ") -> " : i ? ", " : "") << specs[i].dtype.str() << "[";
    for (size_t d = 0; d < specs[i].shape.size(); ++d) s << (d ? ", " : "") << specs[i].shape[d];
    s << "]";
  }
  return s.str();
}

search::TuneTask workload_task(const PrimFunc& func, const std::string& op, const std::string& shape, double flops) {
  return {tuning::workload_entry(func, op, shape.empty() ? func_signature(func) : shape,
                                 flops > 0 ? flops : estimate_flops(func)),
          func};
}

search::TuneTask op_task(const std::string& workload) {
  ops::Workload w = ops::parse_workload(workload);
  return workload_task(ops::build_workload(w), w.op, w.str(), ops::workload_flops(w));
}

search::TuneTask named_task(const std::string& workload, const std::string& db) {
  if (!is_workload_key(workload)) return op_task(workload);
  NamedWorkload w = named_workload(workload, db);
  return workload_task(w.func, w.func.name(), "", w.flops);
}

search::TuneResult tune_workload(const search::TuneTask& task, const search::TuneOptions& o, const std::string& db,
                                 const RunnerAddress& runner,
                                 const std::function<void(const search::TuneProgress&)>& on_progress,
                                 const std::atomic<bool>* stop) {
  auto database = tuning::open_database(db);
  rpc::Builder builder({.workers = std::max(1, o.target.num_cores())});
  std::unique_ptr<rpc::Runner> r = connect_runner(runner, o.target);
  std::unique_ptr<search::SearchStrategy> strategy =
      search::make_strategy(o.strategy, o.cost_model, o.seed, search_threads());
  return search::tune(task, o, {*database, builder, *r}, *strategy, on_progress, stop);
}

int64_t inference_bytes(const ModelProgram& m) {
  std::set<int> weights;
  for (const graph::Task& t : m.tasks)
    for (const std::vector<int>& call : t.args)
      for (int v : call)
        if (m.graph.value(v).is_constant()) weights.insert(v);
  int64_t bytes = graph::plan_memory(m.graph, m.groups).arena_bytes;
  for (int v : weights) bytes += static_cast<int64_t>(m.graph.value(v).data->nbytes());
  return bytes;
}

std::vector<search::SchedulerTask> model_tasks(const ModelProgram& m, bool warm_weights) {
  std::vector<search::SchedulerTask> tasks;
  const int64_t swept = warm_weights ? 0 : inference_bytes(m);
  for (const graph::Task& t : m.tasks) {
    search::TuneTask task{tuning::workload_entry(t.func, t.name, t.signature, t.flops), t.func};
    task.model.constants = graph::constant_params(m.graph, t);
    if (!warm_weights) {
      task.model.cold_args = task.model.constants;
      task.model.cold_sweep_bytes = swept;
    }
    tasks.push_back({std::move(task), t.weight(), t.name});
  }
  return tasks;
}

search::SchedulerResult tune_model(const std::vector<search::SchedulerTask>& tasks,
                                   const search::TaskSchedulerOptions& o, tuning::Database& db,
                                   const std::function<void(const search::SchedulerProgress&)>& on_progress,
                                   const std::atomic<bool>* stop) {
  rpc::Builder builder({.workers = std::max(1, o.tune.target.num_cores())});
  std::unique_ptr<rpc::Runner> runner = connect_runner(RunnerAddress{}, o.tune.target);
  return search::tune_tasks(
      tasks, o, {db, builder, *runner},
      [&](size_t) { return search::make_strategy(o.tune.strategy, o.tune.cost_model, o.tune.seed, search_threads()); },
      on_progress, stop);
}

}  // namespace kiln
