#include "search/progress_line.h"

#include <cstdint>
#include <iomanip>
#include <sstream>

#include "tir/schedule/error.h"

namespace kiln::search {

std::string clock_text(double s) {
  const int64_t t = static_cast<int64_t>(s + 0.5);
  std::ostringstream os;
  if (t >= 3600) os << t / 3600 << "h" << std::setw(2) << std::setfill('0') << (t / 60) % 60 << "m";
  else if (t >= 60) os << t / 60 << "m" << std::setw(2) << std::setfill('0') << t % 60 << "s";
  else os << t << "s";
  return os.str();
}

std::string progress_line(const TuneProgress& p) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  if (p.final_measured > 0) {
    os << "final measurement: " << p.final_measured << " of the best records timed again, best " << p.best_gflops
       << " GFLOP/s";
    return os.str();
  }
  os << "round " << p.round << ": " << p.trials_done << "/" << p.trials_total << " trials, best " << p.best_gflops
     << " GFLOP/s, " << p.errors << " errors";
  if (p.internal_errors) os << " (" << p.internal_errors << " internal)";
  os << ", " << p.screened << " screened, ";
  if (p.round == 1 && p.carried_over) os << p.carried_over << " carried over, ";
  if (p.round == 1 && p.register_designs) os << p.register_designs << " register designs, ";
  os << "elapsed " << p.elapsed_s << " s, ETA " << p.eta_s << " s (propose " << p.propose_s << " s, build "
     << p.build_s << " s, measure " << p.measure_s << " s, update " << p.update_s << " s)";
  if (!p.failed_draws.empty()) {
    os << "; draws that made no candidate:";
    for (const auto& [kind, n] : p.failed_draws) os << " " << schedule_error_name(kind) << " " << n;
  }
  return os.str();
}

std::string progress_line(const SchedulerProgress& p, const std::vector<SchedulerTask>& tasks) {
  const TaskState& s = (*p.tasks)[p.task];
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << "round " << p.round << ": task " << p.task << " ("
     << tasks[p.task].name << ", x" << tasks[p.task].weight << ") " << s.trials << " trials; " << p.tasks_tuned
     << "/" << tasks.size() << " tasks tuned, " << p.trials_now << " trials this run; model " << p.latency_s * 1e3
     << " ms, untuned " << p.untuned_latency_s * 1e3 << " ms; elapsed " << clock_text(p.elapsed_s) << ", ETA "
     << clock_text(p.eta_s);
  if (p.internal_errors) os << "; " << p.internal_errors << " INTERNAL ERRORS";
  return os.str();
}

}  // namespace kiln::search
