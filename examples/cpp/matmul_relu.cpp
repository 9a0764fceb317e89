// A fused operator defined, scheduled, compiled and checked with kiln's C++
// library as installed: relu(A·B), tiled and vectorized by hand, run on two
// threads and compared with the reference interpreter.
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/thread_pool.h"
#include "tir/interp/interpreter.h"
#include "tir/printer.h"
#include "tir/schedule/schedule.h"
#include "tir/te/create_prim_func.h"

using namespace kiln;

int run() {
  const int M = 64, N = 48, K = 32;
  te::Tensor A = te::placeholder({M, K}, DataType::Float32(), "A");
  te::Tensor B = te::placeholder({K, N}, DataType::Float32(), "B");
  IterVar k = te::reduce_axis(Range(0, K), "k");
  te::Tensor C = te::compute({M, N}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  te::Tensor R = te::compute({M, N}, [&](Var i, Var j) { return max(C(i, j), Expr(0.0f)); }, "R");
  PrimFunc f = te::create_prim_func({A, B, R}, "matmul_relu");

  Schedule sch(f);
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> loops = sch.get_loops(c);
  std::vector<LoopRV> j = sch.split(loops[1], {kInfer, 16});
  sch.reorder({loops[0], j[0], loops[2], j[1]});
  sch.vectorize(j[1]);
  sch.parallel(loops[0]);
  sch.reverse_compute_at(sch.get_block("R"), j[0]);  // relu on each row tile as it is done
  std::printf("%s\n", to_string(sch.func()).c_str());

  const Target target = Target::parse("llvm -num-cores=2");
  std::unique_ptr<CompiledKernel> kernel = build(lower(sch.func(), target), target);
  std::vector<NDArray> args = make_arguments(f, 1);
  std::vector<NDArray> want = make_arguments(f, 1);
  ThreadPool pool(2);
  if (kernel->call({args[0].data(), args[1].data(), args[2].data()}, pool) != 0) return 1;
  interpret(f, {{args[0].dtype(), args[0].shape(), want[0].data()},
                {args[1].dtype(), args[1].shape(), want[1].data()},
                {args[2].dtype(), args[2].shape(), want[2].data()}});
  double worst = 0;
  for (int64_t i = 0; i < args[2].numel(); ++i) worst = std::max(worst, std::fabs(args[2].get(i) - want[2].get(i)));
  std::printf("max |kernel - interpreter| = %g\n", worst);
  return worst < 1e-4 ? 0 : 1;
}

int main() {
  try {
    return run();
  } catch (const std::exception& e) {  // kiln::Error names what is wrong
    std::fprintf(stderr, "matmul_relu: %s\n", e.what());
    return 1;
  }
}
