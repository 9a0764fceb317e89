// Folders of one process's own under the system's temporary one: a
// runner's socket and work, a compiled model run once, ptxas's files, a
// test server's state. mkdtemp picks a name nobody holds, so two processes
// (or two objects of one) never share one.
#pragma once

#include <string>

namespace kiln {

// Creates TMPDIR/PREFIX-XXXXXX and returns its path. Throws kiln::Error
// naming the temporary folder when it cannot.
std::string make_temp_dir(const std::string& prefix);

// A folder made by make_temp_dir, removed with everything in it when the
// object goes (errors ignored: what is left is only in the temporary folder).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) : path_(make_temp_dir(prefix)) {}
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace kiln
