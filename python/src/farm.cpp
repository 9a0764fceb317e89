// kiln.farm.Client: a farm's daemon (`kilnd`, docs/farm.md) as `kiln job`
// and `kiln farm status` call it (farm/farm_client.h). Jobs come back as
// dicts, the JSON the daemon sends.
//
//   c = kiln.farm.Client("127.0.0.1:9300", token="...")
//   job = c.submit([f, "matmul:M=512,N=512,K=512"], trials=200)
//   c.logs(job["id"], follow=True)
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "driver/tune.h"
#include "farm/farm_client.h"
#include "python/src/background.h"
#include "python/src/bindings.h"
#include "search/tune_options.h"

namespace kiln::py {
namespace {

// A function, or a workload string: what the daemon tunes, with its IR.
tuning::WorkloadEntry entry_of(pyb::handle w) {
  if (pyb::isinstance<PrimFunc>(w)) {
    const auto f = w.cast<PrimFunc>();
    return workload_task(f, f.name()).entry;
  }
  return op_task(w.cast<std::string>()).entry;
}

}  // namespace

void bind_farm(pyb::module_& parent) {
  pyb::module_ m = parent.def_submodule("farm_impl", "A farm's daemon (kiln.farm wraps it).");
  pyb::class_<farm::FarmClient>(m, "Client")
      .def(pyb::init([](const std::string& address, const std::string& token, const std::string& tls_ca) {
             return std::make_unique<farm::FarmClient>(address, farm::FarmClientOptions{token, tls_ca});
           }),
           pyb::arg("address"), pyb::arg("token") = "", pyb::arg("tls_ca") = "")
      .def_property_readonly("address", &farm::FarmClient::address)
      .def(
          "submit",
          [](farm::FarmClient& c, pyb::handle workloads, pyb::handle options, const std::string& name,
             const std::string& device_key, int priority) {
            farm::JobSpec s;
            s.tune = search::TuneOptions::from_json(to_json(options));
            s.tune.check();
            for (pyb::handle w : workloads) s.tasks.push_back({entry_of(w)});
            if (s.tasks.empty()) throw pyb::value_error("submit takes at least one workload");
            s.name = name.empty() ? s.tasks.front().entry.shape : name;
            s.device_key = device_key.empty() ? s.tune.target.mcpu() : device_key;
            s.priority = priority;
            nlohmann::json j;
            {
              pyb::gil_scoped_release nogil;
              j = c.submit(s);
            }
            return to_python(j);
          },
          pyb::arg("workloads"), pyb::arg("options"), pyb::arg("name") = "", pyb::arg("device_key") = "",
          pyb::arg("priority") = 0)
      .def("job", [](farm::FarmClient& c, int64_t id) { return to_python(c.job(id)); }, pyb::arg("id"))
      .def(
          "jobs",
          [](farm::FarmClient& c, int limit) {
            pyb::list out;
            for (const nlohmann::json& j : c.jobs(limit)) out.append(to_python(j));
            return out;
          },
          pyb::arg("limit") = 100)
      .def("cancel", [](farm::FarmClient& c, int64_t id) { return to_python(c.cancel(id)); }, pyb::arg("id"))
      .def("status", [](farm::FarmClient& c) { return to_python(c.status()); })
      .def(
          "logs",
          [](farm::FarmClient& c, int64_t id, int64_t after, bool follow, const pyb::object& on_line) {
            pyb::list lines;
            nlohmann::json last;
            {
              pyb::gil_scoped_release nogil;
              last = c.logs(id, after, follow, [&](double at, const std::string& line) {
                pyb::gil_scoped_acquire gil;
                if (!on_line.is_none()) on_line(at, line);
                lines.append(pyb::make_tuple(at, line));
              });
            }
            return pyb::make_tuple(lines, to_python(last));
          },
          pyb::arg("id"), pyb::arg("after") = 0, pyb::arg("follow") = false, pyb::arg("on_line") = pyb::none());
}

}  // namespace kiln::py
