#include "rpc/worker/wasm_kernel.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/paths.h"

namespace kiln::rpc {
namespace {

using json = nlohmann::json;

std::string node_on_path() {
  for (const char* name : {"node", "nodejs"})
    if (std::string p = find_on_path(name); !p.empty()) return p;
  KILN_USER_ERROR() << "WebAssembly kernels run in Node.js, and node is not on PATH: install Debian's nodejs "
                       "(scripts/setup does)";
}

std::vector<std::string> engine_argv() { return {node_on_path(), kiln_share_file("node_worker.js")}; }

class WasmKernel final : public LoadedKernel {
 public:
  WasmKernel(WasmEngine& engine, std::string path, std::string name)
      : engine_(engine), path_(std::move(path)), name_(std::move(name)) {}

  void run(std::vector<NDArray>& args, ThreadPool&) override {
    const std::string reply = engine_.call(request(args, json()));
    size_t at = header(reply).size() + 1;
    for (NDArray& a : args) {
      KILN_ICHECK(at + a.nbytes() <= reply.size()) << "the WebAssembly engine sent back too few bytes";
      std::memcpy(a.data(), reply.data() + at, a.nbytes());
      at += a.nbytes();
    }
  }

  Timing measure(std::vector<NDArray>& args, ThreadPool&, const TimingOptions& o) override {
    // Nothing to evict in the engine: its caches are the CPU's, and its
    // memory is not this process's (cold_args and flush_cache do not apply).
    json timing = {{"warmup", o.warmup}, {"warmup_ms", o.warmup_ms}, {"number", o.number},
                   {"repeat", o.repeat}, {"min_repeat_ms", o.min_repeat_ms}};
    json h = json::parse(header(engine_.call(request(args, timing))));
    Timing t;
    t.number = h.at("number").get<int>();
    t.ms_per_run = h.at("ms_per_run").get<std::vector<double>>();
    return t;
  }

 private:
  std::string request(const std::vector<NDArray>& args, const json& timing) const {
    json sizes = json::array();
    for (const NDArray& a : args) sizes.push_back(a.nbytes());
    std::string r = json{{"module", path_}, {"kernel", name_}, {"args", sizes}, {"timing", timing}}.dump() + "\n";
    for (const NDArray& a : args) r.append(static_cast<const char*>(a.data()), a.nbytes());
    return r;
  }

  // The reply's JSON line; throws the kernel's error when it names one.
  std::string header(const std::string& reply) const {
    const size_t nl = reply.find('\n');
    KILN_ICHECK(nl != std::string::npos) << "the WebAssembly engine's reply has no header";
    std::string h = reply.substr(0, nl);
    json j = json::parse(h, nullptr, false);
    KILN_ICHECK(!j.is_discarded()) << "the WebAssembly engine's reply is not JSON: " << h;
    if (j.contains("error")) KILN_USER_ERROR() << name_ << " in WebAssembly: " << j["error"].get<std::string>();
    return h;
  }

  WasmEngine& engine_;
  std::string path_, name_;
};

}  // namespace

WasmEngine::WasmEngine() : node_(engine_argv()) {}

std::string WasmEngine::call(const std::string& request) {
  // The run worker's own supervisor holds the candidate's time limit; past
  // it, the worker dies and takes the engine with it. A day is never.
  WorkerCall r = node_.call(request, 24 * 3600 * 1e3);
  if (r.status == WorkerCall::kDied) KILN_USER_ERROR() << "the WebAssembly engine (Node.js) died: " << r.death;
  KILN_ICHECK(r.status == WorkerCall::kOk) << "the WebAssembly engine did not answer";
  return r.reply;
}

std::unique_ptr<LoadedKernel> load_wasm_kernel(WasmEngine& engine, const std::string& path, const std::string& name) {
  return std::make_unique<WasmKernel>(engine, path, name);
}

}  // namespace kiln::rpc
