#include "rpc/worker/run_worker.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "rpc/convert.h"
#include "rpc/worker/serve_frames.h"
#include "targets/runtime/check.h"
#include "targets/runtime/loaded_kernel.h"
#include "targets/runtime/timing.h"

namespace kiln::rpc {
namespace {

constexpr size_t kMaxReferences = 8;

size_t output_index(const std::vector<ArgSpec>& specs) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].is_output) return i;
  KILN_USER_ERROR() << "the candidate's arguments name no output";
}

void write_file_atomically(const std::string& path, const void* data, size_t n) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    if (!out) KILN_USER_ERROR() << "cannot write " << tmp;
  }
  std::filesystem::rename(tmp, path);
}

std::string describe(double x) {
  std::ostringstream os;
  os.precision(3);
  os << x;
  return os.str();
}

// Packed buffers swapped into the arguments in their weights' places, and
// the weights swapped back on the way out, so the worker's argument cache
// (RunWorker::arguments) keeps its shapes.
class Prepacked {
 public:
  Prepacked(std::vector<NDArray>& args, size_t output) : args_(args), output_(output) {}
  Prepacked(const Prepacked&) = delete;
  Prepacked& operator=(const Prepacked&) = delete;
  ~Prepacked() {
    for (auto& [param, weight] : swapped_) std::swap(args_[param], weight);
  }

  void run(LoadedKernel& pack, const proto::Prepack& p, ThreadPool& threads) {
    const auto param = static_cast<size_t>(p.param());
    if (p.param() < 0 || param >= args_.size() || param == output_)
      KILN_USER_ERROR() << "pack '" << p.kernel_name() << "' names parameter " << p.param()
                        << ", not an input of the kernel";
    const ArgSpec spec = from_proto(p.packed());
    std::vector<NDArray> call;
    call.push_back(std::move(args_[param]));
    call.emplace_back(spec.dtype, spec.shape);
    try {
      pack.run(call, threads);
    } catch (...) {
      args_[param] = std::move(call[0]);
      throw;
    }
    args_[param] = std::move(call[1]);
    swapped_.emplace_back(param, std::move(call[0]));
  }

 private:
  std::vector<NDArray>& args_;
  size_t output_;
  std::vector<std::pair<size_t, NDArray>> swapped_;
};

}  // namespace

std::vector<NDArray>& RunWorker::arguments(const std::vector<ArgSpec>& specs, uint64_t seed) {
  std::ostringstream key;
  key << seed;
  for (const ArgSpec& s : specs) {
    key << ';' << s.dtype.str() << (s.is_output ? "!" : ":");
    for (int64_t d : s.shape) key << d << ',';
  }
  if (key.str() != inputs_key_) {
    inputs_key_.clear();
    pristine_ = make_arguments(specs, seed);
    working_.clear();
    for (const NDArray& a : pristine_) working_.push_back(a.copy());
    inputs_key_ = key.str();
  }
  for (size_t i = 0; i < working_.size(); ++i)
    std::memcpy(working_[i].data(), pristine_[i].data(), pristine_[i].nbytes());
  return working_;
}

const NDArray& RunWorker::reference(const std::string& path, const ArgSpec& output) {
  auto it = references_.find(path);
  if (it != references_.end()) return it->second;
  // A tuning job moves from workload to workload: keep the last few only.
  if (references_.size() >= kMaxReferences) references_.clear();
  NDArray a(output.dtype, output.shape);
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(a.data()), static_cast<std::streamsize>(a.nbytes()));
  if (!in || in.peek() != EOF)
    KILN_USER_ERROR() << "the reference output " << path << " does not hold " << a.nbytes() << " bytes";
  return references_.emplace(path, std::move(a)).first->second;
}

ThreadPool& RunWorker::pool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!pool_ || pool_->num_threads() != threads) pool_ = std::make_unique<ThreadPool>(threads);
  return *pool_;
}

std::unique_ptr<LoadedKernel> RunWorker::load(const std::string& format, const std::string& path,
                                             const std::string& name) {
  if (format != "wasm_module") return load_kernel_file(format, path, name);
  if (!wasm_) wasm_ = std::make_unique<WasmEngine>();
  return load_wasm_kernel(*wasm_, path, name);
}

proto::RunReply RunWorker::handle(const proto::RunRequest& req) {
  proto::RunReply reply;
  try {
    std::vector<ArgSpec> specs;
    for (const proto::TensorSpec& s : req.args()) specs.push_back(from_proto(s));
    const size_t out = output_index(specs);
    const TimingConfig timing = from_proto(req.timing());
    std::vector<NDArray>& args = arguments(specs, timing.seed);
    ThreadPool& threads = pool(timing.threads);
    std::unique_ptr<LoadedKernel> kernel = load(req.artifact_format(), req.artifact_path(), req.kernel_name());
    // The packs of the candidate's weights run once, untimed, as a model
    // compiler runs them; the kernel then takes each packed buffer in its
    // weight's place (put back when this request is done).
    Prepacked prepacked(args, out);
    for (const proto::Prepack& p : req.prepacks()) {
      std::unique_ptr<LoadedKernel> pack = load(req.artifact_format(), req.artifact_path(), p.kernel_name());
      prepacked.run(*pack, p, threads);
    }

    if (req.compute_reference()) {
      kernel->run(args, threads);
      write_file_atomically(req.reference_path(), args[out].data(), args[out].nbytes());
      return reply;
    }

    // The checked run: every output element must be written, and right.
    // It is timed too, for screening.
    poison(args[out]);
    const auto t0 = std::chrono::steady_clock::now();
    kernel->run(args, threads);
    const double checked_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!req.reference_path().empty()) {
      double err = max_relative_error(args[out], reference(req.reference_path(), specs[out]));
      reply.set_max_rel_err(err);
      if (!(err <= req.tolerance())) {
        reply.set_error_kind(proto::WRONG_ANSWER);
        reply.set_error_message("output differs from the reference: max relative error " + describe(err) +
                                " exceeds the tolerance " + describe(req.tolerance()));
        return reply;
      }
    }

    // Screening: a candidate far slower than the fastest known is not worth
    // its repeats; its checked run ranks it. (That run follows loading and
    // the inputs' copy, so it is warm but for the code itself: a few
    // microseconds against the tens of milliseconds screening is for.)
    if (req.screen_above_s() > 0 && checked_s > req.screen_above_s()) {
      reply.add_times_s(checked_s);
      reply.set_number(1);
      reply.set_screened(true);
      return reply;
    }
    Timing t = kernel->measure(args, threads, timing);
    for (double ms : t.ms_per_run) reply.add_times_s(ms * 1e-3);
    reply.set_number(t.number);
  } catch (...) {
    CaughtError e = caught_error(ErrorKind::kRuntimeError);
    reply.set_error_kind(to_proto(e.kind));
    reply.set_error_message(e.message);
  }
  return reply;
}

int serve_runs(int fd) {
  RunWorker runs;
  return serve_frames("run", fd, [&](const proto::WorkerRequest& req) {
    if (!req.has_run()) KILN_USER_ERROR() << "a run worker received another kind of request";
    return runs.handle(req.run()).SerializeAsString();
  });
}

}  // namespace kiln::rpc
