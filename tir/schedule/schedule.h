// Schedules: IR-to-IR transformations of a PrimFunc, recorded as a trace.
//
//   Schedule sch(build_workload(parse_workload("matmul:M=64,N=64,K=64")));
//   BlockRV c = sch.get_block("C");
//   auto loops = sch.get_loops(c);                      // i0, i1, k
//   auto tiles = sch.sample_perfect_tile(loops[1], 2, 16);
//   auto j = sch.split(loops[1], {tiles[0], tiles[1]});  // i1 -> i1_0, i1_1
//   sch.reorder({loops[0], j[0], loops[2], j[1]});
//   sch.vectorize(j[1]);
//   sch.parallel(loops[0]);
//   lower(sch.func(), ...);   // or save sch.trace() and replay it later
//
// Each primitive works in three layers, as in TensorIR: a pure function on
// the IR that checks legality and builds the new function (in the
// primitive's own file under primitive/), the method below that resolves
// handles and installs the result, and the instruction it appends to the
// trace. A primitive that cannot run throws a ScheduleError (error.h) before
// changing anything, so the schedule stays as it was.
//
// Every state is a valid block-form function: with verify_each_step on (as in
// tests) the verifier runs after every primitive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tir/schedule/error.h"
#include "tir/schedule/handles.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/random.h"
#include "tir/schedule/trace.h"
#include "tir/stmt.h"

namespace kiln {

struct ScheduleOptions {
  uint64_t seed = 1;
  bool verify_each_step = false;
};

// One split factor: a constant, a sampled value, or inferred (at most one
// per split, the extent divided by the others, rounded up).
struct Factor {
  Factor() = default;
  Factor(int64_t v) : value(v) {}  // NOLINT: factors read best as plain numbers
  Factor(int v) : value(v) {}      // NOLINT
  Factor(ExprRV rv) : rv(rv) {}    // NOLINT
  std::optional<int64_t> value;
  std::optional<ExprRV> rv;
  bool inferred() const { return !value && !rv; }
};
inline const Factor kInfer{};

// The two compute locations that are not loops, as TensorIR's RootRV and
// InlineRV: sample_compute_location returns a loop handle that names one of
// these marks when it chooses to leave the block where it is (root) or to
// inline it. compute_at takes such a handle: root does nothing and inline
// runs compute_inline (reverse_compute_at: nothing, reverse_compute_inline).
// Every other primitive refuses it.
enum class LocationMark : uint8_t { kRoot, kInline };

class Schedule {
 public:
  explicit Schedule(PrimFunc func, ScheduleOptions options = {});

  const PrimFunc& func() const { return func_; }
  const Trace& trace() const { return trace_; }
  RandomState& rand() { return rand_; }

  // ---- Handles -------------------------------------------------------------
  BlockRV get_block(const std::string& name);
  // The loops above a block, up to its enclosing block, outermost first.
  std::vector<LoopRV> get_loops(BlockRV block);
  // The blocks directly inside a block or loop (not inside a nested block).
  std::vector<BlockRV> get_child_blocks(BlockRV block);
  std::vector<BlockRV> get_child_blocks(LoopRV loop);

  // ---- Loops ---------------------------------------------------------------
  // Splits a loop into len(factors) nested loops, outermost first. When the
  // factors' product exceeds the extent, the blocks inside get a predicate.
  std::vector<LoopRV> split(LoopRV loop, const std::vector<Factor>& factors);
  // Fuses a chain of nested loops (each the only statement in the one above).
  LoopRV fuse(const std::vector<LoopRV>& loops);
  // Puts the loops, which lie on one chain of single-child loops, in this
  // order; loops of the chain not named keep their places.
  void reorder(const std::vector<LoopRV>& loops);
  void parallel(LoopRV loop);
  void vectorize(LoopRV loop);
  void unroll(LoopRV loop);
  // Binds a loop to a GPU thread axis: blockIdx.{x,y,z}, threadIdx.{x,y,z}, vthread.
  void bind(LoopRV loop, const std::string& thread);
  void annotate(LoopRV loop, const std::string& key, const AnnValue& value);
  void annotate(BlockRV block, const std::string& key, const AnnValue& value);
  // With a sampled value, so that the search can change it: the trace keeps
  // the handle, not the number ("pragma_auto_unroll_max_step" from a
  // sample_categorical over {0, 16, 64, 512}).
  void annotate(LoopRV loop, const std::string& key, ExprRV value);
  void annotate(BlockRV block, const std::string& key, ExprRV value);

  // Marks the end of a design-space trace: what follows is postprocessing
  // (search/postproc.h), which the search cuts off and runs again after it
  // changes a decision (Trace::without_postproc).
  void enter_postproc();

  // ---- Blocks --------------------------------------------------------------
  // Moves a reduction block's init into a new block (returned) placed just
  // before `loop`, one of the block's loops; see primitive/decompose_reduction.cpp.
  BlockRV decompose_reduction(BlockRV block, LoopRV loop);
  // Routes the block's read_index-th read (write_index-th write) through a
  // new buffer of `scope` ("global", "local", "shared") with a copy block,
  // returned; see primitive/cache_read_write.cpp.
  BlockRV cache_read(BlockRV block, int read_index, const std::string& scope);
  BlockRV cache_write(BlockRV block, int write_index, const std::string& scope);
  // Moves a producer block under a loop of its consumers (a consumer under a
  // loop of its producer), computing there only the part that loop needs;
  // see primitive/compute_at.cpp.
  void compute_at(BlockRV block, LoopRV loop);
  void reverse_compute_at(BlockRV block, LoopRV loop);
  // The storage scope of an allocated buffer the block writes.
  void set_scope(BlockRV block, int write_index, const std::string& scope);
  // Re-indexes the block's index-th read (write) buffer, which the function
  // allocates, by `index_map`, a permutation of splits of its indices written
  // as a lambda: "lambda k, j: (j // 64, k, j % 64)" packs a K x N buffer into
  // N/64 panels of K x 64; see primitive/transform_layout.cpp.
  void transform_layout(BlockRV block, BufferRole role, int index, const std::string& index_map);
  // Factors the reduction of the one block under `loop` over that loop: a
  // new block `<name>_rf` (returned) computes partial results into
  // `<buf>_rf`, which has the loop's extent as a new dimension at
  // factor_axis (0 <= factor_axis <= ndim), and the original block then folds
  // them into its buffer. In the rf block the loop feeds a spatial axis, so it
  // can be parallelized or vectorized:
  //
  //   auto k = sch.split(sch.get_loops(b)[1], {kInfer, 8});  // B[i] = sum_k A[i, k]
  //   BlockRV rf = sch.rfactor(k[1], 1);                       // B_rf[i, k_1] partial sums
  //   sch.vectorize(sch.get_loops(rf)[2]);
  //
  // See primitive/rfactor.cpp for the IR it builds and when it is legal.
  BlockRV rfactor(LoopRV loop, int factor_axis);
  // Pads the stride of dimension `axis` of the block's write_index-th written
  // buffer (one the function allocates) to the next value congruent to
  // `offset` modulo `factor` (0 <= offset < factor), so that the rows of a
  // tile fall in different cache sets or shared-memory banks. Only the
  // layout changes; see primitive/storage_align.cpp.
  void storage_align(BlockRV block, int write_index, int axis, int64_t factor, int64_t offset);
  // Marks the loop nest under `loop` to be computed by the tensor intrinsic
  // `intrin` (tir/tensor_intrin.h), after checking that the nest computes
  // what the intrinsic's description does; see primitive/tensorize.cpp.
  void tensorize(LoopRV loop, const std::string& intrin);
  // Computes a producer block's value where each consumer reads it, and
  // removes the producer, the loops left empty and its buffer. The padding
  // stage of conv2d_nchw (bounds clamping left out):
  //   for i0, i1, i2, i3: block pad:
  //     pad[v0, v1, v2, v3] = T.Select(1 <= v2 < 6 and 1 <= v3 < 6, data[v0, v1, v2 - 1, v3 - 1], 0)
  //   for i0_1, ..., rc, r, s: block conv2d_nchw:
  //     conv2d_nchw[..] += pad[vn, vrc, vy + vr, vx + vs] * kernel[..]
  // becomes
  //   for i0_1, ..., rc, r, s: block conv2d_nchw:
  //     conv2d_nchw[..] += T.Select(1 <= vy + vr < 6 and 1 <= vx + vs < 6,
  //                                 data[vn, vrc, vy + vr - 1, vx + vs - 1], 0) * kernel[..]
  // The producer must store one value into an allocated buffer at its
  // spatial iter vars; see primitive/compute_inline.cpp.
  void compute_inline(BlockRV block);
  // Inlines a consumer block into its only producer: the producer stores
  // the consumer's value straight into the consumer's buffer, and the
  // consumer, its empty loops and the buffer between them go.
  //   block add: T[vi, vj] = A[vi, vj] + B[vi, vj]
  //   block relu: C[vi, vj] = T.max(T[vi, vj], T.float32(0))
  // becomes
  //   block add: C[vi, vj] = T.max(A[vi, vj] + B[vi, vj], T.float32(0))
  void reverse_compute_inline(BlockRV block);

  // ---- Sampling ------------------------------------------------------------
  // n factors whose product is the loop's (constant) extent, the innermost
  // at most max_innermost (<= 0: unbounded). A given decision is checked and used.
  std::vector<ExprRV> sample_perfect_tile(LoopRV loop, int n, int64_t max_innermost,
                                          std::optional<std::vector<int64_t>> decision = std::nullopt);
  // n factors that cover the loop's (constant) extent, for a split that
  // predicates the rest: the innermost at most max_innermost and the
  // extent, the outermost ceil(extent / the product of the others), and
  // all of them less than twice the extent. So a 6-row register tile exists for 1024
  // rows: {171, 1, 1, 6}. A decision's outermost may be 0, inferred (a
  // mutation that changed the inner factors leaves it so); the recorded
  // decision holds its value. A perfect tile is one such decision.
  std::vector<ExprRV> sample_tile(LoopRV loop, int n, int64_t max_innermost,
                                  std::optional<std::vector<int64_t>> decision = std::nullopt);
  // One of `candidates`, drawn with weights `probs`; the decision is the index.
  ExprRV sample_categorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                            std::optional<int64_t> decision = std::nullopt);
  // Where to compute `block`, drawn uniformly among: inline (when
  // compute_inline is legal), root (where it is), and every loop of the
  // block that holds it at which compute_at is legal. The decision is -2
  // for inline, -1 for root, else the index of the loop among those legal
  // loops listed outermost first and in program order (a pre-order walk of
  // the enclosing block's body, not entering nested blocks). The handle
  // returned names the loop or a LocationMark; pass it to compute_at.
  LoopRV sample_compute_location(BlockRV block, std::optional<int64_t> decision = std::nullopt);

  // ---- Resolving handles (for primitives, tools and tests) -----------------
  const std::string& block_name(BlockRV rv) const;
  // The loop's variable; throws BadArgumentError for a location mark.
  const Var& loop_var(LoopRV rv) const;
  // The mark a loop handle names, or nullopt when it names a loop.
  std::optional<LocationMark> location_mark(LoopRV rv) const;
  int64_t value(ExprRV rv) const;
  // The BlockRealize / For the handle names now; throws NotFoundError.
  Stmt block_stmt(BlockRV rv, const char* primitive) const;
  Located block_location(BlockRV rv, const char* primitive) const;
  Located loop_location(LoopRV rv, const char* primitive) const;
  Stmt loop_stmt(LoopRV rv, const char* primitive) const;

 private:
  // For the primitives (members, in primitive/): handles, installing a
  // result, recording the instruction. Private, so that nothing changes the
  // program without the trace saying so: the search replays traces and
  // must get the program it measured.
  BlockRV make_block_rv(std::string name);
  LoopRV make_loop_rv(Var v);
  LoopRV make_location_rv(LocationMark mark);
  ExprRV make_expr_rv(int64_t value);
  std::vector<BlockRV> child_blocks(const Stmt& under);  // handles of the blocks directly inside
  // Installs a primitive's result (verifying it if asked).
  void update(PrimFunc f, const char* primitive);
  void record(const InstructionKind& kind, std::vector<InstInput> inputs, InstAttrs attrs,
              std::vector<RV> outputs, Decision decision = {});

  // Indexed by RVKind: a block's name, a loop (its variable or a mark), a value.
  using Symbol = std::variant<std::string, std::variant<Var, LocationMark>, int64_t>;
  const Symbol& symbol(RV rv, RVKind kind) const;
  void set_loop_annotation(LoopRV loop, const std::string& key, Expr value);
  void set_block_annotation(BlockRV block, const std::string& key, Expr value);

  PrimFunc func_;
  ScheduleOptions options_;
  RandomState rand_;
  Trace trace_;
  std::vector<Symbol> symbols_;
};

// Replays `trace` on `func` (the unscheduled function) in a new schedule.
Schedule apply_trace(const Trace& trace, const PrimFunc& func, ScheduleOptions options = {});

// The handle `sch` made for `rv` of `t`, both having run the same first
// instructions (a schedule records one instruction per traced primitive,
// its outputs in the same order): how a tool that replayed part of a trace
// finds what one of its handles names. nullopt when no instruction `sch`
// ran made it.
std::optional<RV> replayed_handle(const Schedule& sch, const Trace& t, const RV& rv);

}  // namespace kiln
