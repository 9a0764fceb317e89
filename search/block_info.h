// What the schedule rules ask about a block of the function being scheduled:
// its iteration kinds, what each of its loops iterates, who consumes it.
#pragma once

#include <string>
#include <vector>

#include "tir/stmt.h"

namespace kiln::search {

// What a loop above a block drives: spatial iter vars only, reduce iter vars
// only, both, or none of the block's iter vars.
enum class LoopRole { kSpatial, kReduce, kMixed, kUnused };

struct BlockInfo {
  std::string name;
  const BlockNode* block = nullptr;
  bool has_reduce = false;
  bool has_spatial = false;
  bool writes_param = false;  // an output of the function
  bool is_root = false;       // the function's root block
  // Some read region leaves a spatial iter var out: the read is reused
  // across that axis, what multi-level tiling exploits.
  bool has_data_reuse = false;
  // The read (an index into the block's reads) that packing copies into
  // panels: a function parameter whose last dimension is indexed by the
  // innermost spatial iter var alone (what the vector loads read) and that
  // some other spatial iter var leaves out (other tiles read it again):
  // matmul's B[k, j]. -1: none.
  int packable_read = -1;
  // Injective: no reduction, one store at exactly its iter vars (an
  // elementwise op, padding, a broadcast): a candidate for inlining, or for
  // fusion into its producer's tiles as an epilogue.
  bool is_injective = false;
};

// Throws kiln::Error when no block is called `name`.
BlockInfo block_info(const PrimFunc& f, const std::string& name);

// The roles of `loops` (loop variables above the block, outermost first).
std::vector<LoopRole> loop_roles(const PrimFunc& f, const std::string& block, const std::vector<Var>& loops);

// Blocks that read what `block` writes, in program order.
std::vector<std::string> consumers(const PrimFunc& f, const std::string& block);

// The root block's name.
std::string root_block(const PrimFunc& f);

// All blocks but the root, in program order.
std::vector<std::string> blocks_in_order(const PrimFunc& f);

}  // namespace kiln::search
