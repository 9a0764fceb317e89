// kiln compile MODEL.onnx -o OUT [--db FILE] [--target T] [--input-shapes S]
// kiln run OUT|MODEL.onnx [--db FILE] [--inputs DIR] [--outputs DIR] [--repeat R] [--check] [--json]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file.h"
#include "core/paths.h"
#include "core/temp_dir.h"
#include "driver/model_program.h"
#include "driver/pick_in_model.h"
#include "graph/compiled_model.h"
#include "graph/conformance.h"
#include "graph/onnx_import.h"
#include "graph/reference.h"
#include "graph/tasks.h"
#include "rpc/process/child_process.h"
#include "targets/runtime/thread_distance.h"
#include "targets/runtime/timing.h"
#include "tools/commands.h"

namespace kiln::cli {
namespace {

struct ModelArgs {
  std::string model;  // .onnx, or (run) a compiled folder
  std::string out;
  std::string db;
  std::string target = "llvm";
  std::string input_shapes;
  std::string layout = "nchwc";
  std::string inputs, outputs;
  int repeat = 10;
  bool profile = false;
  int threads = 0;
  uint64_t seed = 1;
  bool check = false;
  bool json = false;
  int pick = 1;  // --pick-in-model: each task's best records tried in the model
};

void add_model_options(CLI::App* cmd, ModelArgs& a) {
  cmd->add_option("--db", a.db, "apply the best schedules this tuning database holds for the model's tasks");
  cmd->add_option("--target", a.target, "target string, e.g. 'llvm -mcpu=znver4 -num-cores=2'");
  cmd->add_option("--input-shapes", a.input_shapes,
                  "shapes of inputs with dynamic dimensions: \"name:[1,3,224,224] other:[1,128]\"");
  cmd->add_option("--layout", a.layout, kLayoutHelp);
  cmd->add_option("--pick-in-model", a.pick,
                  "with --db: run the model on this machine with each task's K best records in turn and keep, per "
                  "task, the one fastest in the model (docs/onnx.md, \"Records picked inside the model\")")
      ->check(CLI::PositiveNumber);
}

// What --pick-in-model found: a line per task whose pick is not its best
// alone, and the calls' sum both ways.
void print_pick(const InModelPick& p, std::ostream& log) {
  double best_alone = 0, picked = 0;
  int changed = 0;
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    const TaskPick& k = p.tasks[t];
    if (k.model_ms.empty()) continue;
    best_alone += k.model_ms.front();
    picked += k.model_ms[k.picked];
    if (k.picked == 0) continue;
    ++changed;
    char line[200];
    std::snprintf(line, sizeof line,
                  "  task %zu: record %lld (#%zu alone, %.4f ms) runs %.4f ms in the model, the best alone (%.4f ms) %.4f\n",
                  t, static_cast<long long>(k.record_ids[k.picked]), k.picked + 1, k.alone_ms[k.picked],
                  k.model_ms[k.picked], k.alone_ms.front(), k.model_ms.front());
    log << line;
  }
  log << "picked in the model over " << p.rounds << " rounds: " << changed << " of " << p.tasks.size()
      << " tasks take another record than their best alone; their calls' medians summed " << best_alone << " -> "
      << picked << " ms\n";
  if (changed > 0 || !p.kept)
    log << "the picks together " << p.picked_ms << " ms a run, the best alone together " << p.alone_ms << " ms: "
        << (p.kept ? "kept" : "not kept; every task runs its best alone") << "\n";
}

// Compiles `a.model` into `dir`; what it printed goes to `log`. Returns
// the model as imported and prepared, for a caller that checks the result.
ModelProgram compile_into(const ModelArgs& a, const std::string& dir, std::ostream& log) {
  const Target target = Target::parse(a.target);
  ModelProgram m = prepare_model(a.model, a.input_shapes, pass_options(a.layout, target));
  if (a.pick > 1 && a.db.empty()) KILN_USER_ERROR() << "--pick-in-model chooses among a database's records: give --db";
  InModelPick pick;
  const std::vector<PrimFunc> scheduled = scheduled_for_model(m, a.db, target, a.pick, &pick);
  if (a.pick > 1) print_pick(pick, log);
  const auto t0 = std::chrono::steady_clock::now();
  graph::write_compiled_model(m.graph, m.groups, m.tasks, scheduled, target, dir, target.num_cores());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log << "compiled " << a.model << ": " << m.groups.size() << " fused groups, " << m.tasks.size() << " kernels, in "
      << secs << " s, into " << dir << "\n";
  return m;
}

std::vector<NDArray> read_inputs(const std::vector<graph::TensorInfo>& inputs, const ModelArgs& a) {
  if (!a.inputs.empty()) {
    std::vector<NDArray> in = graph::read_numbered_tensors(a.inputs, "input");
    if (in.size() < inputs.size())
      KILN_USER_ERROR() << "--inputs " << a.inputs << ": the model takes " << inputs.size()
                        << " inputs, and there is no input_" << in.size() << ".pb";
    return in;
  }
  std::vector<NDArray> in;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const graph::TensorInfo& t = inputs[k];
    in.emplace_back(t.dtype, t.shape);
    in.back().fill_random(a.seed + k);
  }
  return in;
}

// `repeat` more runs, each call timed: prints a line per call (median
// milliseconds, share of the calls' sum) and returns them as JSON. The sum
// beside the end-to-end median shows what lies between the kernels.
nlohmann::json profile_calls(graph::CompiledModel& model, const std::vector<NDArray>& in, ThreadPool& pool, int repeat,
                             std::ostream& text) {
  std::vector<std::vector<double>> seconds(model.num_calls());
  std::vector<double> run_ms;
  for (int r = 0; r < repeat; ++r) {
    std::vector<double> one;
    const auto t0 = std::chrono::steady_clock::now();
    model.run(in, pool, &one);
    run_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    for (size_t k = 0; k < one.size(); ++k) seconds[k].push_back(one[k]);
  }
  std::vector<double> ms(seconds.size());
  double sum = 0;
  for (size_t k = 0; k < seconds.size(); ++k) sum += ms[k] = median(seconds[k]) * 1e3;
  nlohmann::json calls = nlohmann::json::array();
  text << "call  kernel   median ms  share  operators\n";
  for (size_t k = 0; k < ms.size(); ++k) {
    const graph::CallInfo info = model.call_info(k);
    char line[96];
    std::snprintf(line, sizeof line, "%4zu  %-7s %10.4f %5.1f%%  ", k, info.kernel.c_str(), ms[k],
                  sum > 0 ? 100 * ms[k] / sum : 0.0);
    text << line << info.name << "\n";
    calls.push_back({{"kernel", info.kernel}, {"name", info.name}, {"median_ms", ms[k]}});
  }
  text << "sum of the calls' medians " << sum << " ms; end to end, timed with them, median " << median(run_ms)
       << " ms\n";
  // The calls' time by what they do (graph::task_kind), heaviest first.
  std::map<std::string, double> by_kind;
  for (size_t k = 0; k < ms.size(); ++k) by_kind[graph::task_kind(model.call_info(k).name)] += ms[k];
  std::vector<std::pair<std::string, double>> kinds(by_kind.begin(), by_kind.end());
  std::sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  nlohmann::json kind_json = nlohmann::json::object();
  text << "kind         median ms  share\n";
  for (const auto& [kind, kms] : kinds) {
    char line[64];
    std::snprintf(line, sizeof line, "%-11s %10.4f %5.1f%%\n", kind.c_str(), kms, sum > 0 ? 100 * kms / sum : 0.0);
    text << line;
    kind_json[kind] = kms;
  }
  return {{"calls", calls}, {"kinds", kind_json}, {"sum_ms", sum}, {"median_ms", median(run_ms)}};
}

void write_outputs(const ModelArgs& a, const std::vector<NDArray>& out, const std::vector<graph::TensorInfo>& info) {
  if (a.outputs.empty()) return;
  std::filesystem::create_directories(a.outputs);
  for (size_t k = 0; k < out.size(); ++k) {
    const std::string path = (std::filesystem::path(a.outputs) / ("output_" + std::to_string(k) + ".pb")).string();
    std::ofstream f(path, std::ios::binary);
    f << graph::tensor_to_bytes(out[k], info[k].name);
    if (!f) KILN_USER_ERROR() << "cannot write " << path;
  }
}

// With --check: the reference executor on the same inputs
// (graph/reference.h), compared as ONNX's node tests compare but with the
// absolute floor at kModelAtol of the output's largest magnitude. A deep
// model's outputs include elements that are near-cancelled sums of far
// larger terms, where any other summation order errs by more than 1e-3 of
// the element: resnet18 at 32² in blocked channels put 0.000389828 for
// 0.000389305 in an output whose largest element is 0.32 (3.3e-6 of it,
// as close to PyTorch's output as the reference itself is). Returns the
// first mismatch, or "".
std::string check_outputs(const ModelProgram& program, const std::vector<NDArray>& in, const std::vector<NDArray>& out) {
  constexpr double kModelAtol = 1e-4;
  std::vector<NDArray> want = graph::run_reference(program.imported, in);
  for (size_t k = 0; k < out.size(); ++k) {
    double largest = 0;
    for (int64_t i = 0; i < want[k].numel(); ++i) largest = std::max(largest, std::abs(want[k].get(i)));
    std::string mismatch = graph::compare_output(out[k], want[k], k, 1e-3, std::max(1e-7, kModelAtol * largest));
    if (!mismatch.empty()) return mismatch;
  }
  return "";
}

// What --check prints, a native model's or a WebAssembly one's.
std::string check_line(const std::string& mismatch) {
  return "check against the reference executor (|got - want| <= 1e-4 max|want| + 1e-3 |want|): " +
         (mismatch.empty() ? std::string("ok") : mismatch) + "\n";
}

// A model compiled for WebAssembly runs in Node.js through the folder's own
// kiln_model.js: the inputs handed over as raw bytes, the outputs read back
// the same way, the latency as Node.js timed it.
void run_wasm_model(const ModelArgs& a, const std::string& dir, const graph::CompiledModelPlan& plan,
                    const std::optional<ModelProgram>& program) {
  const std::string node = find_on_path("node");
  if (node.empty()) KILN_USER_ERROR() << dir << " is a WebAssembly model, which runs in Node.js: node is not on PATH";
  const TempDir io_dir("kiln-run-io");
  const std::string& io = io_dir.path();
  const std::vector<NDArray> in = read_inputs(plan.inputs, a);
  for (size_t k = 0; k < plan.inputs.size(); ++k) {
    std::ofstream f((std::filesystem::path(io) / ("input_" + std::to_string(k) + ".bin")).string(), std::ios::binary);
    f.write(static_cast<const char*>(in[k].data()), static_cast<std::streamsize>(in[k].nbytes()));
  }
  const std::string log = io + "/node.log";
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) KILN_USER_ERROR() << "cannot write " << log;
  rpc::ChildProcess child = rpc::ChildProcess::spawn(
      {node, (std::filesystem::path(dir) / "kiln_model.js").string(), dir, "--inputs", io, "--outputs", io,
       "--repeat", std::to_string(a.repeat)},
      {}, fd);
  ::close(fd);
  child.wait_or_kill(24 * 3600 * 1000);
  const std::string said = read_file(log);
  if (child.exit_status() != 0) KILN_USER_ERROR() << "running " << dir << " in Node.js failed (" << child.exit_description() << "):\n" << said;
  const nlohmann::json times = nlohmann::json::parse(said.substr(said.rfind('\n', said.size() - 2) + 1));
  std::vector<NDArray> out;
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    out.emplace_back(plan.outputs[k].dtype, plan.outputs[k].shape);
    const std::string bytes = read_file((std::filesystem::path(io) / ("output_" + std::to_string(k) + ".bin")).string());
    if (bytes.size() != out.back().nbytes()) KILN_USER_ERROR() << "Node.js wrote " << bytes.size() << " bytes of output " << k;
    std::memcpy(out.back().data(), bytes.data(), bytes.size());
  }
  write_outputs(a, out, plan.outputs);
  const std::string mismatch = a.check ? check_outputs(*program, in, out) : "";
  const double med = times.at("median_ms").get<double>(), best = times.at("best_ms").get<double>();
  std::ostream& text = a.json ? std::cerr : std::cout;
  const int threads = Target::parse(plan.target).num_cores();
  text << dir << ": WebAssembly in Node.js, latency median " << med << " ms, best " << best << " ms over " << a.repeat
       << " runs on " << threads << (threads == 1 ? " thread\n" : " threads\n");
  if (a.check)
    text << check_line(mismatch);
  if (a.json)
    std::cout << nlohmann::json{{"model", a.model}, {"median_ms", med}, {"best_ms", best}, {"repeat", a.repeat},
                                {"threads", threads}, {"target", plan.target}, {"engine", "node"},
                                {"check", a.check ? nlohmann::json(mismatch.empty() ? "ok" : mismatch)
                                                  : nlohmann::json(nullptr)}}
                     .dump()
              << "\n";
  if (!mismatch.empty()) KILN_USER_ERROR() << "the compiled model's outputs differ from the reference: " << mismatch;
}

void run_model(const ModelArgs& a) {
  std::string dir = a.model;
  std::optional<TempDir> temp;
  std::optional<ModelProgram> program;  // when compiled from an .onnx file here
  if (std::filesystem::is_regular_file(a.model)) {
    temp.emplace("kiln-run");
    dir = temp->path();
    program = compile_into(a, dir, a.json ? std::cerr : std::cout);
  }
  if (const graph::CompiledModelPlan plan = graph::read_compiled_model_plan(dir); graph::is_wasm_target(plan.target))
    return run_wasm_model(a, dir, plan, program);
  graph::CompiledModel model = graph::CompiledModel::load(dir);
  const Target target = Target::parse(model.target());
  ThreadPool pool(a.threads > 0 ? a.threads : target.num_cores());
  std::vector<NDArray> in = read_inputs(model.inputs(), a);
  std::vector<NDArray> out = model.run(in, pool);  // the outputs
  warm_up([&] { model.run(in, pool); });
  const double round_trip_ns = thread_round_trip_ns(pool);  // where the host put the threads (thread_distance.h)
  std::vector<double> ms;
  for (int r = 0; r < a.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    model.run(in, pool);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const nlohmann::json profile = a.profile ? profile_calls(model, in, pool, std::max(a.repeat, 1), a.json ? std::cerr : std::cout)
                                           : nlohmann::json(nullptr);
  write_outputs(a, out, model.outputs());
  const std::string mismatch = a.check ? check_outputs(*program, in, out) : "";
  const double med = median(ms), best = ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
  std::ostream& text = a.json ? std::cerr : std::cout;
  text << dir << ": " << model.num_calls() << " kernel calls, arena " << model.arena_bytes() << " bytes, "
       << "latency median " << med << " ms, best " << best << " ms over " << a.repeat << " runs on "
       << pool.num_threads() << " threads";
  if (round_trip_ns > 0) text << " (a cache line's round trip between them: " << std::lround(round_trip_ns) << " ns)";
  text << "\n";
  if (a.check)
    text << check_line(mismatch);
  if (a.json)
    std::cout << nlohmann::json{{"model", a.model}, {"median_ms", med}, {"best_ms", best}, {"repeat", a.repeat},
                                {"threads", pool.num_threads()}, {"thread_round_trip_ns", round_trip_ns},
                                {"arena_bytes", model.arena_bytes()},
                                {"calls", model.num_calls()}, {"target", model.target()},
                                {"profile", profile},
                                {"check", a.check ? nlohmann::json(mismatch.empty() ? "ok" : mismatch)
                                                  : nlohmann::json(nullptr)}}
                     .dump()
              << "\n";
  if (!mismatch.empty()) KILN_USER_ERROR() << "the compiled model's outputs differ from the reference: " << mismatch;
}

}  // namespace

void add_compile(CLI::App& app) {
  auto a = std::make_shared<ModelArgs>();
  CLI::App* cmd = app.add_subcommand("compile", "compile an ONNX model, with its tuned schedules, into a folder kiln run loads");
  cmd->add_option("model", a->model, "the .onnx file")->required();
  cmd->add_option("-o,--out", a->out, "the folder to write (kernels.so, model.json, weights.bin)")->required();
  add_model_options(cmd, *a);
  cmd->callback([a] { compile_into(*a, a->out, std::cout); });
}

void add_run(CLI::App& app) {
  auto a = std::make_shared<ModelArgs>();
  CLI::App* cmd = app.add_subcommand("run", "run a compiled model (or compile an ONNX model and run it) and time it");
  cmd->add_option("model", a->model, "a folder kiln compile wrote, or an .onnx file")->required();
  add_model_options(cmd, *a);
  cmd->add_option("--inputs", a->inputs, "read input_0.pb, input_1.pb, ... (ONNX TensorProto) from this folder; default: random");
  cmd->add_option("--outputs", a->outputs, "write output_0.pb, ... (ONNX TensorProto) into this folder");
  cmd->add_option("--repeat", a->repeat, "timed runs, after a quarter of a second of untimed ones")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--profile", a->profile, "then as many runs again, each kernel call timed: a line per call");
  cmd->add_option("--threads", a->threads, "threads (default: the target's cores)");
  cmd->add_option("--seed", a->seed, "seed of the random inputs");
  cmd->add_flag("--check", a->check, "with an .onnx model: compare the outputs with the reference executor");
  cmd->add_flag("--json", a->json, "print one JSON object as the last line of stdout");
  cmd->callback([a] {
    if (a->check && !std::filesystem::is_regular_file(a->model))
      KILN_USER_ERROR() << "kiln run --check needs the .onnx model, not a compiled folder";
    run_model(*a);
  });
}

}  // namespace kiln::cli
