// Linear forms: a signed integer expression seen as c0 + sum(c_i * t_i), where
// the terms t_i are whatever is not an addition, a subtraction or a product
// with a constant.
//
// Local rewrite rules see one node at a time and miss that (x + y) - (y + x)
// cancels, or that x + 3 < x + y only compares 3 with y. Seen as linear forms
// these are plain: the simplifier uses them to bound differences (min/max and
// comparisons), to put comparisons in canonical form, and to rebuild sums in
// which terms cancel or merge.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/arith/const_int_bound.h"
#include "core/expr.h"

namespace kiln::arith {

struct LinearForm {
  DataType dtype;
  // Distinct terms (by structural_equal) with non-zero coefficients, in order of
  // first appearance.
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;
};

// Nullopt unless e is a scalar signed integer whose coefficients all stay
// within its type's range.
std::optional<LinearForm> linear_form(const Expr& e);

// a + scale * b; nullopt on overflow of the type's range.
std::optional<LinearForm> linear_combine(const LinearForm& a, const LinearForm& b, int64_t scale);

// Builds the sum: positive terms in order, then negative terms subtracted,
// then the constant added (`x + y - z*2 + -3`); with no positive term, the
// constant comes first (`4 - x`).
Expr linear_to_expr(const LinearForm& f);
// The same without the constant, over the terms whose coefficient has the
// given sign, coefficients made positive (`x + y*2`); zero if none.
Expr linear_part_to_expr(const LinearForm& f, bool positive);

// The bound of the form from the bounds of its terms.
IntBound linear_bound(const LinearForm& f, ConstIntBoundAnalyzer& bounds);

// The coefficient of `v` in e, 0 where e does not use it; nullopt where e
// uses it other than linearly (inside a division, a product of variables).
std::optional<int64_t> coefficient_of(const Expr& e, const VarNode* v);

// The size of e's additive skeleton: every Add, Sub, product with a constant
// and constant counts 1, and so does every term.
size_t linear_cost(const Expr& e);
// How many terms e's skeleton holds, counting repeats (x + (y - x) has 3).
size_t linear_term_count(const Expr& e);

}  // namespace kiln::arith
