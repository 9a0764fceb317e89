#include "search/progress_json.h"

namespace kiln::search {

nlohmann::json progress_json(const TuneProgress& p) {
  nlohmann::json failed_draws = nlohmann::json::object();
  for (const auto& [kind, n] : p.failed_draws) failed_draws[schedule_error_name(kind)] = n;
  return {{"round", p.round},         {"trials", p.trials_done},     {"trials_total", p.trials_total},
          {"errors", p.errors},       {"internal_errors", p.internal_errors},
          {"screened", p.screened},   {"carried_over", p.carried_over}, {"register_designs", p.register_designs},
          {"best_gflops", p.best_gflops}, {"elapsed_s", p.elapsed_s}, {"eta_s", p.eta_s},
          {"propose_s", p.propose_s}, {"build_s", p.build_s},        {"measure_s", p.measure_s},
          {"update_s", p.update_s},   {"failed_draws", failed_draws}, {"final_measured", p.final_measured}};
}

nlohmann::json progress_json(const SchedulerProgress& p, const std::vector<SchedulerTask>& tasks) {
  const TaskState& s = (*p.tasks)[p.task];
  return {{"round", p.round},
          {"task", p.task},
          {"task_name", tasks[p.task].name},
          {"task_trials", s.trials},
          {"tasks_tuned", p.tasks_tuned},
          {"tasks", tasks.size()},
          {"trials_now", p.trials_now},
          {"latency_ms", p.latency_s * 1e3},
          {"untuned_latency_ms", p.untuned_latency_s * 1e3},
          {"elapsed_s", p.elapsed_s},
          {"eta_s", p.eta_s},
          {"internal_errors", p.internal_errors}};
}

}  // namespace kiln::search
