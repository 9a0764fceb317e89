// Running the kiln binary as a user would, for the CLI tests.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace kiln::testing {

struct CliRun {
  int code;
  std::string out;  // stdout and stderr together
};

// Runs `kiln ARGS` through the shell (so ARGS may quote and redirect).
inline CliRun kiln(const std::string& args) {
  std::string cmd = std::string(KILN_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of('\n');
  size_t start = s.rfind('\n', end);
  size_t from = start == std::string::npos ? 0 : start + 1;
  return s.substr(from, end - from + 1);
}

}  // namespace kiln::testing
