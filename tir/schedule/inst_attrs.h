// Instruction attributes: the plain values of a recorded call (a block's
// name, a tile's level count, an annotation's key and value), one type per
// shape of call, as decisions (decision.h) are one type per kind of draw.
//
// The search reads them for every candidate it considers (a tile sample's
// level count and innermost bound, an annotation's key, a categorical
// draw's candidates), so they are fields with names, not positions in a
// JSON array: a rule that reorders or adds an attribute changes a struct,
// and every reader that depended on the old shape stops compiling instead
// of reading the wrong value. The JSON form (docs/schedule_trace.md, the
// "attrs" array) exists only at a trace's edges: Trace::to_json writes it
// with attrs_json, Trace::from_json reads it with the kind's read_attrs,
// which checks every field and throws kiln::Error naming the one at fault.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace kiln {

// Which of a block's buffer lists an index refers to.
enum class BufferRole { kRead, kWrite };

// An annotation value: an integer or a string.
using AnnValue = std::variant<int64_t, std::string>;

// Kinds whose call has no plain values (split, fuse, reorder, get_loops, ...).
struct NoAttrs {
  bool operator==(const NoAttrs&) const = default;
};

// get_block: the block's name.
struct BlockNameAttrs {
  std::string name;
  bool operator==(const BlockNameAttrs&) const = default;
};

// bind: the thread tag ("blockIdx.x", "threadIdx.y", ...).
struct BindAttrs {
  std::string thread;
  bool operator==(const BindAttrs&) const = default;
};

// annotate: the key, and the value unless a sampled handle (the
// instruction's second input) gives it.
struct AnnotateAttrs {
  std::string key;
  std::optional<AnnValue> value;
  bool operator==(const AnnotateAttrs&) const = default;
};

// cache_read, cache_write, set_scope: which read or write of the block, and
// the storage scope ("global", "local", "shared").
struct BufferScopeAttrs {
  int64_t index = 0;
  std::string scope;
  bool operator==(const BufferScopeAttrs&) const = default;
};

// rfactor: where the factored axis goes in the new buffer.
struct RFactorAttrs {
  int64_t factor_axis = 0;
  bool operator==(const RFactorAttrs&) const = default;
};

// sample_perfect_tile, sample_tile: how many factors, and the largest the
// innermost may be (0: no bound).
struct TileSampleAttrs {
  int64_t levels = 0;
  int64_t max_innermost = 0;
  bool operator==(const TileSampleAttrs&) const = default;
};

// sample_categorical: the values one of which is drawn, with their weights.
struct CategoricalAttrs {
  std::vector<int64_t> candidates;
  std::vector<double> probabilities;
  bool operator==(const CategoricalAttrs&) const = default;
};

// storage_align: the write buffer's axis padded so that its stride is
// offset modulo factor.
struct StorageAlignAttrs {
  int64_t write_index = 0;
  int64_t axis = 0;
  int64_t factor = 0;
  int64_t offset = 0;
  bool operator==(const StorageAlignAttrs&) const = default;
};

// transform_layout: which buffer of the block, and the index map's text.
struct LayoutAttrs {
  BufferRole role = BufferRole::kWrite;
  int64_t index = 0;
  std::string index_map;
  bool operator==(const LayoutAttrs&) const = default;
};

// tensorize: the tensor intrinsic's name (tir/tensor_intrin.h).
struct TensorizeAttrs {
  std::string intrin;
  bool operator==(const TensorizeAttrs&) const = default;
};

using InstAttrs = std::variant<NoAttrs, BlockNameAttrs, BindAttrs, AnnotateAttrs, BufferScopeAttrs, RFactorAttrs,
                               TileSampleAttrs, CategoricalAttrs, StorageAlignAttrs, LayoutAttrs, TensorizeAttrs>;

// The JSON array a trace file holds for `a`.
nlohmann::json attrs_json(const InstAttrs& a);

// A 64-bit hash of `a`, equal for equal attributes; what Trace::fingerprint
// mixes in for every instruction, without building JSON.
uint64_t hash_attrs(const InstAttrs& a);

// The readers of the JSON forms, one per type (InstructionKind::read_attrs).
// Each throws kiln::Error saying which attribute is wrong.
template <typename A>
InstAttrs attrs_from_json(const nlohmann::json& j);
#define KILN_DECLARE_ATTRS_FROM_JSON(A) \
  template <>                      \
  InstAttrs attrs_from_json<A>(const nlohmann::json& j);
KILN_DECLARE_ATTRS_FROM_JSON(NoAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(BlockNameAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(BindAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(AnnotateAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(BufferScopeAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(RFactorAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(TileSampleAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(CategoricalAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(StorageAlignAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(LayoutAttrs)
KILN_DECLARE_ATTRS_FROM_JSON(TensorizeAttrs)
#undef KILN_DECLARE_ATTRS_FROM_JSON

}  // namespace kiln
