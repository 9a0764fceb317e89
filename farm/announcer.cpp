#include "farm/announcer.h"

#include "core/error.h"

namespace kiln::farm {

Announcer::Announcer(const std::string& daemon, FarmClientOptions client, std::string runner_address,
                     rpc::DeviceInfo device, std::function<void(const std::string&)> say)
    : client_(daemon, std::move(client)), address_(std::move(runner_address)), device_(std::move(device)), say_(std::move(say)) {
  thread_ = std::thread([this] { loop(); });
}

Announcer::~Announcer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
  try {
    client_.leave(address_);
  } catch (const Error&) {
  }
}

void Announcer::loop() {
  bool registered = false;
  std::string last_problem;
  double period_s = 2;
  std::unique_lock<std::mutex> lock(mu_);
  while (!done_) {
    lock.unlock();
    try {
      if (!registered) {
        period_s = client_.register_runner(address_, device_).first;
        registered = true;
        if (say_) say_("registered with the daemon at " + client_.address() + " as " + address_ + ", key '" + device_.device_key + "'");
        last_problem.clear();
      } else if (!client_.heartbeat(address_)) {
        registered = false;  // forgotten: announce again at once
        lock.lock();
        continue;
      }
    } catch (const Error& e) {
      registered = false;
      if (say_ && e.what() != last_problem) say_(e.what());
      last_problem = e.what();
    }
    lock.lock();
    cv_.wait_for(lock, std::chrono::duration<double>(period_s));
  }
}

}  // namespace kiln::farm
