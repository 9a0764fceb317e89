#include "targets/target.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <cctype>
#include <charconv>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "targets/codegen/llvm/cpu_info.h"

namespace kiln {

struct Target::Data {
  std::string kind;
  std::string mtriple, mcpu;
  std::vector<std::string> mattr;
  int num_cores = 1;
  int vscale = 0;
  bool fp_contract = true;
  std::string arch;
  GpuLimits gpu;
  std::vector<std::string> features;  // llvm: every enabled feature, sorted
  std::string canonical;
};

namespace {

// "-key=value" options after the kind, in the order given, each at most once.
std::map<std::string, std::string> parse_options(const std::vector<std::string>& tokens) {
  std::map<std::string, std::string> opts;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    size_t eq = tok.find('=');
    if (tok.size() < 2 || tok[0] != '-' || eq == std::string::npos || eq == 1)
      KILN_USER_ERROR() << "malformed target option '" << tok << "': expected -name=value";
    std::string key = tok.substr(1, eq - 1);
    std::string value = tok.substr(eq + 1);
    if (value.empty()) KILN_USER_ERROR() << "target option -" << key << " has an empty value";
    if (!opts.emplace(key, value).second) KILN_USER_ERROR() << "target option -" << key << " given twice";
  }
  return opts;
}

void check_allowed(const std::string& kind, const std::map<std::string, std::string>& opts,
                   std::initializer_list<const char*> allowed) {
  for (const auto& [key, value] : opts) {
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }) == allowed.end())
      KILN_USER_ERROR() << "unknown option -" << key << " for target kind " << kind;
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

int parse_num_cores(const std::string& s) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || ptr != s.data() + s.size() || n <= 0)
    KILN_USER_ERROR() << "-num-cores must be a positive integer, not '" << s << "'";
  return n;
}

// A positive integer option up to `max`, or `fallback` when absent.
int64_t positive_option(const std::map<std::string, std::string>& opts, const std::string& name, int64_t fallback,
                        int64_t max = std::numeric_limits<int64_t>::max()) {
  auto it = opts.find(name);
  if (it == opts.end()) return fallback;
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != it->second.size() || v <= 0)
    KILN_USER_ERROR() << "-" << name << " must be a positive integer, not '" << it->second << "'";
  if (v > max) KILN_USER_ERROR() << "-" << name << "=" << v << " is more than " << max;
  return v;
}

void parse_llvm(Target::Data& d, std::map<std::string, std::string> opts) {
  check_allowed(d.kind, opts, {"mtriple", "mcpu", "mattr", "num-cores", "fp-contract", "vscale"});
  const std::string host_triple = llvm_backend::process_triple();
  d.mtriple = opts.count("mtriple") ? llvm_backend::checked_triple(opts["mtriple"]) : host_triple;
  const bool foreign = d.mtriple != host_triple;

  std::string cpu = opts.count("mcpu") ? opts["mcpu"] : "native";
  std::vector<std::string> user_attrs;
  if (opts.count("mattr")) {
    user_attrs = split(opts["mattr"], ',');
    llvm_backend::check_features(d.mtriple, user_attrs);
  }
  if (cpu == "native") {
    if (foreign && opts.count("mcpu")) KILN_USER_ERROR() << "-mcpu=native with foreign triple " << d.mtriple;
    if (foreign) {
      d.mcpu = "generic";
    } else {
      d.mcpu = llvm_backend::host_cpu_name();
      d.mattr = llvm_backend::host_feature_delta(d.mtriple, d.mcpu);
    }
  } else {
    llvm_backend::check_cpu(d.mtriple, cpu);
    d.mcpu = cpu;
  }
  d.mattr.insert(d.mattr.end(), user_attrs.begin(), user_attrs.end());
  d.features = llvm_backend::enabled_features(d.mtriple, d.mcpu, d.mattr);

  unsigned hw = std::thread::hardware_concurrency();
  // WebAssembly runs on one thread unless told (its threads need shared
  // memory and workers, which not every runtime gives).
  const int default_cores = llvm_backend::is_wasm(d.mtriple) ? 1 : static_cast<int>(std::max(1u, hw));
  d.num_cores = opts.count("num-cores") ? parse_num_cores(opts["num-cores"]) : default_cores;
  auto has = [&](const char* f) { return std::binary_search(d.features.begin(), d.features.end(), std::string(f)); };
  if (llvm_backend::is_wasm(d.mtriple) && d.num_cores > 1 && !(has("atomics") && has("bulk-memory")))
    KILN_USER_ERROR() << "wasm32 with -num-cores=" << d.num_cores
                      << " needs -mattr=+atomics,+bulk-memory: its threads share the module's memory";

  if (opts.count("vscale")) {
    d.vscale = static_cast<int>(positive_option(opts, "vscale", 0, 16));
    if (!has("sve"))
      KILN_USER_ERROR() << "-vscale=" << d.vscale << " needs SVE: " << d.mtriple << " -mcpu=" << d.mcpu
                        << " has no sve (add -mattr=+sve)";
  }

  if (opts.count("fp-contract")) {
    const std::string& v = opts["fp-contract"];
    if (v != "on" && v != "off") KILN_USER_ERROR() << "-fp-contract must be on or off, not '" << v << "'";
    d.fp_contract = v == "on";
  }

  std::ostringstream os;
  os << "llvm";
  if (foreign) os << " -mtriple=" << d.mtriple;
  os << " -mcpu=" << d.mcpu;
  if (!d.mattr.empty()) {
    os << " -mattr=";
    for (size_t i = 0; i < d.mattr.size(); ++i) os << (i ? "," : "") << d.mattr[i];
  }
  if (d.vscale) os << " -vscale=" << d.vscale;
  os << " -num-cores=" << d.num_cores;
  if (!d.fp_contract) os << " -fp-contract=off";
  d.canonical = os.str();
}

// The limits every CUDA GPU of compute capability 7.0 and newer shares;
// what differs is the shared memory a kernel may opt in to.
GpuLimits cuda_limits(int sm) {
  GpuLimits g;
  g.max_threads_per_block = 1024;
  g.max_shared_memory_per_block = 48 * 1024;
  g.warp_size = 32;
  g.max_registers_per_thread = 255;
  g.max_threads_per_dim[0] = g.max_threads_per_dim[1] = 1024;
  g.max_threads_per_dim[2] = 64;
  g.max_blocks_per_dim[0] = (int64_t{1} << 31) - 1;
  g.max_blocks_per_dim[1] = g.max_blocks_per_dim[2] = 65535;
  int64_t opt_in_kib = 96;                    // 7.0, 7.2
  if (sm == 75) opt_in_kib = 64;              // Turing
  if (sm == 80 || sm == 87) opt_in_kib = 163; // A100, Orin
  if (sm == 86 || sm == 89) opt_in_kib = 99;  // GA10x, Ada
  if (sm >= 90) opt_in_kib = 227;             // Hopper and newer
  g.max_dynamic_shared_memory_per_block = opt_in_kib * 1024;
  return g;
}

void parse_cuda(Target::Data& d, std::map<std::string, std::string> opts) {
  check_allowed(d.kind, opts, {"arch"});
  d.canonical = "cuda";
  int sm = 70;
  if (opts.count("arch")) {
    const std::string& a = opts["arch"];
    bool ok = a.size() > 3 && a.compare(0, 3, "sm_") == 0 && std::isdigit(static_cast<unsigned char>(a[3]));
    for (size_t i = 3; ok && i < a.size(); ++i)
      ok = std::isdigit(static_cast<unsigned char>(a[i])) || (i + 1 == a.size() && a[i] == 'a');
    if (!ok) KILN_USER_ERROR() << "-arch must look like sm_90, not '" << a << "'";
    const char* digits_end = a.data() + a.size() - (a.back() == 'a' ? 1 : 0);
    if (std::from_chars(a.data() + 3, digits_end, sm).ec != std::errc())
      KILN_USER_ERROR() << "-arch=" << a << ": no such compute capability";
    if (sm < 70) KILN_USER_ERROR() << "-arch=" << a << ": kiln generates CUDA code for sm_70 and newer";
    d.arch = a;
    d.canonical += " -arch=" + a;
  }
  d.gpu = cuda_limits(sm);
}

// OpenCL devices differ too much for one table: by default what almost any
// GPU allows (256 work-items and 32 KiB of local memory per work-group, the
// standard's minimum for the latter), and what the device allows when the
// target string says.
void parse_opencl(Target::Data& d, const std::map<std::string, std::string>& opts) {
  check_allowed(d.kind, opts, {"max-threads-per-block", "max-shared-memory-per-block"});
  GpuLimits g;
  g.max_threads_per_block = static_cast<int>(positive_option(opts, "max-threads-per-block", 256, std::numeric_limits<int>::max()));
  g.max_shared_memory_per_block = positive_option(opts, "max-shared-memory-per-block", 32 * 1024);
  g.max_dynamic_shared_memory_per_block = g.max_shared_memory_per_block;
  g.warp_size = 1;
  for (int& t : g.max_threads_per_dim) t = g.max_threads_per_block;
  for (int64_t& b : g.max_blocks_per_dim) b = (int64_t{1} << 31) - 1;
  d.gpu = g;
  d.canonical = "opencl";
  if (g.max_threads_per_block != 256) d.canonical += " -max-threads-per-block=" + std::to_string(g.max_threads_per_block);
  if (g.max_shared_memory_per_block != 32 * 1024)
    d.canonical += " -max-shared-memory-per-block=" + std::to_string(g.max_shared_memory_per_block);
}

}  // namespace

Target Target::parse(const std::string& s) {
  // Asking LLVM about CPUs and features costs milliseconds, and the same few
  // strings are parsed over and over (every record of a tuning database names
  // one): remember each valid string's result. Strings come from peers too
  // (an artifact's target, a submitted job), so the cache is bounded: past
  // kMaxCached strings it starts again.
  constexpr size_t kMaxCached = 256;
  static std::mutex mu;
  static auto* cache = new std::map<std::string, std::shared_ptr<const Data>>();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(s);
    if (it != cache->end()) return Target(it->second);
  }
  Target t = parse_uncached(s);
  std::lock_guard<std::mutex> lock(mu);
  if (cache->size() >= kMaxCached) cache->clear();
  cache->emplace(s, t.d_);
  return t;
}

Target Target::parse_uncached(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> tokens;
  for (std::string tok; is >> tok;) tokens.push_back(tok);
  if (tokens.empty()) KILN_USER_ERROR() << "empty target string";

  auto d = std::make_shared<Data>();
  d->kind = tokens[0];
  auto opts = parse_options(tokens);
  if (d->kind == "llvm") {
    parse_llvm(*d, std::move(opts));
  } else if (d->kind == "wasm32") {
    // Shorthand for the LLVM target of 32-bit WebAssembly, which it
    // prints as (docs/targets.md, "WebAssembly").
    check_allowed(d->kind, opts, {"mattr", "num-cores", "fp-contract"});
    d->kind = "llvm";
    opts["mtriple"] = "wasm32-unknown-unknown";
    opts["mcpu"] = "generic";
    parse_llvm(*d, std::move(opts));
  } else if (d->kind == "cuda") {
    parse_cuda(*d, std::move(opts));
  } else if (d->kind == "opencl") {
    parse_opencl(*d, opts);
  } else {
    KILN_USER_ERROR() << "unknown target kind '" << d->kind << "' (expected llvm, wasm32, cuda or opencl)";
  }
  return Target(std::move(d));
}

Target Target::host() { return parse("llvm"); }

const std::string& Target::kind() const { return d_->kind; }
const std::string& Target::mtriple() const { return d_->mtriple; }
const std::string& Target::mcpu() const { return d_->mcpu; }
const std::vector<std::string>& Target::mattr() const { return d_->mattr; }
int Target::num_cores() const { return d_->num_cores; }
int Target::vscale() const { return d_->vscale; }
bool Target::fp_contract() const { return d_->fp_contract; }
const std::string& Target::arch() const { return d_->arch; }

const GpuLimits& Target::gpu_limits() const {
  KILN_ICHECK(!is_cpu()) << "gpu_limits() of the CPU target " << str();
  return d_->gpu;
}
std::string Target::str() const { return d_->canonical; }

bool Target::has_feature(const std::string& name) const {
  return std::binary_search(d_->features.begin(), d_->features.end(), name);
}

const std::vector<std::string>& Target::features() const { return d_->features; }

std::vector<std::string> Target::isa_features() const {
  const std::vector<std::string> detectable = llvm_backend::isa_feature_names(mtriple());
  std::vector<std::string> out;
  std::set_intersection(features().begin(), features().end(), detectable.begin(), detectable.end(),
                        std::back_inserter(out));
  return out;
}

std::string Target::cannot_run_on(const Target& device) const {
  if (kind() != device.kind()) return "a " + kind() + " kernel cannot run on a " + device.kind() + " device";
  if (!is_cpu()) {
    if (arch() != device.arch()) return "built for " + arch() + ", the device is " + device.arch();
    const GpuLimits &mine = gpu_limits(), &theirs = device.gpu_limits();
    if (mine.max_threads_per_block > theirs.max_threads_per_block)
      return "built for blocks of up to " + std::to_string(mine.max_threads_per_block) +
             " threads, the device runs up to " + std::to_string(theirs.max_threads_per_block);
    if (mine.max_shared_memory_per_block > theirs.max_shared_memory_per_block)
      return "built for up to " + std::to_string(mine.max_shared_memory_per_block) +
             " bytes of shared memory per block, the device has " + std::to_string(theirs.max_shared_memory_per_block);
    return "";
  }
  if (mtriple() != device.mtriple()) return "built for " + mtriple() + ", the device is " + device.mtriple();
  if (vscale() != 0 && vscale() != device.vscale())
    return "built for SVE vectors of " + std::to_string(128 * vscale()) + " bits, the device's are " +
           (device.vscale() ? std::to_string(128 * device.vscale()) + " bits" : "not fixed (-vscale)");
  std::vector<std::string> missing, mine = isa_features(), theirs = device.isa_features();
  std::set_difference(mine.begin(), mine.end(), theirs.begin(), theirs.end(), std::back_inserter(missing));
  if (missing.empty()) return "";
  std::string s = "needs CPU features the device lacks:";
  for (const std::string& f : missing) s += " " + f;
  return s;
}

int Target::vector_width_bits(DataType t) const {
  if (!is_cpu()) return t.bits();
  const bool small_int = !t.is_float() && t.bits() < 32;
  if (has_feature("avx512f") && (!small_int || has_feature("avx512bw"))) return 512;
  if (has_feature("avx2") || (has_feature("avx") && t.is_float())) return 256;
  if (vscale() > 0) return 128 * vscale();
  if (llvm_backend::is_wasm(mtriple())) return has_feature("simd128") ? 128 : t.bits();
  if (has_feature("sse2") || has_feature("neon")) return 128;
  return std::max(64, t.bits());
}

int Target::vector_registers() const {
  if (has_feature("avx512f") || llvm_backend::is_aarch64(mtriple())) return 32;
  return 16;
}

int Target::vector_lanes(DataType t) const { return std::max(1, vector_width_bits(t) / std::max(1, t.bits())); }

std::string Target::llvm_features() const {
  std::string s;
  for (const std::string& f : d_->mattr) s += (s.empty() ? "" : ",") + f;
  return s;
}

}  // namespace kiln
