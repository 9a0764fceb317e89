// transform_layout: re-index a buffer the function allocates. Every access
// buf[i, ...] becomes buf[map(i, ...)], and the buffer takes the shape of
// the map's image. Vendor libraries owe much of their speed to such layouts:
// a weight packed into panels that the inner loop reads contiguously, an
// activation in NCHWc.
//
//   cache_read(C, 1, "global") then
//   transform_layout(B_global, write 0, "lambda k, j: (j // 64, k, j % 64)"):
//     B_global = T.alloc_buffer((16, 1024, 64))
//     block B_global: B_global[v1 // 64, v0, v1 % 64] = B[v0, v1]
//     block C:        C[..] += A[v_i, v_k] * B_global[v_j // 64, v_k, v_j % 64]
//
// The map must be a permutation of splits of the old indices (index_map.h),
// so no two elements share a place and the rewrite cannot change a result.
// A parameter keeps its layout: the caller owns it.
#include "tir/buffer_rewrite.h"
#include "tir/index_map.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

PrimFunc relayout(const PrimFunc& f, const Located& blk, BufferRole role, int index, const std::string& text) {
  const char* const P = "transform_layout";
  const BlockNode* b = block_of(blk.stmt);
  const Buffer buf = region_buffer(P, b, role == BufferRole::kWrite, index);
  const std::string bname = "'" + buf.name() + "'";
  if (is_param(f, buf))
    throw BadArgumentError(P, "buffer " + bname + " is a parameter of the function; its layout is the caller's");
  if (buf->align_factor > 0)
    throw LayoutError(P, "buffer " + bname + " has a storage alignment; transform its layout first");

  std::vector<int64_t> extents;
  std::vector<DataType> dtypes;
  for (const Expr& e : buf.shape()) {
    const int64_t* c = as_const_int(e);
    if (!c) throw LayoutError(P, "buffer " + bname + " has a shape that is not constant");
    extents.push_back(*c);
    dtypes.push_back(e.dtype());
  }
  IndexMap map;
  try {
    map = IndexMap::parse(text, dtypes);
  } catch (const Error& e) {
    throw BadArgumentError(P, e.what());
  }
  if (auto why = map.check_injective(extents))
    throw LayoutError(P, "index map of buffer " + bname + ": " + *why);

  std::vector<Expr> shape;
  std::vector<int64_t> image = map.image_shape(extents);
  for (size_t d = 0; d < image.size(); ++d) shape.push_back(int_imm(map.outputs[d].dtype(), image[d]));
  Buffer moved(buf.name(), buf.dtype(), shape, buf->scope);
  auto apply = [&](const std::vector<Expr>& idx) { return map.apply(idx); };
  return f.with_body(rewrite_buffer(f.body(), {buf, moved, apply, /*allocations=*/true}));
}

}  // namespace

void Schedule::transform_layout(BlockRV block, BufferRole role, int index, const std::string& index_map) {
  update(relayout(func_, block_location(block, "transform_layout"), role, index, index_map), "transform_layout");
  record(inst::transform_layout, {block.rv()}, LayoutAttrs{role, index, index_map}, {});
}

namespace inst {
const InstructionKind transform_layout{
    .name = "transform_layout",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      replay::expect_inputs(in, 1);
      const LayoutAttrs& a = replay::attrs<LayoutAttrs>(attrs, "transform_layout");
      sch.transform_layout(replay::block(in, 0), a.role, static_cast<int>(a.index), a.index_map);
      return std::vector<RV>{};
    },
    .read_attrs = attrs_from_json<LayoutAttrs>};
}  // namespace inst
}  // namespace kiln
