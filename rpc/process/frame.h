// Messages between a process and its workers: frames on a stream socket,
// each a 4-byte little-endian length and that many bytes (a serialised
// protobuf). Reads take a deadline, so a parent waiting on a hung worker
// gets control back; writes never raise SIGPIPE on a dead peer.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace kiln::rpc {

// A socketpair for a parent and one child: {parent's end, child's end},
// both close-on-exec (ChildProcess::spawn hands the child its end).
std::pair<int, int> frame_socket_pair();

// Writes one frame; false when the peer is gone.
bool write_frame(int fd, const std::string& payload);

enum class FrameRead { kOk, kClosed, kTimeout };

// Reads one frame into `out`, waiting until `deadline` if given, forever
// otherwise. kClosed: the peer closed its end (or sent a torn frame).
FrameRead read_frame(int fd, std::string& out,
                     std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

}  // namespace kiln::rpc
