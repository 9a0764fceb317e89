#include "core/paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/error.h"

namespace kiln {

std::string kiln_share_dir() {
  if (const char* env = std::getenv("KILN_SHARE_DIR"); env && *env) return env;
  std::filesystem::path exe;
  if (const char* env = std::getenv("KILN_BINARY"); env && *env) {
    exe = env;
  } else {
    std::error_code ec;
    exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  }
  return (exe.parent_path().parent_path() / "share" / "kiln").string();
}

std::string kiln_share_file(const std::string& name) {
  const std::string path = (std::filesystem::path(kiln_share_dir()) / name).string();
  if (access(path.c_str(), R_OK) != 0)
    KILN_USER_ERROR() << "kiln's file " << path << " is missing (set KILN_SHARE_DIR to the folder that holds it)";
  return path;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path p = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

}  // namespace kiln
