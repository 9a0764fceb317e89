// kilnd --db URL [--listen ADDR] [--tokens FILE] [--tls-cert F --tls-key F] [--jobs N] ...
//
// A farm's tuning daemon (docs/farm.md): serves the Farm service and runs
// jobs from the queue in the PostgreSQL database until SIGINT or SIGTERM,
// when the jobs it runs stop after their batch and go back to the queue.
// Prints "kilnd: listening on ADDR" when it serves.
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>

#include "core/error.h"
#include "farm/daemon.h"
#include "rpc/process/child_process.h"
#include "tools/stop_signals.h"
#include "tuning_logs/open_database.h"
#include "tuning_logs/pg_connection.h"

int main(int argc, char** argv) {
  using namespace kiln;
  CLI::App app{"kilnd: a farm's tuning daemon (docs/farm.md)"};
  farm::DaemonOptions o;
  std::string tokens;
  app.add_option("--db", o.db_url, "the farm's PostgreSQL database (postgresql://...; a password comes best from PGPASSWORD)")
      ->required();
  app.add_option("--listen", o.listen, "address to serve on; off loopback it needs --tokens and TLS")->capture_default_str();
  app.add_option("--tokens", tokens, "file of ROLE NAME TOKEN lines: who may do what (docs/farm.md)");
  app.add_option("--tls-cert", o.tls.cert, "PEM certificate chain to serve TLS with");
  app.add_option("--tls-key", o.tls.key, "PEM private key of --tls-cert");
  app.add_option("--runner-token", o.runner_token, "token to dial runners with (default: the tokens file's runner token, else $KILN_RUNNER_TOKEN)");
  app.add_option("--runner-tls-ca", o.runner_tls_ca, "PEM file of the CA that signed the runners' certificates (TLS)");
  app.add_option("--name", o.name, "this daemon's name in the queue (default: host:pid)");
  app.add_option("--jobs", o.jobs, "jobs to run at once")->capture_default_str();
  app.add_option("--lease", o.lease_s, "seconds a claimed job stays this daemon's without a renewal")->capture_default_str();
  app.add_option("--heartbeat", o.heartbeat_s, "seconds between a runner's heartbeats")->capture_default_str();
  app.add_option("--runner-timeout", o.runner_timeout_s, "seconds without a heartbeat after which a runner is lost")
      ->capture_default_str();
  int lifeline_fd = -1;
  app.add_option("--lifeline-fd", lifeline_fd)->group("");
  app.add_option("--build-workers", o.build_workers, "compile processes per job (default: the target's cores)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  cli::StopSignals signals;
  if (lifeline_fd >= 0) rpc::watch_lifeline(lifeline_fd);  // started by a kiln process (a test): die with it
  try {
    if (!tuning::is_postgres_url(o.db_url))
      KILN_USER_ERROR() << "--db " << tuning::database_name(o.db_url) << ": a farm keeps its queue on PostgreSQL "
                        << "(postgresql://...)";
    if (!tokens.empty()) o.tokens = farm::Tokens::load(tokens);
    if (o.runner_token.empty() && o.tokens.runner_token().empty())
      if (const char* env = std::getenv("KILN_RUNNER_TOKEN")) o.runner_token = env;
    farm::Daemon d(o);
    std::cout << "kilnd: " << d.name() << ", database " << tuning::database_name(o.db_url) << ", " << o.jobs
              << " job(s) at once" << (o.tokens.empty() ? ", no tokens (loopback only)" : "") << "\n"
              << "kilnd: listening on " << d.address() << std::endl;
    signals.on_stop([&](int sig) {
      std::cerr << "kilnd: stopping on signal " << sig << "; running jobs go back to the queue\n";
      d.shutdown();
    });
    d.run();
  } catch (const Error& e) {
    std::cerr << "kilnd: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
