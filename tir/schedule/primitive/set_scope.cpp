// set_scope: change the storage scope of a buffer a block writes, e.g. keep
// an intermediate stage in "local" (registers) or "shared" (GPU block
// memory). Only buffers the function allocates can move; a parameter lives
// where the caller put it.
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

PrimFunc set_buffer_scope(const PrimFunc& f, const Located& blk, int index, const std::string& scope) {
  const char* const P = "set_scope";
  const BlockNode* b = block_of(blk.stmt);
  const Buffer buf = region_buffer(P, b, /*is_write=*/true, index);
  check_storage_scope(P, scope);
  if (is_param(f, buf)) throw BadArgumentError(P, "buffer '" + buf.name() + "' is a parameter of the function");
  if (buf->scope == scope) return f;
  Buffer moved = buf.with_scope(scope);
  return f.with_body(redeclare_buffer(f.body(), buf, moved));
}

}  // namespace

void Schedule::set_scope(BlockRV block, int write_index, const std::string& scope) {
  update(set_buffer_scope(func_, block_location(block, "set_scope"), write_index, scope), "set_scope");
  record(inst::set_scope, {block.rv()}, BufferScopeAttrs{write_index, scope}, {});
}

namespace inst {
const InstructionKind set_scope{
    .name = "set_scope",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      replay::expect_inputs(in, 1);
      const BufferScopeAttrs& a = replay::attrs<BufferScopeAttrs>(attrs, "set_scope");
      sch.set_scope(replay::block(in, 0), static_cast<int>(a.index), a.scope);
      return std::vector<RV>{};
    },
    .read_attrs = attrs_from_json<BufferScopeAttrs>};
}  // namespace inst
}  // namespace kiln
