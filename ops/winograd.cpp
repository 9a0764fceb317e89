#include "ops/winograd.h"

#include <functional>

#include "ops/common.h"
#include "ops/pad.h"
#include "tir/stmt.h"

namespace kiln::ops {
namespace {

WinogradMatrices make_f2() {
  return {2, 4,
          {1, 0, -1, 0,  //
           0, 1, 1, 0,   //
           0, -1, 1, 0,  //
           0, 1, 0, -1},
          {1, 0, 0,        //
           0.5, 0.5, 0.5,  //
           0.5, -0.5, 0.5, //
           0, 0, 1},
          {1, 1, 1, 0,  //
           0, 1, -1, -1}};
}

// Interpolation points 0, 1, -1, 2, -2 and infinity.
WinogradMatrices make_f4() {
  return {4, 6,
          {4, 0, -5, 0, 1, 0,    //
           0, -4, -4, 1, 1, 0,   //
           0, 4, -4, -1, 1, 0,   //
           0, -2, -1, 2, 1, 0,   //
           0, 2, -1, -2, 1, 0,   //
           0, 4, 0, -5, 0, 1},
          {1.0 / 4, 0, 0,                  //
           -1.0 / 6, -1.0 / 6, -1.0 / 6,   //
           -1.0 / 6, 1.0 / 6, -1.0 / 6,    //
           1.0 / 24, 1.0 / 12, 1.0 / 6,    //
           1.0 / 24, -1.0 / 12, 1.0 / 6,   //
           0, 0, 1},
          {1, 1, 1, 1, 1, 0,    //
           0, 1, -1, 2, -2, 0,  //
           0, 1, 1, 4, 4, 0,    //
           0, 1, -1, 8, -8, 1}};
}

// Σ_j row[j] · term(j) over the nonzero coefficients of one matrix row.
Expr row_sum(const double* row, int64_t cols, DataType t, const std::function<Expr(int64_t)>& term) {
  Expr sum;
  for (int64_t j = 0; j < cols; ++j) {
    const double c = row[j];
    if (c == 0) continue;
    Expr x = term(j);
    if (c == -1) {
      sum = sum.defined() ? sum - x : -x;
      continue;
    }
    if (c != 1) x = float_imm(t, c) * x;
    sum = sum.defined() ? sum + x : x;
  }
  return sum.defined() ? sum : make_zero(t);
}

// The row sum of the row that `index` (an int32 expression in [0, rows))
// picks: a chain of selects, which folds to one row where the index is a
// constant (an unrolled tile position).
Expr select_row(const std::vector<double>& mat, int64_t rows, int64_t cols, const Expr& index, DataType t,
                const std::function<Expr(int64_t)>& term) {
  Expr out = row_sum(&mat[static_cast<size_t>((rows - 1) * cols)], cols, t, term);
  for (int64_t r = rows - 2; r >= 0; --r)
    out = select(eq(index, i32(r)), row_sum(&mat[static_cast<size_t>(r * cols)], cols, t, term), out);
  return out;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// `t` annotated so that postprocessing unrolls the positions of `axes`
// within `period` (kUnrollAxesAnn): the rows its select chains pick.
te::Tensor unroll_rows(const te::Tensor& t, std::initializer_list<int> axes, int64_t period) {
  int64_t mask = 0;
  for (int a : axes) mask |= int64_t{1} << a;
  return te::annotate(te::annotate(t, kUnrollAxesAnn, make_const(DataType::Int(64), mask)), kUnrollPeriodAnn,
                      make_const(DataType::Int(64), period));
}

}  // namespace

const WinogradMatrices& winograd_matrices(int64_t m) {
  static const WinogradMatrices f2 = make_f2(), f4 = make_f4();
  if (m == 2) return f2;
  if (m == 4) return f4;
  KILN_USER_ERROR() << "winograd: output tile m=" << m << " is not taken (2 or 4)";
}

std::vector<float> winograd_transform_weights(const float* kernel, int64_t K, int64_t C, int64_t cb, int64_t kb,
                                              int64_t m) {
  const WinogradMatrices& f = winograd_matrices(m);
  if (cb < 1 || kb < 1 || C % cb != 0 || K % kb != 0)
    KILN_USER_ERROR() << "winograd: blocks cb=" << cb << ", kb=" << kb << " must divide C=" << C << ", K=" << K;
  const int64_t a = f.alpha, CO = C / cb, KO = K / kb;
  std::vector<float> u(static_cast<size_t>(a * a * K * C));
  // kernel[ko, co, r, s, ci, ki]
  auto g = [&](int64_t ko, int64_t co, int64_t r, int64_t s, int64_t ci, int64_t ki) {
    return static_cast<double>(kernel[((((ko * CO + co) * 3 + r) * 3 + s) * cb + ci) * kb + ki]);
  };
  for (int64_t ko = 0; ko < KO; ++ko)
    for (int64_t co = 0; co < CO; ++co)
      for (int64_t ci = 0; ci < cb; ++ci)
        for (int64_t ki = 0; ki < kb; ++ki) {
          double gg[3][3], tmp[6][3];
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) gg[r][s] = g(ko, co, r, s, ci, ki);
          for (int64_t i = 0; i < a; ++i)  // G g
            for (int s = 0; s < 3; ++s) {
              double v = 0;
              for (int r = 0; r < 3; ++r) v += f.g[static_cast<size_t>(i * 3 + r)] * gg[r][s];
              tmp[i][s] = v;
            }
          for (int64_t i = 0; i < a; ++i)  // (G g) Gᵀ
            for (int64_t j = 0; j < a; ++j) {
              double v = 0;
              for (int s = 0; s < 3; ++s) v += tmp[i][s] * f.g[static_cast<size_t>(j * 3 + s)];
              u[static_cast<size_t>(((((i * a + j) * KO + ko) * CO + co) * cb + ci) * kb + ki)] = static_cast<float>(v);
            }
        }
  return u;
}

te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& u, int64_t pad, int64_t m) {
  const std::string op = "conv2d_winograd_nchwc";
  const WinogradMatrices& f = winograd_matrices(m);
  const int64_t a = f.alpha;
  require_rank(op, data, 5);
  require_rank(op, u, 6);
  require_same_dtype(op, data, u);
  require_same_extent(op, data, 1, u, 3);
  require_same_extent(op, data, 4, u, 4);
  if (const_extent(op, u, 0) != a || const_extent(op, u, 1) != a)
    KILN_USER_ERROR() << op << ": the transformed weights " << u.name() << " must start with " << a << "×" << a
                      << " positions for m=" << m;
  if (pad < 0) KILN_USER_ERROR() << op << ": pad " << pad << " must not be negative";
  const int64_t N = const_extent(op, data, 0), CO = const_extent(op, data, 1);
  const int64_t H = const_extent(op, data, 2), W = const_extent(op, data, 3), CB = const_extent(op, data, 4);
  const int64_t KO = const_extent(op, u, 2), KB = const_extent(op, u, 5);
  const int64_t P = H + 2 * pad - 2, Q = W + 2 * pad - 2;
  if (P < 1 || Q < 1)
    KILN_USER_ERROR() << op << ": a " << H << "×" << W << " input padded by " << pad << " is smaller than the 3×3 kernel";
  const int64_t TH = ceil_div(P, m), TW = ceil_div(Q, m);
  const DataType t = data.dtype();
  // Whole tiles: the last may read past the padded input, into more zeros.
  te::Tensor d = ops::pad(data, {0, 0, pad, pad, 0}, {0, 0, TH * m + 2 - H - pad, TW * m + 2 - W - pad, 0},
                          make_zero(t));
  const Expr mm = i32(m);
  te::Tensor rows = te::compute(
      i32s({N, CO, TH, TW, a, a, CB}),
      [&](const std::vector<Var>& i) {  // n, co, th, tw, r, nu, ci
        return select_row(f.bt, a, a, i[5], t,
                          [&](int64_t s) { return d(i[0], i[1], i[2] * mm + i[4], i[3] * mm + i32(s), i[6]); });
      },
      "winograd_input_rows");
  rows = unroll_rows(rows, {4, 5}, a);
  te::Tensor v = te::compute(
      i32s({a, a, N, CO, TH, TW, CB}),
      [&](const std::vector<Var>& i) {  // eps, nu, n, co, th, tw, ci
        return select_row(f.bt, a, a, i[0], t,
                          [&](int64_t r) { return rows(i[2], i[3], i[4], i[5], i32(r), i[1], i[6]); });
      },
      "winograd_input");
  v = unroll_rows(v, {0, 1}, a);
  IterVar rco = te::reduce_axis(Range(i32(0), i32(CO)), "rco");
  IterVar rci = te::reduce_axis(Range(i32(0), i32(CB)), "rci");
  te::Tensor prod = te::compute(
      i32s({a, a, N, KO, TH, TW, KB}),
      [&](const std::vector<Var>& i) {  // eps, nu, n, ko, th, tw, ki
        return te::sum(v(i[0], i[1], i[2], rco, i[4], i[5], rci) * u(i[0], i[1], i[3], rco, rci, i[6]), {rco, rci});
      },
      "winograd_product");
  te::Tensor out_rows = te::compute(
      i32s({N, KO, TH, TW, a, m, KB}),
      [&](const std::vector<Var>& i) {  // n, ko, th, tw, eps, j, ki
        return select_row(f.at, m, a, i[5], t,
                          [&](int64_t nu) { return prod(i[4], i32(nu), i[0], i[1], i[2], i[3], i[6]); });
      },
      "winograd_output_rows");
  out_rows = unroll_rows(out_rows, {4, 5}, a);
  te::Tensor out = te::compute(
      i32s({N, KO, P, Q, KB}),
      [&](Var n, Var ko, Var p, Var q, Var ki) {
        return select_row(f.at, m, a, floormod(p, mm), t, [&](int64_t eps) {
          return out_rows(n, ko, floordiv(p, mm), floordiv(q, mm), i32(eps), floormod(q, mm), ki);
        });
      },
      "winograd_output");
  out = unroll_rows(out, {2, 3}, m);
  // F(4,3)'s rounding (docs/winograd.md, "Accuracy"): up to 7e-4 of
  // max(|y|, 1) between two correct programs on random inputs, against 1e-5
  // for F(2,3); a wrong program errs by the output's own magnitude.
  if (m == 4) out = te::annotate(out, kCheckToleranceAnn, float_imm(DataType::Float(64), kF4CheckTolerance));
  return out;
}

}  // namespace kiln::ops
