// Prepacking: a scheduled function's packs of constant parameters taken out
// into functions of their own, which a model compiler runs once, at compile
// time, on the weights (after MetaSchedule's layout-rewrite preprocessing).
//
// A pack is a nest at the function's root whose one block copies a
// parameter into a buffer of the function, its layout rewritten to the
// order the tiles read it in (search/rewrite_layout.h), and is marked with
// the parameter's index (kPrepackAnn):
//
//   main(A, B, C):                          B_prepack(B, B_global):
//     alloc B_global[2, 4, 2, 8, 16]          B_global[j // 32, ...] = B[k, j]
//     B_global[j // 32, ...] = B[k, j]   ->
//     C[i, j] += A[i, k] * B_global[...]    main(A, B_global, C):
//                                             C[i, j] += A[i, k] * B_global[...]
//
// The main function takes the packed buffer in the parameter's place, so a
// caller passes the same arguments in the same order, the packed weight
// where the weight was.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

// The annotation on a pack's copy block: the index of the parameter it
// copies (an integer).
inline constexpr const char* kPrepackAnn = "kiln.layout_rewrite";

struct Prepack {
  size_t param = 0;  // the parameter of the original function it packs
  PrimFunc func;     // (parameter, packed): fills the packed buffer
};

struct SplitPrepack {
  PrimFunc main;               // the parameter's place taken by its packed buffer
  std::vector<Prepack> packs;  // in parameter order; empty: main is the function itself
};

// Takes out the packs of the parameters in `constants` (indices into the
// function's parameters) that nothing but their pack reads. A pack of
// another parameter stays in main and runs on every call.
SplitPrepack split_prepack(const PrimFunc& scheduled, const std::vector<size_t>& constants);

}  // namespace kiln
