// Index maps: how a re-laid-out buffer is indexed, as a function of the
// indices of the old layout.
//
//   IndexMap m = IndexMap::parse("lambda k, j: (j // 64, k, j % 64)", {i32, i32});
//   m.apply({vk, vj});            // {vj // 64, vk, vj % 64}
//   m.check_injective({1024, 1024}) -> nullopt; m.image_shape(...) -> {16, 1024, 64}
//
// This is the layout language of transform_layout (and, later, of graph
// layout passes): a permutation of the indices, each of which may be split
// into digits `v // c`, `v % d` or `(v // c) % d`. Every such map is a
// bijection onto a box (up to the padding of a split that does not divide),
// which is what makes re-indexing a buffer safe; a map that could send two
// points to one place (`lambda i, j: (i + j,)`) is refused rather than
// analysed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expr.h"

namespace kiln {

struct IndexMap {
  std::vector<Var> inputs;
  std::vector<Expr> outputs;

  // Reads `lambda a, b, ...: (e0, e1, ...)` (a one-element tuple may drop its
  // comma; the parentheses may go). The expressions are in the IR text
  // syntax (docs/ir_text.md); input i has type dtypes[i]. Throws kiln::Error
  // naming what is malformed.
  static IndexMap parse(std::string_view text, const std::vector<DataType>& dtypes);
  // The text parse() reads back.
  std::string str() const;

  // outputs with the inputs replaced by `indices`, simplified.
  std::vector<Expr> apply(const std::vector<Expr>& indices) const;

  // Why the map is not a permutation of splits of its inputs over the box
  // `extents` (each output a digit of one input, the digits of each input
  // covering it exactly once), or nullopt when it is.
  std::optional<std::string> check_injective(const std::vector<int64_t>& extents) const;
  // The extent of each output over the box `extents`; the map must pass
  // check_injective.
  std::vector<int64_t> image_shape(const std::vector<int64_t>& extents) const;
};

}  // namespace kiln
