// What LLVM knows about CPUs, asked on behalf of Target parsing: whether a
// triple, CPU or feature name exists, what the host is, and which features a
// CPU ends up with once -mattr is applied. Kept behind plain strings so that
// target.h does not pull LLVM into every module.
#pragma once

#include <string>
#include <vector>

namespace kiln::llvm_backend {

// The triple of this process, normalised.
std::string process_triple();
// Normalises a user-given triple; throws kiln::Error if LLVM has no target for it.
std::string checked_triple(const std::string& triple);
// Whether a (normalised) triple names a 64-bit Arm CPU.
bool is_aarch64(const std::string& triple);
// Whether it names 32-bit WebAssembly.
bool is_wasm(const std::string& triple);
// The host CPU's LLVM name ("sapphirerapids").
std::string host_cpu_name();
// Throws kiln::Error unless `cpu` is a processor LLVM knows for `triple`.
void check_cpu(const std::string& triple, const std::string& cpu);
// Throws kiln::Error for an -mattr entry that is not "+name"/"-name" with a
// feature LLVM knows for `triple`.
void check_features(const std::string& triple, const std::vector<std::string>& mattr);
// The host's features as changes to `cpu`'s defaults: removals first, then
// additions, each sorted by name (applying them in that order to the CPU's
// defaults gives exactly the host's set).
std::vector<std::string> host_feature_delta(const std::string& triple, const std::string& cpu);
// Every feature enabled for `cpu` with `mattr` applied, sorted.
std::vector<std::string> enabled_features(const std::string& triple, const std::string& cpu,
                                          const std::vector<std::string>& mattr);

// The features a CPU of `triple` can lack, sorted: instruction-set
// features, as opposed to LLVM's tuning flags ("prefer-256-bit",
// "fast-gather"), which no CPU lacks. For the host's triple, those it can
// be asked about (CPUID on x86); for AArch64, its vector and dot-product
// extensions.
std::vector<std::string> isa_feature_names(const std::string& triple);

}  // namespace kiln::llvm_backend
