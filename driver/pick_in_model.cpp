#include "driver/pick_in_model.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include "core/error.h"
#include "core/temp_dir.h"
#include "graph/compiled_model.h"
#include "targets/runtime/ndarray.h"
#include "targets/runtime/thread_pool.h"
#include "targets/runtime/timing.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/apply_record.h"
#include "tuning_logs/database.h"
#include "tuning_logs/open_database.h"

namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

// The task a call runs: its kernel is named "task<t>" (graph/compiled_model.h).
size_t task_of_call(const graph::CompiledModel& model, size_t call) {
  const std::string kernel = model.call_info(call).kernel;
  KILN_ICHECK(kernel.rfind("task", 0) == 0) << "a call of kernel '" << kernel << "'";
  return static_cast<size_t>(std::stoul(kernel.substr(4)));
}

}  // namespace

InModelPick pick_in_model(const ModelProgram& m, const std::string& db_path, const Target& target,
                          const PickOptions& o) {
  if (o.candidates < 1) KILN_USER_ERROR() << "a task's records tried in the model: at least 1, not " << o.candidates;
  if (const std::string why = target.cannot_run_on(Target::host()); !why.empty())
    KILN_USER_ERROR() << "picking records in the model runs it on this machine, which cannot run '" << target.str()
                      << "': " << why;
  InModelPick pick;
  pick.funcs = schedule_tasks(m, db_path, target);  // the best alone, or the untuned design
  pick.tasks.resize(m.tasks.size());
  std::vector<std::vector<PrimFunc>> candidates(m.tasks.size());
  std::unique_ptr<tuning::Database> db = tuning::open_database(db_path, tuning::OpenMode::kExisting);
  size_t variants = 1;
  for (size_t t = 0; t < m.tasks.size(); ++t) {
    const graph::Task& task = m.tasks[t];
    for (const tuning::TuningRecord& r : db->top_k(workload_key(task.func), target.str(), o.candidates)) {
      try {
        candidates[t].push_back(tuning::apply_record(r, task.func));
      } catch (const Error& e) {
        KILN_USER_ERROR() << tuning::database_name(db_path) << ": record " << r.id << " of task " << t << " ("
                          << task.name << "): " << e.what();
      }
      pick.tasks[t].record_ids.push_back(r.id);
      pick.tasks[t].alone_ms.push_back(r.rank_secs() * 1e3);
    }
    if (candidates[t].empty()) candidates[t].push_back(pick.funcs[t]);
    variants = std::max(variants, candidates[t].size());
  }
  if (variants == 1) return pick;  // nothing to choose from

  // Variant j: every task's j-th best record, or its last.
  const TempDir temp("kiln-pick");
  std::vector<graph::CompiledModel> models;
  for (size_t j = 0; j < variants; ++j) {
    std::vector<PrimFunc> funcs;
    for (const std::vector<PrimFunc>& c : candidates) funcs.push_back(c[std::min(j, c.size() - 1)]);
    const std::string dir = (std::filesystem::path(temp.path()) / std::to_string(j)).string();
    graph::write_compiled_model(m.graph, m.groups, m.tasks, funcs, target, dir, target.num_cores());
    models.push_back(graph::CompiledModel::load(dir));
  }
  ThreadPool pool(target.num_cores());
  std::vector<NDArray> in;
  for (size_t k = 0; k < models[0].inputs().size(); ++k) {
    const graph::TensorInfo& info = models[0].inputs()[k];
    in.emplace_back(info.dtype, info.shape);
    in.back().fill_random(1 + k);
  }
  warm_up([&] {
    for (graph::CompiledModel& model : models) model.run(in, pool);
  });

  // The variants make the same calls (one plan): each call's task, once.
  std::vector<size_t> call_task(models[0].num_calls());
  for (size_t c = 0; c < call_task.size(); ++c) call_task[c] = task_of_call(models[0], c);
  // times[t][j]: task t's calls in variant j, one sum per round.
  std::vector<std::vector<std::vector<double>>> times(m.tasks.size(), std::vector<std::vector<double>>(variants));
  const auto until = Clock::now() + std::chrono::duration<double>(o.seconds);
  std::vector<double> call_seconds;
  while (pick.rounds < o.min_rounds || Clock::now() < until) {
    for (size_t j = 0; j < variants; ++j) {
      call_seconds.assign(call_task.size(), 0.0);
      models[j].run(in, pool, &call_seconds);
      std::vector<double> per_task(m.tasks.size(), 0.0);
      for (size_t c = 0; c < call_seconds.size(); ++c) per_task[call_task[c]] += call_seconds[c];
      for (size_t t = 0; t < m.tasks.size(); ++t) times[t][j].push_back(per_task[t]);
    }
    ++pick.rounds;
  }
  for (size_t t = 0; t < m.tasks.size(); ++t) {
    TaskPick& p = pick.tasks[t];
    if (p.record_ids.empty()) continue;
    for (size_t j = 0; j < p.record_ids.size(); ++j) p.model_ms.push_back(median(times[t][j]) * 1e3);
    p.picked = static_cast<size_t>(std::min_element(p.model_ms.begin(), p.model_ms.end()) - p.model_ms.begin());
    pick.funcs[t] = candidates[t][p.picked];
  }

  // A task's pick was timed beside the other tasks' records of its rank,
  // not beside their picks: the picks together are timed end to end
  // against the best alone together, in turn, and kept only if faster.
  bool changed = false;
  for (const TaskPick& p : pick.tasks) changed = changed || p.picked != 0;
  if (!changed) return pick;
  const std::string dir = (std::filesystem::path(temp.path()) / "picked").string();
  graph::write_compiled_model(m.graph, m.groups, m.tasks, pick.funcs, target, dir, target.num_cores());
  graph::CompiledModel picked = graph::CompiledModel::load(dir);
  std::vector<double> alone_ms, picked_ms;
  auto timed = [&](graph::CompiledModel& model, std::vector<double>& ms) {
    const auto t0 = Clock::now();
    model.run(in, pool);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  };
  const auto until_both = Clock::now() + std::chrono::duration<double>(o.seconds / 2);
  while (static_cast<int>(alone_ms.size()) < o.min_rounds || Clock::now() < until_both) {
    timed(models[0], alone_ms);
    timed(picked, picked_ms);
  }
  pick.alone_ms = median(alone_ms);
  pick.picked_ms = median(picked_ms);
  if (pick.picked_ms < pick.alone_ms) return pick;
  pick.kept = false;
  for (size_t t = 0; t < m.tasks.size(); ++t) {
    pick.tasks[t].picked = 0;
    pick.funcs[t] = candidates[t][0];
  }
  return pick;
}

std::vector<PrimFunc> scheduled_for_model(const ModelProgram& m, const std::string& db_path, const Target& target,
                                          int pick, InModelPick* found) {
  if (pick <= 1) return schedule_tasks(m, db_path, target);
  if (db_path.empty()) KILN_USER_ERROR() << "picking records in the model chooses among a database's records: give a database";
  PickOptions options;
  options.candidates = pick;
  InModelPick p = pick_in_model(m, db_path, target, options);
  std::vector<PrimFunc> funcs = p.funcs;
  if (found) *found = std::move(p);
  return funcs;
}

}  // namespace kiln
