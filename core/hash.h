// The hash pieces kiln's hashes share: structural hashing (structural.h)
// and trace fingerprints (tir/schedule/trace.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln {

// h with v folded in (boost::hash_combine's rule, on 64 bits). Structural
// hashes are built from it and name workloads in databases: never change it.
inline uint64_t hash_combine(uint64_t h, uint64_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

// FNV-1a of the bytes of s: the same in every process and build.
inline uint64_t hash_string(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

}  // namespace kiln
