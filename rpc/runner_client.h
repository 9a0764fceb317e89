// The tuner's side of measurement: a Runner measures batches, wherever it
// is. One code path for local and remote: both speak gRPC to `kiln runner`.
//
//   auto runner = connect_runner("local");            // spawn a private one
//   auto runner = connect_runner("10.0.0.7:9190", token);
//   DeviceInfo d = runner->info();
//   std::vector<MeasureResult> rs = runner->measure(batch, [](const MeasureResult& r) { log(r); });
//
// measure() returns one result per candidate, in the batch's order, and
// calls `on_result` as each arrives, so a caller can record every result the
// moment it exists. A local runner that dies (killed, out of memory) is
// restarted and the rest of the batch sent again; the candidate it was
// measuring is tried once more, then reported as a runtime_error.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/temp_dir.h"
#include "rpc/measure.h"
#include "rpc/process/child_process.h"

namespace kiln::rpc {

using ResultCallback = std::function<void(const MeasureResult&)>;

class Runner {
 public:
  virtual ~Runner() = default;
  // Throws kiln::Error when the runner cannot be reached or refuses us.
  virtual DeviceInfo info() = 0;
  // Throws kiln::Error when the runner cannot be reached or refuses the
  // batch (after delivering every result it did send).
  virtual std::vector<MeasureResult> measure(const MeasureBatch& batch, const ResultCallback& on_result = {}) = 0;
  virtual std::string address() const = 0;
};

// A runner listening at `address` (gRPC form, e.g. "127.0.0.1:9190",
// "unix:/run/kiln.sock").
// With `tls_ca` (a PEM file), over TLS trusting that CA.
std::unique_ptr<Runner> connect_remote_runner(const std::string& address, const std::string& token = "",
                                              const std::string& tls_ca = "");

struct LocalRunnerOptions {
  std::string kiln = kiln_binary();
  // Extra arguments for `kiln runner`, e.g. {"--device-target=llvm -mattr=-avx512f"}.
  std::vector<std::string> args;
};

// `kiln runner` as this process's child on a private unix socket; stopped
// with this object, and never outliving this process however it ends.
class LocalRunner : public Runner {
 public:
  explicit LocalRunner(LocalRunnerOptions options = {});
  ~LocalRunner() override;

  DeviceInfo info() override;
  std::vector<MeasureResult> measure(const MeasureBatch& batch, const ResultCallback& on_result = {}) override;
  std::string address() const override { return address_; }

  // The child's pid (-1 when none runs) and how many times it was started.
  int pid() const { return child_.pid(); }
  int starts() const { return starts_; }

 private:
  void ensure_running();
  LocalRunnerOptions options_;
  TempDir dir_;  // its socket and work, removed after the child is stopped
  std::string address_;
  ChildProcess child_;
  struct Connection;  // the gRPC channel to the current child
  std::unique_ptr<Connection> conn_;
  int starts_ = 0;
};

// "local": a LocalRunner; anything else: connect_remote_runner.
std::unique_ptr<Runner> connect_runner(const std::string& address, const std::string& token = "",
                                       const std::string& tls_ca = "");

}  // namespace kiln::rpc
