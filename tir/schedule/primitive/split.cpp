// split: one loop becomes several nested loops.
//
//   for i in range(100):              sch.split(i, {kInfer, 16})
//     block(vi = i)          ->       for i_0 in range(7):
//                                       for i_1 in range(16):
//                                         block(vi = i_0 * 16 + i_1)
//                                           where i_0 * 16 + i_1 < 100
//
// The predicate appears only when the factors' product exceeds the extent.
// The new loops are serial and carry no annotations.
#include "core/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/schedule/bindings.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

struct SplitResult {
  PrimFunc func;
  std::vector<Var> loops;
};

SplitResult split_loop(const PrimFunc& f, const Stmt& loop, std::vector<std::optional<int64_t>> factors) {
  const auto* op = loop.as<ForNode>();
  const std::string& name = op->loop_var.name();
  const int64_t* extent = as_const_int(op->extent);
  if (!extent) throw LoopShapeError("split", "loop '" + name + "' has no constant extent");
  if (factors.empty()) throw FactorError("split", "no factors given for loop '" + name + "'");
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) {
      if (inferred >= 0) throw FactorError("split", "more than one inferred factor for loop '" + name + "'");
      inferred = static_cast<int>(i);
    } else if (*factors[i] <= 0) {
      throw FactorError("split", "factor " + std::to_string(*factors[i]) + " of loop '" + name + "' is not positive");
    } else {
      known *= *factors[i];
    }
  }
  if (inferred >= 0) factors[inferred] = (*extent + known - 1) / known;
  int64_t product = 1;
  for (const auto& fct : factors) product *= *fct;
  if (product < *extent)
    throw FactorError("split", "factors of loop '" + name + "' multiply to " + std::to_string(product) +
                                   ", less than its extent " + std::to_string(*extent));

  const DataType t = op->loop_var.dtype();
  // i = i_0 * (f_1 * f_2 ...) + ... + i_n, each loop scaled by the extent below it.
  std::vector<Var> vars;
  for (size_t i = 0; i < factors.size(); ++i) vars.emplace_back(name + "_" + std::to_string(i), t);
  std::vector<int64_t> strides(factors.size(), 1);
  for (size_t i = factors.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * *factors[i + 1];
  Expr fused;
  for (size_t i = 0; i < factors.size(); ++i) {
    Expr term = strides[i] == 1 ? Expr(vars[i]) : mul(vars[i], int_imm(t, strides[i]));
    fused = fused.defined() ? add(fused, term) : term;
  }
  Stmt body = substitute_loop_vars(op->body, {{op->loop_var, is_zero(op->min) ? fused : add(op->min, fused)}});
  if (product > *extent) body = add_predicate(body, lt(fused, int_imm(t, *extent)));
  for (size_t i = factors.size(); i-- > 0;)
    body = for_loop(vars[i], int_imm(t, 0), int_imm(t, *factors[i]), ForKind::kSerial, body);
  body = simplify_bindings(body, vars);
  return {f.with_body(replace_stmt(f.body(), loop, body)), vars};
}

}  // namespace

std::vector<LoopRV> Schedule::split(LoopRV loop, const std::vector<Factor>& factors) {
  Stmt l = loop_stmt(loop, "split");
  std::vector<std::optional<int64_t>> values;
  std::vector<InstInput> inputs{loop.rv()};
  for (const Factor& fct : factors) {
    if (fct.rv) {
      values.push_back(value(*fct.rv));
      inputs.emplace_back(fct.rv->rv());
    } else if (fct.value) {
      values.push_back(*fct.value);
      inputs.emplace_back(*fct.value);
    } else {
      values.push_back(std::nullopt);
      inputs.emplace_back(std::monostate());
    }
  }
  SplitResult r = split_loop(func_, l, values);
  update(r.func, "split");
  std::vector<LoopRV> out;
  for (const Var& v : r.loops) out.push_back(make_loop_rv(v));
  record(inst::split, std::move(inputs), NoAttrs{}, replay::rvs(out));
  return out;
}

namespace inst {
const InstructionKind split{"split", false,
                            [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&,
                               const Decision&) {
                              std::vector<Factor> factors;
                              for (size_t i = 1; i < in.size(); ++i) factors.push_back(replay::factor(in, i));
                              return replay::rvs(sch.split(replay::loop(in, 0), factors));
                            }};
}  // namespace inst
}  // namespace kiln
