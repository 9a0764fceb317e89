// What the schedule rules ask about a block of the function being scheduled:
// its iteration kinds, what each of its loops iterates, who consumes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
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
  // Injective: no reduction, one store at exactly its iter vars (an
  // elementwise op, padding, a broadcast): a candidate for inlining, or for
  // fusion into its producer's tiles as an epilogue.
  bool is_injective = false;
  // One store at its iter vars in another order, and nothing else: a copy
  // with its layout transformed (a packed operand, `transform_layout`). It
  // may be computed under its consumer's loops as an injective block may.
  bool is_permuted_copy = false;
  // Injective or a permuted copy, and what it stores is a load: a copy of
  // another buffer (a packed operand), not a computation (padding).
  bool is_copy = false;
};

// Throws kiln::Error when no block is called `name`.
BlockInfo block_info(const PrimFunc& f, const std::string& name);

// What packing copies for a vector axis (a spatial iter var of a block):
// a read of a function parameter with a dimension indexed by that iter var
// alone (what the vector loads read, once that dimension is made the last)
// and that some other spatial iter var leaves out (other tiles read it
// again). Matmul's B[k, j] for j (dimension 1); conv2d's W[k, c, r, s] for k
// (dimension 0).
struct PackableRead {
  int read = -1;  // index into the block's reads
  int dim = -1;   // the dimension the vector axis indexes
};
std::optional<PackableRead> packable_read(const PrimFunc& f, const std::string& block, size_t iter_var);

// For each iter var of `block`: whether its read number `read` (an index
// into the block's reads, as PackableRead::read) uses it in some index.
// Conv2d's weights leave the output rows and columns out: every pixel
// reads the same weights, which a design may then read once for many.
std::vector<bool> read_uses(const PrimFunc& f, const std::string& block, size_t read);

// The dimension of the block's first written buffer that `iter_var` alone
// indexes, or -1.
int written_dim(const PrimFunc& f, const std::string& block, size_t iter_var);

// How far apart, in elements of the buffer `block` writes first (dense,
// row-major), the elements it writes on consecutive iterations of `loop`
// (a loop above it) are: 1 where the loop walks the innermost dimension,
// 0 where it moves none, nullopt where an index is not linear in it or a
// shape is not constant. A vector loop along which the block's stores
// are not contiguous becomes a scatter.
std::optional<int64_t> write_stride(const PrimFunc& f, const std::string& block, const Var& loop);
// For each iter var of `block`: for a reduce iter var, the spatial iter
// var it slides along in some read, one index holding both (conv2d's ry
// along the output row h: the input row h + ry); else -1. With rows of a
// register tile on that spatial axis and the reduce loop inside the rows'
// loops, each input row loaded serves every step of the window over it.
std::vector<int> sliding_along(const PrimFunc& f, const std::string& block);

// The bytes of a whole buffer; 0 for a shape that is not constant.
double buffer_bytes(const Buffer& b);

// For each iter var of `block`: the bytes of the buffers it reads whose
// regions that iter var indexes (whole buffers; 0 for a shape that is not
// constant). Splitting the block's iterations along the var between
// threads splits what each thread reads of those buffers; along a var
// that indexes none of them, every thread reads all of them. A read under
// a sixteenth of the largest counts for nothing: each thread reading it
// whole costs little (a depthwise convolution's 3 KB of weights beside
// its 4.8 MB of input), and it must not tip the choice between splits
// that divide the large read alike.
std::vector<double> bytes_read_along(const PrimFunc& f, const std::string& block);
// Whether the threads had better split a loop that splits `bytes_a` of
// the block's reads (bytes_read_along) and runs `extent_a` times than one
// that splits `bytes_b` and runs `extent_b`: more bytes, or as many and
// longer (finer jobs). The order in which multi-level tiling sets the S0
// tiles, and order_thread_split picks a padding stage's outer loop.
inline bool split_first(double bytes_a, int64_t extent_a, double bytes_b, int64_t extent_b) {
  return bytes_a != bytes_b ? bytes_a > bytes_b : extent_a > extent_b;
}
// The roles of `loops` (loop variables above the block, outermost first).
std::vector<LoopRole> loop_roles(const PrimFunc& f, const std::string& block, const std::vector<Var>& loops);

// For each of `loops`, the index of the block iter var bound to exactly
// that loop variable, or -1 (the loop drives an expression, or nothing).
std::vector<int> bound_iter_vars(const PrimFunc& f, const std::string& block, const std::vector<Var>& loops);

// The variables (iter vars of `consumer`) in the region of `producer`'s
// output that `consumer` reads.
std::unordered_set<const VarNode*> vars_reading(const PrimFunc& f, const std::string& consumer,
                                               const std::string& producer);

// For each loop above `consumer`, outermost first: whether the region of
// `producer`'s output that `consumer` reads changes as the loop runs. A
// producer computed under a loop its region does not change with is
// computed again, the same, on every iteration.
std::vector<bool> read_changes_with_loops(const PrimFunc& f, const std::string& consumer,
                                          const std::string& producer);

// The variables an expression reads.
std::unordered_set<const VarNode*> vars_in(const Expr& e);

// Blocks that read what `block` writes, in program order.
std::vector<std::string> consumers(const PrimFunc& f, const std::string& block);

// The root block's name.
std::string root_block(const PrimFunc& f);

// All blocks but the root, in program order.
std::vector<std::string> blocks_in_order(const PrimFunc& f);

}  // namespace kiln::search
