#include "targets/codegen/llvm/linker.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.h"
#include "core/file.h"
#include "targets/codegen/llvm/cpu_info.h"

extern char** environ;

namespace kiln::llvm_backend {
namespace {

// A temporary file removed when the object dies.
struct TempFile {
  std::string path;
  TempFile() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kiln-link-XXXXXX.log").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    int fd = mkstemps(buf.data(), 4);
    if (fd < 0) KILN_USER_ERROR() << "cannot create a temporary file: " << std::strerror(errno);
    close(fd);
    path = buf.data();
  }
  ~TempFile() { std::remove(path.c_str()); }
};

}  // namespace

std::string linker_for(const std::string& triple) {
  if (triple == process_triple()) return "cc";
  if (is_aarch64(triple) && triple.find("linux") != std::string::npos) return "aarch64-linux-gnu-gcc";
  if (is_wasm(triple) && triple.rfind("wasm32", 0) == 0) return "wasm-ld-19";
  KILN_USER_ERROR() << "cannot link a shared library for " << triple << " on this " << process_triple()
                    << " machine (kiln links for itself, aarch64-linux-gnu and wasm32)";
}

void link_shared_library(const std::vector<std::string>& object_paths, const std::string& out_path,
                         const std::string& triple, bool wasm_threads) {
  const std::string cc = linker_for(triple);
  TempFile log;
  std::vector<std::string> argv_s = {cc};
  if (is_wasm(triple)) {
    for (const char* a : {"--no-entry", "--export-dynamic", "--export=__heap_base", "--allow-undefined", "-z",
                          "stack-size=8388608", "-O2"})
      argv_s.emplace_back(a);
    if (wasm_threads)
      for (const char* a : {"--shared-memory", "--import-memory", "--initial-memory=33554432",
                            "--max-memory=4294967296", "--export-table", "--export=__stack_pointer"})
        argv_s.emplace_back(a);
    argv_s.insert(argv_s.end(), {"-o", out_path});
    argv_s.insert(argv_s.end(), object_paths.begin(), object_paths.end());
  } else {
    argv_s.insert(argv_s.end(), {"-shared", "-o", out_path});
    argv_s.insert(argv_s.end(), object_paths.begin(), object_paths.end());
    for (const char* a : {"-lm", "-Wl,-z,defs"}) argv_s.emplace_back(a);
  }
  std::vector<char*> argv;
  for (std::string& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.path.c_str(), O_WRONLY | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, cc.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) KILN_USER_ERROR() << "cannot run " << cc << " to link " << out_path << ": " << std::strerror(rc);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) KILN_USER_ERROR() << "waiting for " << cc << " to link " << out_path << ": " << std::strerror(errno);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    KILN_USER_ERROR() << "linking " << out_path << " failed: " << read_file(log.path);
}

}  // namespace kiln::llvm_backend
