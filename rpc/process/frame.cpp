#include "rpc/process/frame.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace kiln::rpc {
namespace {

// Frames larger than this are a broken peer, not a message.
constexpr uint32_t kMaxFrame = 1u << 30;

// Waits until fd is readable; false on timeout.
bool wait_readable(int fd, std::optional<std::chrono::steady_clock::time_point> deadline) {
  for (;;) {
    int timeout = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
      timeout = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, timeout);
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return true;  // let read() report the error
  }
}

// Reads exactly n bytes. kClosed on end-of-file or an error.
FrameRead read_exact(int fd, char* buf, size_t n, std::optional<std::chrono::steady_clock::time_point> deadline) {
  size_t got = 0;
  while (got < n) {
    if (!wait_readable(fd, deadline)) return FrameRead::kTimeout;
    ssize_t r = read(fd, buf + got, n - got);
    if (r == 0) return FrameRead::kClosed;
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return FrameRead::kClosed;
    }
    got += static_cast<size_t>(r);
  }
  return FrameRead::kOk;
}

}  // namespace

std::pair<int, int> frame_socket_pair() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    KILN_USER_ERROR() << "socketpair: " << std::strerror(errno);
  return {sv[0], sv[1]};
}

bool write_frame(int fd, const std::string& payload) {
  KILN_ICHECK(payload.size() < kMaxFrame) << "frame of " << payload.size() << " bytes";
  uint32_t n = static_cast<uint32_t>(payload.size());
  unsigned char header[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                             static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  std::string buf(reinterpret_cast<char*>(header), 4);
  buf += payload;
  size_t sent = 0;
  while (sent < buf.size()) {
    ssize_t r = send(fd, buf.data() + sent, buf.size() - sent, MSG_NOSIGNAL);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    sent += static_cast<size_t>(r);
  }
  return true;
}

FrameRead read_frame(int fd, std::string& out, std::optional<std::chrono::steady_clock::time_point> deadline) {
  unsigned char header[4];
  FrameRead r = read_exact(fd, reinterpret_cast<char*>(header), 4, deadline);
  if (r != FrameRead::kOk) return r;
  uint32_t n = header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  if (n >= kMaxFrame) return FrameRead::kClosed;
  out.resize(n);
  return read_exact(fd, out.data(), n, deadline);
}

}  // namespace kiln::rpc
