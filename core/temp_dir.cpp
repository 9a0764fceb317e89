#include "core/temp_dir.h"

#include <stdlib.h>

#include <filesystem>

#include "core/error.h"

namespace kiln {

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    KILN_USER_ERROR() << "cannot create a folder under " << std::filesystem::temp_directory_path().string();
  return pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace kiln
