#include "graph/compiled_model.h"

#include <chrono>
#include <cstring>
#include <map>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/paths.h"
#include "core/json.h"
#include "graph/memory_plan.h"
#include "graph/passes.h"
#include "targets/build.h"
#include "targets/codegen/llvm/build_llvm.h"
#include "targets/codegen/llvm/cpu_info.h"
#include "targets/runtime/arguments.h"
#include "targets/lower.h"
#include "targets/runtime/shared_library.h"
#include "tir/transform/split_prepack.h"

namespace kiln::graph {

using nlohmann::json;

namespace {

constexpr const char* kLibrary = "kernels.so";
// A wasm32 model's: its kernels as one module, and the JavaScript that runs
// it (targets/wasm/), copied beside it.
constexpr const char* kWasmModule = "kernels.wasm";
constexpr const char* kWasmScripts[] = {"kiln_wasm.js", "kiln_model.js"};
constexpr const char* kPlan = "model.json";
constexpr const char* kWeights = "weights.bin";

std::string kernel_name(size_t task) { return "task" + std::to_string(task); }

json tensor_json(const Value& v) { return {{"name", v.name}, {"dtype", v.dtype.str()}, {"shape", v.shape}}; }

// A weight packed at compile time (tir/transform/split_prepack.h): its
// data and its description in the plan.
struct PackedWeight {
  NDArray data;
  json info;
};

// A task's pack, compiled once on the host and run on each call's
// weight: the layout does not depend on the target, so the host's code
// packs for any.
class Packer {
 public:
  explicit Packer(const Prepack& pack) : packed_(arg_specs(pack.func).at(1)) {
    const Target host = Target::host();
    kernel_ = build(lower(pack.func, host), host);
  }

  PackedWeight run(const Value& weight) {
    KILN_ICHECK(weight.is_constant()) << "a pack of " << weight.name << ", which is not a constant";
    PackedWeight out{NDArray(packed_.dtype, packed_.shape), {}};
    const int32_t status = kernel_->call({const_cast<void*>(weight.data->data()), out.data.data()}, pool_);
    KILN_ICHECK(status == 0) << "the pack of " << weight.name << " failed with status " << status;
    out.info = {{"name", weight.name + ".packed"}, {"dtype", packed_.dtype.str()}, {"shape", packed_.shape}};
    return out;
  }

 private:
  ArgSpec packed_;
  std::unique_ptr<CompiledKernel> kernel_;
  ThreadPool pool_{1};
};

}  // namespace

void write_compiled_model(const Graph& g, const std::vector<FusedGroup>& groups, const std::vector<Task>& tasks,
                          const std::vector<PrimFunc>& scheduled, const Target& target, const std::string& dir,
                          int threads) {
  KILN_ICHECK(scheduled.size() == tasks.size()) << "a schedule per task";
  std::filesystem::create_directories(dir);

  // The kernels: each task's function, lowered, under the task's kernel
  // name; its weights' packs taken out and run here, once per call, and
  // the packed weights stored in the weights' place.
  std::vector<PrimFunc> kernels;
  std::vector<std::vector<int>> call_args(groups.size());
  std::map<int, PackedWeight> packed;  // by the value id a call passes
  int next_id = static_cast<int>(g.values.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    const Task& task = tasks[t];
    for (size_t k = 0; k < task.groups.size(); ++k) call_args[task.groups[k]] = task.args[k];
    std::vector<size_t> constants;
    for (int p : constant_params(g, task)) constants.push_back(static_cast<size_t>(p));
    const SplitPrepack split = split_prepack(scheduled[t], constants);
    for (const Prepack& pack : split.packs) {
      Packer packer(pack);
      for (size_t k = 0; k < task.groups.size(); ++k) {
        int& arg = call_args[task.groups[k]][pack.param];
        packed[next_id] = packer.run(g.value(arg));
        arg = next_id++;
      }
    }
    PrimFunc lowered = lower(split.main, target);
    kernels.emplace_back(kernel_name(t), lowered->params, lowered->body, lowered->attrs);
  }
  const bool wasm = llvm_backend::is_wasm(target.mtriple());
  export_shared_library(kernels, target, (std::filesystem::path(dir) / (wasm ? kWasmModule : kLibrary)).string(),
                        threads);
  if (wasm)
    for (const char* script : kWasmScripts)
      std::filesystem::copy_file(kiln_share_file(script), std::filesystem::path(dir) / script,
                                 std::filesystem::copy_options::overwrite_existing);

  // Where each value lives.
  const MemoryPlan plan = plan_memory(g, groups);
  std::map<int, json> storage;
  for (size_t k = 0; k < g.inputs.size(); ++k) storage[g.inputs[k]] = {{"kind", "input"}, {"index", k}};
  std::ofstream weights((std::filesystem::path(dir) / kWeights).string(), std::ios::binary);
  int64_t weight_bytes = 0;
  auto place = [&](int id) {
    if (storage.count(id)) return;
    auto p = packed.find(id);
    const NDArray* constant = p != packed.end() ? &p->second.data : g.value(id).data.get();
    if (constant) {
      const int64_t bytes = static_cast<int64_t>(constant->nbytes());
      storage[id] = {{"kind", "weight"}, {"offset", weight_bytes}};
      weights.write(static_cast<const char*>(constant->data()), bytes);
      const int64_t padded = (bytes + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment;
      for (int64_t i = bytes; i < padded; ++i) weights.put('\0');
      weight_bytes += padded;
      return;
    }
    const int64_t offset = plan.offset[static_cast<size_t>(id)];
    if (offset != MemoryPlan::kNotPlanned) storage[id] = {{"kind", "arena"}, {"offset", offset}};
  };
  for (size_t k = 0; k < g.outputs.size(); ++k)
    if (!storage.count(g.outputs[k]) && !g.value(g.outputs[k]).is_constant())
      storage[g.outputs[k]] = {{"kind", "output"}, {"index", k}};
  // A view of an input is that input: its storage, and no call.
  for (const FusedGroup& gr : groups)
    if (is_input_view(g, gr)) storage[gr.outputs[0]] = storage.at(gr.inputs[0]);
  // The calls in the groups' order: each group's task, and its arguments.
  std::vector<size_t> task_of(groups.size(), tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t)
    for (size_t group : tasks[t].groups) task_of[group] = t;
  json calls = json::array();
  for (size_t group = 0; group < groups.size(); ++group) {
    const size_t t = task_of[group];
    if (t == tasks.size()) continue;  // a view of an input
    for (int id : call_args[group]) place(id);
    calls.push_back({{"kernel", kernel_name(t)}, {"name", tasks[t].name}, {"args", call_args[group]}});
  }
  for (int id : g.outputs) place(id);  // an output that is a constant
  if (!weights) KILN_USER_ERROR() << "cannot write " << (std::filesystem::path(dir) / kWeights).string();

  json values = json::object();
  for (const auto& [id, where] : storage) {
    auto p = packed.find(id);
    json v = p != packed.end() ? p->second.info : tensor_json(g.value(id));
    v["storage"] = where;
    values[std::to_string(id)] = v;
  }
  json doc = {{"kiln_compiled_model", kCompiledModelVersion},
              {"target", target.str()},
              {"kernels", tasks.size()},
              {"inputs", g.inputs},
              {"outputs", g.outputs},
              {"values", values},
              {"calls", calls},
              {"arena_bytes", plan.arena_bytes},
              {"weight_bytes", weight_bytes}};
  std::ofstream out((std::filesystem::path(dir) / kPlan).string());
  out << doc.dump(1) << "\n";
  if (!out) KILN_USER_ERROR() << "cannot write " << (std::filesystem::path(dir) / kPlan).string();
}

// ---------------------------------------------------------------------------

namespace {

enum class Kind { kInput, kOutput, kWeight, kArena };

struct Slot {
  TensorInfo info;
  Kind kind = Kind::kArena;
  int64_t at = 0;  // the input or output index, or the byte offset
  size_t bytes = 0;
};

TensorInfo tensor_info_of(const json& v) {
  return {v.at("name").get<std::string>(), DataType::parse(v.at("dtype").get<std::string>()),
          v.at("shape").get<std::vector<int64_t>>()};
}

json read_plan(const std::string& dir) {
  const std::string plan_path = (std::filesystem::path(dir) / kPlan).string();
  std::ifstream in(plan_path);
  if (!in) KILN_USER_ERROR() << "not a compiled model: cannot read " << plan_path;
  try {
    json doc = json::parse(in);
    if (doc.at("kiln_compiled_model").get<int>() != kCompiledModelVersion)
      KILN_USER_ERROR() << plan_path << ": written by another version of kiln (format "
                        << doc.at("kiln_compiled_model").dump() << ", this one reads " << kCompiledModelVersion
                        << "); compile it again";
    return doc;
  } catch (const json::exception& e) {
    KILN_USER_ERROR() << plan_path << ": corrupt: " << e.what();
  }
}

struct Call {
  size_t kernel;
  std::string name;  // the group's operators, for profiles
  std::vector<const Slot*> args;  // resolved at load: a run looks nothing up
};

}  // namespace

struct CompiledModel::Impl {
  std::string dir, target;
  std::vector<std::unique_ptr<CompiledKernel>> kernels;
  std::map<int, Slot> slots;
  std::vector<int> inputs, outputs;
  std::vector<TensorInfo> input_info, output_info;
  std::vector<Call> calls;
  NDArray weights, arena;
  int64_t arena_bytes = 0;

  [[noreturn]] void fail(const std::string& file, const std::string& what) const {
    KILN_USER_ERROR() << (std::filesystem::path(dir) / file).string() << ": " << what;
  }
};

bool is_wasm_target(const std::string& target) { return llvm_backend::is_wasm(Target::parse(target).mtriple()); }

CompiledModelPlan read_compiled_model_plan(const std::string& dir) {
  const json doc = read_plan(dir);
  try {
    CompiledModelPlan p;
    p.target = doc.at("target").get<std::string>();
    const json& values = doc.at("values");
    for (int id : doc.at("inputs").get<std::vector<int>>()) p.inputs.push_back(tensor_info_of(values.at(std::to_string(id))));
    for (int id : doc.at("outputs").get<std::vector<int>>()) p.outputs.push_back(tensor_info_of(values.at(std::to_string(id))));
    return p;
  } catch (const json::exception& e) {
    KILN_USER_ERROR() << (std::filesystem::path(dir) / kPlan).string() << ": corrupt: " << e.what();
  }
}

CompiledModel::CompiledModel() : impl_(std::make_unique<Impl>()) {}
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;
CompiledModel::~CompiledModel() = default;

CompiledModel CompiledModel::load(const std::string& dir) {
  CompiledModel m;
  Impl& s = *m.impl_;
  s.dir = dir;
  const json doc = read_plan(dir);
  try {
    s.target = doc.at("target").get<std::string>();
    s.arena_bytes = doc.at("arena_bytes").get<int64_t>();
    for (const auto& [key, v] : doc.at("values").items()) {
      Slot slot;
      slot.info = tensor_info_of(v);
      static const std::map<std::string, Kind> kinds = {
          {"input", Kind::kInput}, {"output", Kind::kOutput}, {"weight", Kind::kWeight}, {"arena", Kind::kArena}};
      const std::string kind = v.at("storage").at("kind").get<std::string>();
      auto known = kinds.find(kind);
      if (known == kinds.end()) s.fail(kPlan, "value " + key + " lives in '" + kind + "'");
      slot.kind = known->second;
      const bool indexed = slot.kind == Kind::kInput || slot.kind == Kind::kOutput;
      slot.at = v.at("storage").at(indexed ? "index" : "offset").get<int64_t>();
      int64_t numel = 1;
      for (int64_t d : slot.info.shape) numel *= d;
      slot.bytes = static_cast<size_t>(numel) * static_cast<size_t>(slot.info.dtype.bytes());
      s.slots[std::stoi(key)] = std::move(slot);
    }
    auto slot_of = [&](int id) -> const Slot& {
      auto it = s.slots.find(id);
      if (it == s.slots.end()) s.fail(kPlan, "value " + std::to_string(id) + " is used but not described");
      return it->second;
    };
    s.inputs = doc.at("inputs").get<std::vector<int>>();
    s.outputs = doc.at("outputs").get<std::vector<int>>();
    for (int id : s.inputs) s.input_info.push_back(slot_of(id).info);
    for (int id : s.outputs) s.output_info.push_back(slot_of(id).info);
    const size_t num_kernels = doc.at("kernels").get<size_t>();
    if (is_wasm_target(s.target))
      s.fail(kPlan, "a model compiled for WebAssembly (" + s.target + "): it runs in Node.js or a browser through " +
                        "its kiln_model.js (`kiln run` starts Node.js for it)");
    const std::string lib = (std::filesystem::path(dir) / kLibrary).string();
    for (size_t k = 0; k < num_kernels; ++k) s.kernels.push_back(load_shared_library(lib, kernel_name(k)));
    for (const json& c : doc.at("calls")) {
      const std::string name = c.at("kernel").get<std::string>();
      size_t k = 0;
      while (k < num_kernels && kernel_name(k) != name) ++k;
      if (k == num_kernels) s.fail(kPlan, "a call of kernel '" + name + "', which the library does not hold");
      const std::vector<int> ids = c.at("args").get<std::vector<int>>();
      if (ids.size() != s.kernels[k]->params().size())
        s.fail(kPlan, "a call of '" + name + "' with " + std::to_string(ids.size()) + " arguments; it takes " +
                          std::to_string(s.kernels[k]->params().size()));
      Call call{k, c.value("name", name), {}};
      for (int id : ids) call.args.push_back(&slot_of(id));
      s.calls.push_back(std::move(call));
    }
  } catch (const json::exception& e) {
    s.fail(kPlan, std::string("corrupt: ") + e.what());
  }

  const std::string weights_path = (std::filesystem::path(dir) / kWeights).string();
  const auto weight_bytes = static_cast<int64_t>(doc.at("weight_bytes").get<int64_t>());
  std::error_code ec;
  const auto size = std::filesystem::file_size(weights_path, ec);
  if (ec || static_cast<int64_t>(size) != weight_bytes)
    s.fail(kWeights, "holds " + (ec ? std::string("nothing readable") : std::to_string(size) + " bytes") + ", the plan says " +
                         std::to_string(weight_bytes));
  s.weights = NDArray(DataType::UInt(8), {std::max<int64_t>(weight_bytes, 1)});
  std::ifstream w(weights_path, std::ios::binary);
  w.read(static_cast<char*>(s.weights.data()), weight_bytes);
  if (!w) s.fail(kWeights, "cannot be read");
  for (const auto& [id, slot] : s.slots) {
    const bool in_weights = slot.kind == Kind::kWeight;
    if ((in_weights || slot.kind == Kind::kArena) &&
        slot.at + static_cast<int64_t>(slot.bytes) > (in_weights ? weight_bytes : s.arena_bytes))
      s.fail(kPlan, "value '" + slot.info.name + "' lies past the end of the " + (in_weights ? "weights" : "arena"));
  }
  s.arena = NDArray(DataType::UInt(8), {std::max<int64_t>(s.arena_bytes, 1)});
  return m;
}

const std::vector<TensorInfo>& CompiledModel::inputs() const { return impl_->input_info; }
const std::vector<TensorInfo>& CompiledModel::outputs() const { return impl_->output_info; }
const std::string& CompiledModel::target() const { return impl_->target; }
int64_t CompiledModel::arena_bytes() const { return impl_->arena_bytes; }
size_t CompiledModel::num_calls() const { return impl_->calls.size(); }

CallInfo CompiledModel::call_info(size_t k) const {
  const Call& c = impl_->calls.at(k);
  return {impl_->kernels[c.kernel]->name(), c.name};
}

std::vector<NDArray> CompiledModel::run(const std::vector<NDArray>& inputs, ThreadPool& pool,
                                        std::vector<double>* call_seconds) {
  Impl& s = *impl_;
  if (inputs.size() != s.input_info.size())
    KILN_USER_ERROR() << "the model takes " << s.input_info.size() << " inputs, not " << inputs.size();
  for (size_t k = 0; k < inputs.size(); ++k) {
    const TensorInfo& t = s.input_info[k];
    if (inputs[k].dtype() != t.dtype || inputs[k].shape() != t.shape)
      KILN_USER_ERROR() << "input '" << t.name << "' must be " << t.dtype.str() << " of shape "
                        << json(t.shape).dump() << ", not " << inputs[k].dtype().str() << " of shape "
                        << json(inputs[k].shape()).dump();
  }
  std::vector<NDArray> outputs;
  for (const TensorInfo& t : s.output_info) outputs.emplace_back(t.dtype, t.shape);
  auto pointer = [&](const Slot& slot) -> void* {
    switch (slot.kind) {
      case Kind::kInput: return const_cast<void*>(inputs[static_cast<size_t>(slot.at)].data());
      case Kind::kOutput: return outputs[static_cast<size_t>(slot.at)].data();
      case Kind::kWeight: return static_cast<char*>(s.weights.data()) + slot.at;
      case Kind::kArena: return static_cast<char*>(s.arena.data()) + slot.at;
    }
    return nullptr;
  };
  if (call_seconds) call_seconds->resize(s.calls.size(), 0.0);
  std::vector<void*> args;
  for (size_t k = 0; k < s.calls.size(); ++k) {
    const Call& c = s.calls[k];
    args.clear();
    for (const Slot* slot : c.args) args.push_back(pointer(*slot));
    const auto start = std::chrono::steady_clock::now();
    const int32_t status = s.kernels[c.kernel]->call(args, pool);
    if (call_seconds)
      (*call_seconds)[k] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status != 0) KILN_USER_ERROR() << "kernel '" << s.kernels[c.kernel]->name() << "' failed with status " << status;
  }
  // Outputs that no call writes: a model input or a constant passed through.
  for (size_t k = 0; k < s.outputs.size(); ++k) {
    const Slot& slot = s.slots.at(s.outputs[k]);
    if (slot.kind != Kind::kOutput) std::memcpy(outputs[k].data(), pointer(slot), slot.bytes);
  }
  return outputs;
}

std::vector<NDArray> run_compiled_default(const Graph& imported, const std::vector<NDArray>& inputs,
                                          const Target& target, const std::string& dir) {
  const Graph g = run_passes(imported);
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  std::vector<PrimFunc> funcs;
  for (const Task& t : tasks) funcs.push_back(t.func);
  write_compiled_model(g, groups, tasks, funcs, target, dir, 2);
  CompiledModel model = CompiledModel::load(dir);
  ThreadPool pool(2);
  return model.run(inputs, pool);
}

}  // namespace kiln::graph
