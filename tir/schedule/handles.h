// Handles ("random variables") through which a Schedule names what it works on.
//
// A handle is a small integer into its Schedule's symbol table, not a pointer
// into the IR: the IR is immutable and every primitive builds a new function,
// so handles have to outlive the nodes they were first resolved to. A block
// handle resolves to the block's name (unique in a function), a loop handle to
// the loop's variable (a Var has identity and a loop keeps its Var through
// every primitive that does not replace it), and an expression handle to the
// integer a sampling instruction chose. The trace records handles too: an
// instruction's inputs name the outputs of earlier ones, which is what lets a
// trace replay on a fresh copy of the unscheduled function.
#pragma once

#include <cstdint>

namespace kiln {

enum class RVKind : uint8_t { kBlock, kLoop, kExpr };

struct RV {
  RVKind kind = RVKind::kBlock;
  int32_t id = -1;
  bool operator==(const RV&) const = default;
};

struct BlockRV {
  int32_t id = -1;
  RV rv() const { return {RVKind::kBlock, id}; }
};
struct LoopRV {
  int32_t id = -1;
  RV rv() const { return {RVKind::kLoop, id}; }
};
struct ExprRV {
  int32_t id = -1;
  RV rv() const { return {RVKind::kExpr, id}; }
};

}  // namespace kiln
