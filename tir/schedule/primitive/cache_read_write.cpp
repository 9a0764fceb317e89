// cache_read, cache_write: route a block's reads or writes of a buffer
// through a new buffer in another storage scope, with a copy block.
//
//   cache_write(C, 0, "local"):            cache_read(C, 1, "global") (B):
//     for i, j, k:                           for ax0, ax1: block B_global: B_global[..] = B[..]
//       block C: C_local[..] += ...          for i, j, k:
//     for ax0, ax1:                            block C: C[..] += A[..] * B_global[..]
//       block C_local: C[..] = C_local[..]
//
// The copy covers the whole buffer and sits right after (cache_write) or
// right before (cache_read) the nest that holds the block; compute_at and
// reverse_compute_at then move it where it pays, and lowering shrinks the
// cache to the part used (tir/transform). The cache is allocated by the
// block that encloses the nest.
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

struct CacheResult {
  PrimFunc func;
  std::string copy_block;
};

// A block copying all of `src` into `dst`, with its loop nest.
Stmt copy_nest(const std::string& name, const Buffer& src, const Buffer& dst) {
  std::vector<IterVar> ivs;
  std::vector<Var> loops;
  std::vector<Expr> idx;
  for (int d = 0; d < src.ndim(); ++d) {
    DataType t = src.shape()[d].dtype();
    loops.emplace_back("ax" + std::to_string(d), t);
    Var v("v" + std::to_string(d), t);
    ivs.emplace_back(v, Range::from_extent(src.shape()[d]), IterType::kSpatial);
    idx.push_back(v);
  }
  BlockFields f;
  f.name = name;
  f.iter_vars = ivs;
  f.body = buffer_store(dst, buffer_load(src, idx), idx);
  Stmt nest = block_realize(std::vector<Expr>(loops.begin(), loops.end()), Expr(), block_with_regions(f));
  for (int d = src.ndim(); d-- > 0;)
    nest = for_loop(loops[d], int_imm(loops[d].dtype(), 0), src.shape()[d], ForKind::kSerial, nest);
  return nest;
}

CacheResult cache(const PrimFunc& f, const Located& blk, int index, const std::string& scope, bool is_write) {
  const char* const P = is_write ? "cache_write" : "cache_read";
  check_storage_scope(P, scope);
  const BlockNode* b = block_of(blk.stmt);
  const Buffer buf = region_buffer(P, b, is_write, index);
  if (!is_write) {
    for (const BufferRegion& w : b->writes)
      if (w.buffer().same_as(buf))
        throw BadArgumentError(P, "block '" + b->name + "' also writes '" + buf.name() + "'; use cache_write");
  }
  Stmt encl_stmt;
  const BlockNode* encl = enclosing_block(blk, &encl_stmt);
  if (!encl) throw BadArgumentError(P, "block '" + b->name + "' is not inside another block");
  if (is_write) {
    std::string other = block_accessing(encl->body, buf, /*writes=*/true, b);
    if (!other.empty())
      throw NotSingleWriterError(P, "buffer '" + buf.name() + "' is also written by block '" + other + "'");
  }

  {
    // The copy runs before (after) the block's whole nest: no other block in
    // that nest may write (read) the buffer.
    if (!block_accessing(top_of_nest(blk), buf, /*writes=*/!is_write, b).empty())
      throw DependentLoopError(P, "buffer '" + buf.name() + "' is " + (is_write ? "read" : "written") +
                                      " by another block in the loop nest of block '" + b->name + "'");
  }
  Buffer cache_buf(buf.name() + "_" + scope, buf.dtype(), buf.shape(), scope);
  const std::string copy_name = unique_block_name(f.body(), cache_buf.name());
  Stmt copy = is_write ? copy_nest(copy_name, cache_buf, buf) : copy_nest(copy_name, buf, cache_buf);

  const auto* realize = blk.stmt.as<BlockRealizeNode>();
  BlockFields nb = fields_of(b);
  Stmt new_block = replace_buffer(block(nb), buf, cache_buf);
  Stmt new_realize = block_realize(realize->iter_values, realize->predicate, new_block);
  Stmt top = top_of_nest(blk);
  Stmt new_top = replace_stmt(top, blk.stmt, new_realize);
  Stmt placed = is_write ? seq({new_top, copy}) : seq({copy, new_top});
  std::vector<Buffer> allocs = encl->alloc_buffers;
  allocs.push_back(cache_buf);
  Stmt new_encl = block_with_body(encl_stmt, replace_stmt(encl->body, top, placed), allocs);
  return {f.with_body(replace_stmt(f.body(), encl_stmt, new_encl)), copy_name};
}

}  // namespace

BlockRV Schedule::cache_read(BlockRV block, int read_index, const std::string& scope) {
  CacheResult r = cache(func_, block_location(block, "cache_read"), read_index, scope, false);
  update(r.func, "cache_read");
  BlockRV out = make_block_rv(r.copy_block);
  record(inst::cache_read, {block.rv()}, BufferScopeAttrs{read_index, scope}, {out.rv()});
  return out;
}

BlockRV Schedule::cache_write(BlockRV block, int write_index, const std::string& scope) {
  CacheResult r = cache(func_, block_location(block, "cache_write"), write_index, scope, true);
  update(r.func, "cache_write");
  BlockRV out = make_block_rv(r.copy_block);
  record(inst::cache_write, {block.rv()}, BufferScopeAttrs{write_index, scope}, {out.rv()});
  return out;
}

namespace inst {
namespace {
template <BlockRV (Schedule::*Method)(BlockRV, int, const std::string&)>
std::vector<RV> apply_cache(Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs,
                            const Decision&) {
  replay::expect_inputs(in, 1);
  const BufferScopeAttrs& a = replay::attrs<BufferScopeAttrs>(attrs, "cache_read/cache_write");
  return {(sch.*Method)(replay::block(in, 0), static_cast<int>(a.index), a.scope).rv()};
}
}  // namespace
const InstructionKind cache_read{.name = "cache_read",
                                 .is_sampling = false,
                                 .apply = apply_cache<&Schedule::cache_read>,
                                 .read_attrs = attrs_from_json<BufferScopeAttrs>};
const InstructionKind cache_write{.name = "cache_write",
                                  .is_sampling = false,
                                  .apply = apply_cache<&Schedule::cache_write>,
                                  .read_attrs = attrs_from_json<BufferScopeAttrs>};
}  // namespace inst
}  // namespace kiln
