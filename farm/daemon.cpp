#include "farm/daemon.h"

#include <unistd.h>

#include <chrono>
#include <iostream>

#include "core/error.h"

namespace kiln::farm {
namespace {

std::string default_name() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(getpid());
}

}  // namespace

Daemon::Daemon(DaemonOptions o) : o_(std::move(o)) {
  if (o_.name.empty()) o_.name = default_name();
  if (o_.runner_token.empty()) o_.runner_token = o_.tokens.runner_token();
  if (!rpc::is_local_address(o_.listen)) {
    if (o_.tokens.empty())
      KILN_USER_ERROR() << "listening on " << o_.listen << " would let anyone on the network submit jobs and "
                        << "register runners: give a --tokens file, or listen on loopback (127.0.0.1)";
    if (!o_.tls.enabled())
      KILN_USER_ERROR() << "listening on " << o_.listen << " would send tokens in the clear: give --tls-cert and "
                        << "--tls-key, or listen on loopback (127.0.0.1)";
  }
  service_ = std::make_unique<FarmService>(FarmServiceOptions{.db_url = o_.db_url,
                                                               .tokens = o_.tokens,
                                                               .heartbeat_s = o_.heartbeat_s,
                                                               .runner_timeout_s = o_.runner_timeout_s});
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(o_.listen, rpc::server_credentials(o_.tls), &port);
  builder.RegisterService(service_.get());
  builder.SetMaxReceiveMessageSize(64 << 20);
  server_ = builder.BuildAndStart();
  if (!server_) KILN_USER_ERROR() << "cannot listen on " << o_.listen;
  address_ = rpc::bound_address(o_.listen, port);
}

Daemon::~Daemon() { shutdown(); }

void Daemon::work(int worker) {
  const std::string me = o_.name + "/" + std::to_string(worker);
  std::unique_ptr<JobQueue> q;
  while (!stopping_) {
    std::optional<Job> job;
    try {
      if (!q) q = std::make_unique<JobQueue>(o_.db_url);
      job = q->claim(me, {.lease_s = o_.lease_s, .runner_timeout_s = o_.runner_timeout_s});
    } catch (const Error& e) {
      std::cerr << "kilnd: " << me << ": " << e.what() << "\n";
      q.reset();  // connect again next time
    }
    if (!job) {
      for (int i = 0; i < 10 && !stopping_; ++i) std::this_thread::sleep_for(std::chrono::duration<double>(o_.poll_s / 10));
      continue;
    }
    std::cerr << "kilnd: " << me << ": job " << job->id << " (" << job->name << ", key '" << job->device_key << "')"
              << (job->attempts > 1 ? " taken up again" : "") << "\n";
    JobOutcome out = run_job(*job,
                             {.db_url = o_.db_url,
                              .daemon = me,
                              .runner_token = o_.runner_token,
                              .runner_tls_ca = o_.runner_tls_ca,
                              .lease_s = o_.lease_s,
                              .runner_timeout_s = o_.runner_timeout_s,
                              .build_workers = o_.build_workers},
                             stopping_);
    try {
      if (out.lost_lease) {
        std::cerr << "kilnd: " << me << ": job " << job->id << ": lease lost to another daemon\n";
      } else if (out.shut_down) {
        q->release(job->id, me);
      } else {
        q->finish(job->id, me, out.state, out.message);
        std::cerr << "kilnd: " << me << ": job " << job->id << " " << job_state_name(out.state) << ": " << out.message << "\n";
      }
    } catch (const Error& e) {
      std::cerr << "kilnd: " << me << ": job " << job->id << ": " << e.what() << "\n";
      q.reset();
    }
  }
}

void Daemon::run() {
  std::vector<std::thread> workers;
  for (int i = 0; i < std::max(1, o_.jobs); ++i) workers.emplace_back([this, i] { work(i); });
  server_->Wait();
  for (std::thread& t : workers) t.join();
}

void Daemon::shutdown() {
  if (stopping_.exchange(true)) return;
  service_->stop();
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace kiln::farm
