#include "python/src/background.h"

#include <chrono>

namespace kiln::py {

BackgroundJob::BackgroundJob(Work work) {
  thread_ = std::thread([this, work = std::move(work)] {
    nlohmann::json r;
    std::exception_ptr e;
    try {
      r = work(
          [this](nlohmann::json ev) {
            std::lock_guard<std::mutex> lock(mu_);
            events_.push_back(std::move(ev));
          },
          &stop_);
    } catch (...) {
      e = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu_);
    result_ = std::move(r);
    error_ = e;
    done_ = true;
    cv_.notify_all();
  });
}

BackgroundJob::~BackgroundJob() {
  stop_ = true;
  if (!thread_.joinable()) return;
  if (PyGILState_Check()) {
    pyb::gil_scoped_release nogil;
    thread_.join();
  } else {
    thread_.join();
  }
}

bool BackgroundJob::wait(double timeout_s) {
  pyb::gil_scoped_release nogil;
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return done_; });
}

std::vector<nlohmann::json> BackgroundJob::poll() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(events_, {});
}

nlohmann::json BackgroundJob::result() {
  {
    pyb::gil_scoped_release nogil;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_; });
  }
  if (thread_.joinable()) {
    pyb::gil_scoped_release nogil;
    thread_.join();
  }
  if (error_) std::rethrow_exception(error_);
  return result_;
}

pyb::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return pyb::none();
    case nlohmann::json::value_t::boolean: return pyb::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return pyb::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return pyb::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return pyb::float_(j.get<double>());
    case nlohmann::json::value_t::string: return pyb::str(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      pyb::list l;
      for (const auto& e : j) l.append(to_python(e));
      return l;
    }
    case nlohmann::json::value_t::object: {
      pyb::dict d;
      for (const auto& [k, v] : j.items()) d[pyb::str(k)] = to_python(v);
      return d;
    }
    default: return pyb::none();
  }
}

nlohmann::json to_json(pyb::handle h) {
  if (h.is_none()) return nullptr;
  if (PyBool_Check(h.ptr())) return h.cast<bool>();
  if (PyLong_Check(h.ptr())) return h.cast<int64_t>();
  if (PyFloat_Check(h.ptr())) return h.cast<double>();
  if (pyb::isinstance<pyb::str>(h)) return h.cast<std::string>();
  if (pyb::isinstance<pyb::dict>(h)) {
    nlohmann::json o = nlohmann::json::object();
    for (auto [k, v] : h.cast<pyb::dict>()) o[pyb::str(k).cast<std::string>()] = to_json(v);
    return o;
  }
  if (pyb::isinstance<pyb::list>(h) || pyb::isinstance<pyb::tuple>(h)) {
    nlohmann::json a = nlohmann::json::array();
    for (pyb::handle e : h) a.push_back(to_json(e));
    return a;
  }
  throw pyb::type_error("not a JSON value: " + pyb::repr(h).cast<std::string>());
}

void bind_background_job(pyb::module_& m) {
  pyb::class_<BackgroundJob>(m, "BackgroundJob", "Work running in a thread of its own (a tuning run).")
      .def("wait", &BackgroundJob::wait, pyb::arg("timeout_s"), "True once it has ended; waits up to timeout_s.")
      .def("poll", [](BackgroundJob& j) {
        pyb::list out;
        for (const nlohmann::json& e : j.poll()) out.append(to_python(e));
        return out;
      }, "Progress reported since the last poll, oldest first.")
      .def("stop", &BackgroundJob::stop, "Asks it to stop after the batch in flight.")
      .def("result", [](BackgroundJob& j) { return to_python(j.result()); },
           "Waits for the end; its result, or its error raised.");
}

}  // namespace kiln::py
