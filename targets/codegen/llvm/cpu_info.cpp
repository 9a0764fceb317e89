#include "targets/codegen/llvm/cpu_info.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <memory>

#include "core/error.h"
#include "targets/codegen/llvm/llvm_init.h"

namespace kiln::llvm_backend {
namespace {

const llvm::Target* lookup(const std::string& triple) {
  ensure_llvm_initialized();
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!t) KILN_USER_ERROR() << "unknown target triple '" << triple << "'";
  return t;
}

// Subtarget info for the generic CPU: enough to list CPUs and features
// without LLVM printing warnings about names it does not know.
std::unique_ptr<llvm::MCSubtargetInfo> subtarget(const std::string& triple, const std::string& cpu,
                                                 const std::string& features) {
  const llvm::Target* t = lookup(triple);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(t->createMCSubtargetInfo(triple, cpu, features));
  KILN_ICHECK(sti) << "no subtarget info for " << triple;
  return sti;
}

bool is_known_feature(const llvm::MCSubtargetInfo& sti, llvm::StringRef name) {
  for (const llvm::SubtargetFeatureKV& f : sti.getAllProcessorFeatures())
    if (name == f.Key) return true;
  return false;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& e : v) s += (s.empty() ? "" : ",") + e;
  return s;
}

}  // namespace

std::string process_triple() { return llvm::Triple::normalize(llvm::sys::getProcessTriple()); }

std::string checked_triple(const std::string& triple) {
  ensure_llvm_initialized();
  std::string t = llvm::Triple::normalize(triple);
  std::string err;
  if (!llvm::TargetRegistry::lookupTarget(t, err)) KILN_USER_ERROR() << "unknown target triple '" << triple << "'";
  return t;
}

bool is_aarch64(const std::string& triple) { return llvm::Triple(triple).isAArch64(); }
bool is_wasm(const std::string& triple) { return llvm::Triple(triple).isWasm(); }

std::string host_cpu_name() { return llvm::sys::getHostCPUName().str(); }

void check_cpu(const std::string& triple, const std::string& cpu) {
  auto sti = subtarget(triple, "", "");
  if (!sti->isCPUStringValid(cpu)) KILN_USER_ERROR() << "unknown cpu '" << cpu << "' for " << triple;
}

void check_features(const std::string& triple, const std::vector<std::string>& mattr) {
  auto sti = subtarget(triple, "", "");
  for (const std::string& f : mattr) {
    if (f.size() < 2 || (f[0] != '+' && f[0] != '-'))
      KILN_USER_ERROR() << "malformed -mattr entry '" << f << "': expected +name or -name";
    if (!is_known_feature(*sti, llvm::StringRef(f).drop_front()))
      KILN_USER_ERROR() << "unknown feature '" << f.substr(1) << "' in -mattr for " << triple;
  }
}

std::vector<std::string> host_feature_delta(const std::string& triple, const std::string& cpu) {
  auto sti = subtarget(triple, cpu, "");
  std::vector<std::string> removed, added;
  for (const auto& kv : llvm::sys::getHostCPUFeatures()) {
    if (!is_known_feature(*sti, kv.getKey())) continue;
    const std::string name = kv.getKey().str();
    const bool on_host = kv.getValue();
    if (sti->checkFeatures(std::string("+").append(name)) == on_host) continue;
    (on_host ? added : removed).push_back(std::string(on_host ? "+" : "-").append(name));
  }
  std::sort(removed.begin(), removed.end());
  std::sort(added.begin(), added.end());
  removed.insert(removed.end(), added.begin(), added.end());
  return removed;
}

std::vector<std::string> enabled_features(const std::string& triple, const std::string& cpu,
                                          const std::vector<std::string>& mattr) {
  auto sti = subtarget(triple, cpu, join(mattr));
  std::vector<std::string> out;
  for (const llvm::SubtargetFeatureKV& f : sti->getAllProcessorFeatures()) {
    std::string name = f.Key;
    if (sti->checkFeatures(std::string("+").append(name))) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kiln::llvm_backend

namespace kiln::llvm_backend {

std::vector<std::string> isa_feature_names(const std::string& triple) {
  if (is_aarch64(triple)) return {"bf16", "dotprod", "fp-armv8", "fullfp16", "i8mm", "neon", "sme", "sve", "sve2"};
  if (is_wasm(triple)) return {"atomics", "bulk-memory", "relaxed-simd", "simd128"};
  if (triple != process_triple()) return {};
  static const std::vector<std::string> host = [] {
    std::vector<std::string> out;
    for (const auto& kv : llvm::sys::getHostCPUFeatures()) out.push_back(kv.getKey().str());
    std::sort(out.begin(), out.end());
    return out;
  }();
  return host;
}

}  // namespace kiln::llvm_backend
