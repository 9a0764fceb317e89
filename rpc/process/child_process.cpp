#include "rpc/process/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

#include "core/error.h"

extern char** environ;

namespace kiln::rpc {
namespace {

// A close-on-exec copy of fd above the range children receive descriptors
// in: dup2 onto the fd it already is would keep close-on-exec set, and one
// handed fd could be another's target.
int high_copy(int fd) {
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 64);
  if (copy < 0) KILN_USER_ERROR() << "fcntl: " << std::strerror(errno);
  return copy;
}

int high_cloexec(int fd) {
  int moved = high_copy(fd);
  close(fd);
  return moved;
}

}  // namespace

std::string signal_description(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* desc = sigdescr_np(sig);
  std::string s = "signal " + std::to_string(sig);
  if (abbrev) {
    s += " (SIG" + std::string(abbrev);
    if (desc) {
      std::string d = desc;
      if (!d.empty()) d[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(d[0])));
      s += ", " + d;
    }
    s += ")";
  }
  return s;
}

ChildProcess ChildProcess::spawn(const std::vector<std::string>& argv_in, const std::vector<int>& fds,
                                 int stdout_fd) {
  int life[2];
  if (pipe2(life, O_CLOEXEC) != 0) KILN_USER_ERROR() << "pipe: " << std::strerror(errno);
  int life_read = high_cloexec(life[0]);
  int life_write = high_cloexec(life[1]);
  const int life_child_fd = 3 + static_cast<int>(fds.size());

  std::vector<std::string> argv_s = argv_in;
  argv_s.push_back("--lifeline-fd=" + std::to_string(life_child_fd));
  std::vector<char*> argv;
  for (std::string& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  std::vector<int> sources;
  for (int fd : fds) sources.push_back(high_copy(fd));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  for (size_t i = 0; i < sources.size(); ++i)
    posix_spawn_file_actions_adddup2(&actions, sources[i], 3 + static_cast<int>(i));
  posix_spawn_file_actions_adddup2(&actions, life_read, life_child_fd);
  // The child starts with default signal handling whatever its parent set.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  // Its own process group: a Ctrl-C at the terminal reaches the tuner, which
  // finishes its batch and stops, not the workers in the middle of it. The
  // lifeline still ends them when the tuner exits.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(life_read);
  for (int fd : sources) close(fd);
  if (rc != 0) {
    close(life_write);
    KILN_USER_ERROR() << "cannot start " << argv_s[0] << ": " << std::strerror(rc);
  }
  ChildProcess c;
  c.pid_ = pid;
  c.lifeline_ = life_write;
  return c;
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept { *this = std::move(o); }

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    if (started()) kill();
    pid_ = std::exchange(o.pid_, -1);
    lifeline_ = std::exchange(o.lifeline_, -1);
    status_ = o.status_;
    exit_ = std::move(o.exit_);
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (started()) kill();
}

void ChildProcess::reaped(int status) {
  status_ = status;
  if (WIFSIGNALED(status)) exit_ = "killed by " + signal_description(WTERMSIG(status));
  else exit_ = "exited with status " + std::to_string(WEXITSTATUS(status));
  pid_ = -1;
  if (lifeline_ >= 0) close(lifeline_);
  lifeline_ = -1;
}

bool ChildProcess::running() {
  if (!started()) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped(status);
    return false;
  }
  return true;
}

void ChildProcess::kill() {
  if (!started()) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped(status);
}

void ChildProcess::wait_or_kill(int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void watch_lifeline(int fd) {
  std::thread([fd] {
    char c;
    for (;;) {
      ssize_t n = read(fd, &c, 1);
      if (n == 0 || (n < 0 && errno != EINTR)) _exit(0);
    }
  }).detach();
}

std::optional<std::string> read_line_after(int fd, const std::string& prefix, int timeout_ms, std::string& seen) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  for (;;) {
    for (size_t at = seen.find(prefix); at != std::string::npos; at = seen.find(prefix, at + 1)) {
      if (at != 0 && seen[at - 1] != '\n') continue;
      const size_t end = seen.find('\n', at);
      if (end != std::string::npos) return seen.substr(at + prefix.size(), end - at - prefix.size());
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    seen.append(buf, static_cast<size_t>(n));
  }
}

std::optional<std::string> spawn_until_line(ChildProcess& child, const std::vector<std::string>& argv,
                                            const std::string& prefix, int timeout_ms, std::string& seen) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) KILN_USER_ERROR() << "pipe failed";
  try {
    child = ChildProcess::spawn(argv, {}, out[1]);
  } catch (...) {
    close(out[0]);
    close(out[1]);
    throw;
  }
  close(out[1]);
  std::optional<std::string> line = read_line_after(out[0], prefix, timeout_ms, seen);
  close(out[0]);
  return line;
}

std::string kiln_binary() {
  if (const char* env = std::getenv("KILN_BINARY"); env && *env) return env;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "kiln";
  if (self.filename() == "kiln") return self.string();
  return (self.parent_path() / "kiln").string();
}

}  // namespace kiln::rpc
