// kiln runner [--listen ADDR] [--key KEY] [--token TOKEN] [--device-target T] [--cpu-only] [--workdir DIR]
//             [--register DAEMON [--advertise ADDR] [--tls-ca F]]
//
// Serves the Runner protocol (docs/measurement.md) until SIGINT or SIGTERM.
// With --register it announces itself to a farm's kilnd and sends it
// heartbeats meanwhile (docs/farm.md).
// Prints the device, then "kiln runner: listening on ADDR" as its last line
// on stdout: a parent that spawned it (the local runner) waits for that line.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include "core/error.h"
#include "core/temp_dir.h"
#include "farm/announcer.h"
#include "rpc/runner/server.h"
#include "tools/commands.h"
#include "tools/stop_signals.h"

namespace kiln::cli {
namespace {

struct Args {
  std::string listen = "127.0.0.1:9190";
  std::string key;
  std::string token;
  std::string device_target = "llvm";
  std::string workdir;
  std::string register_with, advertise, tls_ca;
  rpc::TlsFiles tls;
  int lifeline_fd = -1;
  bool cpu_only = false;
};

// Where daemons dial this runner: --advertise as given, HOST alone taking
// the bound port, or the listening address.
std::string advertised_address(const std::string& advertise, const std::string& bound) {
  if (advertise.empty()) return bound;
  if (advertise.find(':') != std::string::npos) return advertise;
  return advertise + bound.substr(bound.rfind(':'));
}

void run(const Args& a) {
  StopSignals signals;
  if (a.lifeline_fd >= 0) rpc::watch_lifeline(a.lifeline_fd);

  rpc::RunnerOptions o;
  o.device = Target::parse(a.device_target);
  o.device_key = a.key.empty() ? o.device.mcpu() : a.key;
  const bool emulated = rpc::is_emulated(o.device);
  if (!a.cpu_only && !rpc::is_foreign(o.device)) o.gpus = rpc::detect_gpus();
  o.token = a.token;
  o.tls = a.tls;
  if (o.token.empty())
    if (const char* env = std::getenv("KILN_RUNNER_TOKEN")) o.token = env;
  // Without --workdir, a temporary one of its own, removed on the way out
  // (a runner that fails to listen included).
  std::optional<TempDir> own_workdir;
  if (a.workdir.empty()) {
    own_workdir.emplace("kiln-runner");
    o.workdir = own_workdir->path();
  } else {
    o.workdir = a.workdir;
  }
  const std::string token = o.token;

  rpc::RunnerServer server(a.listen, std::move(o));
  const rpc::DeviceInfo& d = server.device_info();
  std::cout << "kiln runner: device '" << d.device_key << "': " << d.cpu_model << " (" << d.cpu_name << "), "
            << d.num_cores << " cores, kiln " << d.kiln_version << "\n"
            << "kiln runner: runs target " << d.targets.front() << "\n";
  if (emulated)
    std::cout << "kiln runner: its worker runs under emulation: outputs are checked for real, but its timings say "
                 "nothing about the device's speed\n";
  for (size_t i = 0; i < d.gpus.size(); ++i)
    std::cout << "kiln runner: and on " << d.gpus[i] << ", target " << d.targets[i + 1] << "\n";
  std::cout << "kiln runner: listening on " << server.address() << std::endl;

  std::unique_ptr<farm::Announcer> announcer;
  if (!a.register_with.empty())
    announcer = std::make_unique<farm::Announcer>(
        a.register_with, farm::FarmClientOptions{.token = token, .tls_ca = a.tls_ca},
        advertised_address(a.advertise, server.address()), d,
        [](const std::string& s) { std::cerr << "kiln runner: " << s << std::endl; });

  signals.on_stop([&](int sig) {
    std::cerr << "kiln runner: stopping on signal " << sig << "\n";
    server.shutdown();
  });
  server.wait();
  announcer.reset();  // says it leaves
}

}  // namespace

void add_runner(CLI::App& app) {
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("runner", "serve measurements of built kernels over gRPC (docs/measurement.md)");
  cmd->add_option("--listen", a->listen,
                  "address: HOST:PORT (port 0 picks one) or unix:PATH; off loopback a token is required")
      ->capture_default_str();
  cmd->add_option("--key", a->key, "device key this runner reports (default: the CPU's name)");
  cmd->add_option("--token", a->token, "require this token from clients (or set KILN_RUNNER_TOKEN)");
  cmd->add_option("--device-target", a->device_target,
                  "the target whose CPU features this device offers; artifacts needing more are refused. Another "
                  "CPU's target (-mtriple=aarch64-linux-gnu) runs that CPU's worker under qemu-user")
      ->capture_default_str();
  cmd->add_flag("--cpu-only", a->cpu_only, "measure on the CPU only, even where an OpenCL device is found");
  cmd->add_option("--workdir", a->workdir, "where artifacts and reference outputs go (default: a private temporary one)");
  cmd->add_option("--tls-cert", a->tls.cert, "PEM certificate chain to serve TLS with (required off loopback)");
  cmd->add_option("--tls-key", a->tls.key, "PEM private key of --tls-cert");
  cmd->add_option("--register", a->register_with, "announce this runner to the kilnd at this address (docs/farm.md)");
  cmd->add_option("--advertise", a->advertise, "the address daemons dial this runner at, HOST:PORT or HOST with the bound port (default: --listen's)");
  cmd->add_option("--tls-ca", a->tls_ca, "PEM file of the CA that signed the daemon's certificate (TLS)");
  cmd->add_option("--lifeline-fd", a->lifeline_fd)->group("");
  cmd->callback([a] { run(*a); });
}

}  // namespace kiln::cli
