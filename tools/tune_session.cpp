#include "tools/tune_session.h"

#include <csignal>
#include <iomanip>
#include <sstream>

namespace kiln::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends it at once
}

}  // namespace

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
