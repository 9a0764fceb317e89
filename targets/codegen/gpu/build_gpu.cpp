#include "targets/codegen/gpu/build_gpu.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tir/buffer_layout.h"

namespace kiln {

std::string gpu_module_json(const GpuModule& m) {
  nlohmann::json j;
  j["kind"] = m.kind;
  j["name"] = m.name;
  j["source"] = m.source;
  j["kernels"] = nlohmann::json::array();
  for (const GpuModule::Kernel& k : m.kernels)
    j["kernels"].push_back({{"name", k.name}, {"grid", k.launch.grid}, {"block", k.launch.block}});
  j["params"] = nlohmann::json::array();
  for (const KernelParam& p : m.params)
    j["params"].push_back({{"name", p.name}, {"dtype", p.dtype.str()}, {"numel", p.numel}});
  j["scratch_bytes"] = m.scratch_bytes;
  return j.dump();
}

GpuModule parse_gpu_module(const std::string& json) {
  try {
    const nlohmann::json j = nlohmann::json::parse(json);
    GpuModule m;
    m.kind = j.at("kind").get<std::string>();
    m.name = j.at("name").get<std::string>();
    m.source = j.at("source").get<std::string>();
    for (const nlohmann::json& k : j.at("kernels"))
      m.kernels.push_back({k.at("name").get<std::string>(),
                           LaunchDims{k.at("grid").get<std::array<int64_t, 3>>(), k.at("block").get<std::array<int64_t, 3>>()}});
    for (const nlohmann::json& p : j.at("params"))
      m.params.push_back(KernelParam{p.at("name").get<std::string>(), DataType::parse(p.at("dtype").get<std::string>()),
                                     p.at("numel").get<int64_t>()});
    m.scratch_bytes = j.at("scratch_bytes").get<std::vector<int64_t>>();
    if (m.kind != "cuda" && m.kind != "opencl") KILN_USER_ERROR() << "unknown kind '" << m.kind << "'";
    return m;
  } catch (const nlohmann::json::exception& e) {
    KILN_USER_ERROR() << "malformed GPU module: " << e.what();
  }
}

GpuModule build_gpu_module(const PrimFunc& lowered, const Target& target) {
  KILN_ICHECK(target.is_gpu()) << "build_gpu_module for target " << target.str();
  const GpuProgram p = split_kernels(lowered);
  GpuModule m;
  m.kind = target.kind();
  m.name = p.name;
  m.source = gpu_source(p, target.kind() == "cuda" ? GpuDialect::kCuda : GpuDialect::kOpencl);
  for (const GpuKernel& k : p.kernels) m.kernels.push_back({k.name, k.launch});
  for (const Buffer& b : p.params) m.params.push_back(KernelParam{b.name(), b.dtype(), constant_numel(b)});
  for (const Buffer& b : p.temps) {
    const int64_t n = constant_numel(b);
    if (n < 0) KILN_USER_ERROR() << "intermediate buffer " << b.name() << " of " << p.name << " has no constant size";
    m.scratch_bytes.push_back(n * b.dtype().bytes());
  }
  return m;
}

}  // namespace kiln
