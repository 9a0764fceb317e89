// Child processes of kiln's own (a runner, a worker) and their lifetimes.
//
// A child is started with posix_spawn, so nothing but exec runs between
// fork and exec in a parent full of threads (gRPC, thread pools). It gets
// exactly the descriptors it is handed, at fds 3, 4, ... in order, and its
// standard streams; everything else kiln opens is close-on-exec.
//
// A child must never outlive its parent, however the parent ends (even
// SIGKILL, which no handler sees). Each child is handed a lifeline: the read
// end of a pipe whose only write end the parent holds. The child watches it
// (watch_lifeline) and exits the moment it reads end-of-file, which the
// kernel delivers when the parent dies, whatever it was doing itself (a
// worker stuck in a hung kernel included). PR_SET_PDEATHSIG would not do:
// it fires when the spawning *thread* exits, and gRPC retires threads.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace kiln::rpc {

class ChildProcess {
 public:
  ChildProcess() = default;
  // Starts argv[0] (a path) with `fds` placed at 3, 4, ... and a lifeline
  // at the fd after them, whose number is appended to argv as
  // "--lifeline-fd=N". stdout goes to `stdout_fd` when >= 0. Throws
  // kiln::Error naming the program when it cannot be started.
  static ChildProcess spawn(const std::vector<std::string>& argv, const std::vector<int>& fds, int stdout_fd = -1);

  ChildProcess(ChildProcess&& o) noexcept;
  ChildProcess& operator=(ChildProcess&& o) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Kills and reaps the child if it still runs.
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }
  // Whether it has not exited yet (reaps it if it has).
  bool running();
  // SIGKILL, then waits for it.
  void kill();
  // Waits for the child to exit, at most `timeout_ms`; then kills it.
  void wait_or_kill(int timeout_ms);
  // How it ended: "exited with status 3", "killed by signal 11 (SIGSEGV,
  // segmentation fault)"; empty while it runs.
  const std::string& exit_description() const { return exit_; }
  // The raw status from waitpid, valid once it has ended.
  int exit_status() const { return status_; }

 private:
  void reaped(int status);
  pid_t pid_ = -1;
  int lifeline_ = -1;  // the write end: closing it tells the child to go
  int status_ = 0;
  std::string exit_;
};

// Reads fd (a child's stdout) until a whole line starting with `prefix`
// has arrived, for at most timeout_ms: what follows the prefix on that line;
// nullopt on timeout or end-of-file. `seen` gets everything read, to show
// what a child said instead.
std::optional<std::string> read_line_after(int fd, const std::string& prefix, int timeout_ms, std::string& seen);

// Starts argv as spawn() does, its stdout into a pipe read until a line
// starting with `prefix` (read_line_after): what follows the prefix, or
// nullopt (then `seen` holds what it printed). The child's later output is
// discarded: it should print nothing more to stdout.
std::optional<std::string> spawn_until_line(ChildProcess& child, const std::vector<std::string>& argv,
                                            const std::string& prefix, int timeout_ms, std::string& seen);

// In a child: exits the process (status 0) as soon as the lifeline fd reads
// end-of-file. Starts a detached thread; returns at once.
void watch_lifeline(int fd);

// "SIGSEGV, segmentation fault" for 11.
std::string signal_description(int sig);

// The kiln executable to start runners and workers from: $KILN_BINARY if
// set, this process if it is kiln, else "kiln" beside this executable
// (a test or bench binary in the same bin/ folder).
std::string kiln_binary();

}  // namespace kiln::rpc
