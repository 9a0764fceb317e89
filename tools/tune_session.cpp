#include "tools/tune_session.h"

#include <csignal>
#include <iomanip>
#include <sstream>

#include "costmodel/cost_model.h"
#include "costmodel/features.h"
#include "costmodel/random_model.h"
#include "costmodel/xgb_model.h"
#include "search/evolutionary.h"

namespace kiln::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends it at once
}

std::unique_ptr<costmodel::CostModel> make_model(const std::string& which, uint64_t seed, int threads) {
  if (which == "random") return costmodel::make_random_model(seed);
  if (which == "xgb")
    return costmodel::make_xgb_model({.feature_version = costmodel::kFeatureVersion,
                                      .feature_length = costmodel::kFeatureLength,
                                      .nthread = threads,
                                      .seed = seed});
  return costmodel::load_cost_model(which, costmodel::kFeatureVersion);
}

}  // namespace

std::unique_ptr<search::SearchStrategy> make_strategy(const std::string& strategy, const std::string& cost_model,
                                                      uint64_t seed, int threads) {
  if (strategy == "random") return search::make_random_search(threads);
  return search::make_evolutionary_search(make_model(cost_model, seed, threads), {.threads = threads});
}

StopOnInterrupt::StopOnInterrupt() {
  g_stop = false;
  std::signal(SIGINT, on_interrupt);
}
StopOnInterrupt::~StopOnInterrupt() { std::signal(SIGINT, SIG_DFL); }
const std::atomic<bool>* StopOnInterrupt::stop() const { return &g_stop; }

std::string clock_text(double s) {
  const int64_t t = static_cast<int64_t>(s + 0.5);
  std::ostringstream os;
  if (t >= 3600) os << t / 3600 << "h" << std::setw(2) << std::setfill('0') << (t / 60) % 60 << "m";
  else if (t >= 60) os << t / 60 << "m" << std::setw(2) << std::setfill('0') << t % 60 << "s";
  else os << t << "s";
  return os.str();
}

}  // namespace kiln::cli
