#include "core/file.h"

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace kiln {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  if (in) os << in.rdbuf();
  if (!in || in.bad()) KILN_USER_ERROR() << "cannot read " << what << " '" << path << "'";
  return os.str();
}

}  // namespace kiln
