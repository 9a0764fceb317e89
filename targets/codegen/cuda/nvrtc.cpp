#include "targets/codegen/cuda/nvrtc.h"

#include <nvrtc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.h"
#include "core/temp_dir.h"

namespace kiln {
namespace {

// Owns an nvrtcProgram.
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

std::string log_of(nvrtcProgram p) {
  size_t n = 0;
  nvrtcGetProgramLogSize(p, &n);
  std::string log(n, '\0');
  if (n) nvrtcGetProgramLog(p, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::string compile_cuda_to_ptx(const std::string& source, const std::string& arch, const std::string& name) {
  Program prog;
  nvrtcResult r = nvrtcCreateProgram(&prog.p, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) KILN_USER_ERROR() << name << ": NVRTC: " << nvrtcGetErrorString(r);
  const std::string arch_flag = "--gpu-architecture=compute_" + arch.substr(arch.find('_') + 1);
  std::vector<const char*> flags = {arch_flag.c_str(), "--std=c++17", "-default-device"};
  r = nvrtcCompileProgram(prog.p, static_cast<int>(flags.size()), flags.data());
  if (r != NVRTC_SUCCESS)
    KILN_USER_ERROR() << name << ": NVRTC cannot compile it for " << arch << " (" << nvrtcGetErrorString(r) << "):\n"
                      << log_of(prog.p);
  size_t n = 0;
  nvrtcGetPTXSize(prog.p, &n);
  std::string ptx(n, '\0');
  nvrtcGetPTX(prog.p, ptx.data());
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

std::string ptxas_errors(const std::string& ptx, const std::string& arch) {
  const char* env = std::getenv("KILN_PTXAS");
  const std::string ptxas = env && *env ? env : KILN_PTXAS;
  const TempDir temp("kiln-ptx");
  const std::filesystem::path dir = temp.path();
  std::ofstream(dir / "kernel.ptx") << ptx;
  const std::string cmd = "'" + ptxas + "' -arch=" + arch + " '" + (dir / "kernel.ptx").string() + "' -o '" +
                          (dir / "kernel.cubin").string() + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) KILN_USER_ERROR() << "cannot run ptxas (" << ptxas << ")";
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 127))
    KILN_USER_ERROR() << "cannot run ptxas (" << ptxas << "): " << out;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return out.empty() ? "ptxas failed" : out;
}

}  // namespace kiln
