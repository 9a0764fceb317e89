// storage_align: pad one stride of an intermediate buffer, so that the rows
// of a tile do not all map to the same cache set (CPU) or shared-memory bank
// (GPU).
//
//   S = T.alloc_buffer((64, 64))     sch.storage_align(b, 0, 0, 32, 1)
//   S[i, j] -> S_flat[i * 64 + j]    ->   S[i, j] -> S_flat[i * 65 + j]
//
// The stride of dimension `axis` becomes the next value congruent to
// `offset` modulo `factor` (strides of outer dimensions build on it); the
// buffer is then declared with align_axis/align_factor/align_offset, which
// flatten_buffers and the interpreter honour. Indices and results do not
// change, only addresses, so any allocated buffer may be aligned; a parameter
// keeps the caller's dense layout. A buffer carries one alignment: aligning
// it on another axis replaces the earlier one.
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

PrimFunc align_buffer(const PrimFunc& f, const Located& blk, int index, int axis, int64_t factor, int64_t offset) {
  const char* const P = "storage_align";
  const BlockNode* b = block_of(blk.stmt);
  const Buffer buf = region_buffer(P, b, /*is_write=*/true, index);
  if (is_param(f, buf)) throw BadArgumentError(P, "buffer '" + buf.name() + "' is a parameter of the function");
  if (axis < 0 || axis >= buf.ndim())
    throw BadArgumentError(P, "buffer '" + buf.name() + "' written by block '" + b->name + "' has " +
                                  std::to_string(buf.ndim()) + " dimensions, no axis " + std::to_string(axis));
  if (factor <= 0)
    throw BadArgumentError(P, "factor " + std::to_string(factor) + " for buffer '" + buf.name() + "' is not positive");
  if (offset < 0 || offset >= factor)
    throw BadArgumentError(P, "offset " + std::to_string(offset) + " for buffer '" + buf.name() + "' is outside [0, " +
                                  std::to_string(factor) + ")");
  if (buf->align_axis == axis && buf->align_factor == factor && buf->align_offset == offset) return f;
  auto n = std::make_shared<BufferNode>(*buf);
  n->align_axis = axis;
  n->align_factor = factor;
  n->align_offset = offset;
  n->validate();
  Buffer aligned{ObjectPtr(std::move(n))};
  return f.with_body(redeclare_buffer(f.body(), buf, aligned));
}

}  // namespace

void Schedule::storage_align(BlockRV block, int write_index, int axis, int64_t factor, int64_t offset) {
  update(align_buffer(func_, block_location(block, "storage_align"), write_index, axis, factor, offset),
         "storage_align");
  record(inst::storage_align, {block.rv()}, StorageAlignAttrs{write_index, axis, factor, offset}, {});
}

namespace inst {
const InstructionKind storage_align{
    .name = "storage_align",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      replay::expect_inputs(in, 1);
      const StorageAlignAttrs& a = replay::attrs<StorageAlignAttrs>(attrs, "storage_align");
      sch.storage_align(replay::block(in, 0), static_cast<int>(a.write_index), static_cast<int>(a.axis), a.factor,
                        a.offset);
      return std::vector<RV>{};
    },
    .read_attrs = attrs_from_json<StorageAlignAttrs>};
}  // namespace inst
}  // namespace kiln
