#include "tools/tune_session.h"

#include <csignal>
#include <iostream>

#include "core/error.h"
#include "rpc/runner/device.h"
#include "tuning_logs/open_database.h"

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

void note_emulation(const Target& target) {
  if (!rpc::is_emulated(target)) return;
  std::cerr << "kiln: " << target.mtriple() << " is not this machine's CPU: its kernels run under qemu-user, "
            << "checked against the reference as on the device, but their timings say nothing about the "
            << "device's speed (docs/targets.md)\n";
}

void fail_on_internal_errors(int64_t internal_errors, const std::string& first_message, const std::string& db) {
  // A compiler bug is never the candidate's fault: everything measured is
  // stored, and the job still fails.
  if (internal_errors > 0)
    KILN_USER_ERROR() << internal_errors << " candidate(s) met an internal error (a compiler bug), stored with error "
                      << "kind 'internal' in " << tuning::database_name(db) << "; the first: " << first_message;
}

}  // namespace kiln::cli
