#include "support/scratch.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace kiln::testing {
namespace {

class ScratchDir {
 public:
  ScratchDir() : owner_(getpid()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kiln-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    path_ = tmpl;
  }
  // Only the process that made it removes it: a forked child (a death
  // test) exits through here too.
  ~ScratchDir() {
    std::error_code ec;
    if (getpid() == owner_) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  pid_t owner_;
  std::filesystem::path path_;
};

}  // namespace

std::string scratch_path(const std::string& name) {
  static ScratchDir dir;
  const std::string p = (dir.path() / name).string();
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p + suffix, ec);
  return p;
}

}  // namespace kiln::testing
