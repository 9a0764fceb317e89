#include "search/postproc.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_set>

#include "core/arith/linear.h"
#include "core/functor.h"
#include "search/block_info.h"
#include "search/register_tile.h"
#include "search/rewrite_layout.h"
#include "search/rules/rules.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/tensor_intrin.h"
#include "tir/functor.h"
#include "tir/thread_axes.h"
#include "tir/transform/unroll_loop.h"

namespace kiln::search {
namespace {

int64_t annotation(const BlockNode* b, const char* key) {
  auto it = b->annotations.find(key);
  if (it == b->annotations.end()) return 0;
  const int64_t* v = as_const_int(it->second);
  return v ? *v : 0;
}

int64_t extent_of(Schedule& sch, LoopRV l) {
  const int64_t* e = as_const_int(sch.loop_stmt(l, "postprocess").as<ForNode>()->extent);
  return e ? *e : -1;
}

// Whether `inner` is the whole body of `outer`.
bool directly_inside(Schedule& sch, LoopRV outer, LoopRV inner) {
  const auto* body = sch.loop_stmt(outer, "postprocess").as<ForNode>()->body.as<ForNode>();
  return body && body->loop_var.same_as(sch.loop_var(inner));
}

std::vector<Var> vars_of(Schedule& sch, const std::vector<LoopRV>& loops) {
  std::vector<Var> vars;
  for (LoopRV l : loops) vars.push_back(sch.loop_var(l));
  return vars;
}

// The tensor intrinsic a block is tiled for (kTensorIntrinAnn), or nullptr.
const TensorIntrin* marked_intrin(const BlockNode* b) {
  auto it = b->annotations.find(kTensorIntrinAnn);
  if (it == b->annotations.end()) return nullptr;
  const auto* name = it->second.as<StringImmNode>();
  return name ? find_tensor_intrin(name->value) : nullptr;
}

// The vector registers the register tile of a block tiled "SSRSRS" holds:
// its S3 tiles, the accumulators live across the R1 loop around them, the
// innermost axis in vectors of `lanes` (the S2 tiles outside R1 make a
// tile of the accumulator in memory, not in registers). Zero when
// the loops are no longer in that structure. Read from the IR, so that the
// check records nothing in the trace.
int64_t register_tile(const Located& loc, int64_t lanes, int64_t max_vector) {
  // Every iter var's loop was split into four (spatial) or two (reduce)
  // levels; a unit loop may drive nothing, so count iter vars, not roles.
  const BlockNode* b = block_of(loc.stmt);
  int64_t ns = 0, nr = 0;
  for (const IterVar& iv : b->iter_vars) (iv.is_reduce() ? nr : ns) += 1;
  std::vector<const ForNode*> loops;
  for (const Stmt& l : enclosing_loops(loc)) loops.push_back(l.as<ForNode>());
  // A tensor intrinsic's loops, innermost, are below the tiles.
  if (b->annotations.count(kTensorIntrinAnn)) {
    const TensorIntrin* t = marked_intrin(b);
    if (!t || loops.size() < t->num_loops) return 0;
    loops.resize(loops.size() - t->num_loops);
  }
  if (ns == 0 || static_cast<int64_t>(loops.size()) != 4 * ns + 2 * nr) return 0;
  const int64_t s3 = 3 * ns + 2 * nr;
  int64_t regs = 1;
  for (int64_t a = 0; a < ns; ++a) {
    const int64_t* inner = as_const_int(loops[s3 + a]->extent);
    if (!inner) return 0;
    regs *= s3_registers(*inner, a + 1 == ns && *inner <= max_vector, lanes);
  }
  return regs;
}

void check_register_tiles(Schedule& sch, int64_t max_vector) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    std::optional<Located> loc = locate_block(sch.func().body(), name);
    if (!loc) continue;
    const BlockNode* b = block_of(loc->stmt);
    const int64_t budget = annotation(b, kTiledAnn), lanes = annotation(b, kLanesAnn);
    if (budget <= 0 || lanes <= 0) continue;
    const int64_t regs = register_tile(*loc, lanes, max_vector);
    if (regs > budget)
      throw RegisterTileError("postprocess", "the register tile of block '" + name + "' needs " +
                                                 std::to_string(regs) + " vector registers, more than the " +
                                                 std::to_string(budget) + " its accumulators may use");
  }
}

void decompose_reductions(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    BlockInfo info = block_info(sch.func(), name);
    if (!info.block->init.defined()) continue;
    BlockRV b = sch.get_block(name);
    std::vector<LoopRV> loops = sch.get_loops(b);
    std::vector<LoopRole> roles = loop_roles(sch.func(), name, vars_of(sch, loops));
    for (size_t i = 0; i < loops.size(); ++i) {
      if (roles[i] != LoopRole::kReduce) continue;
      sch.decompose_reduction(b, loops[i]);
      break;
    }
  }
}

// Each block tiled for a tensor intrinsic (kTensorIntrinAnn) gets its
// innermost loops tensorized, now that its init is a block of its own.
void tensorize_marked(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    const BlockNode* b = block_info(sch.func(), name).block;
    const TensorIntrin* t = marked_intrin(b);
    if (!t || b->init.defined()) continue;
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block(name));
    if (loops.size() < t->num_loops) continue;
    sch.tensorize(loops[loops.size() - t->num_loops], t->name);
  }
}

// The loops whose iterations may run at once: no block under them binds
// them to a reduction axis. A loop a block does not use at all (the tile
// loops above a producer computed inside them, a unit loop) counts: the
// producer's buffer is allocated inside it after lowering. Read from the
// IR, so that the check records nothing in the trace.
std::unordered_set<const VarNode*> independent_loops(const PrimFunc& f, const std::vector<std::string>& blocks) {
  std::unordered_set<const VarNode*> independent, carried;
  for (const std::string& name : blocks) {
    std::optional<Located> loc = locate_block(f.body(), name);
    if (!loc) continue;
    const std::vector<Var> loops = loop_vars(enclosing_loops(*loc));
    std::vector<LoopRole> roles = loop_roles(f, name, loops);
    for (size_t i = 0; i < loops.size(); ++i)
      (roles[i] == LoopRole::kSpatial || roles[i] == LoopRole::kUnused ? independent : carried)
          .insert(loops[i].operator->());
  }
  for (const VarNode* v : carried) independent.erase(v);
  return independent;
}

// The share of the cores' time left idle when `jobs` equal jobs are dealt
// out to them: 7 tiles on 2 cores leave one idle for an eighth of the time.
double idle_share(int64_t jobs, int64_t cores) {
  const int64_t waves = (jobs + cores - 1) / cores;
  return static_cast<double>(waves * cores - jobs) / static_cast<double>(waves * cores);
}

// Whether fusing one more loop of `extent` into `jobs` is worth going past
// the bound: the cores are more than a tenth idle now and less after.
bool evens_out(int64_t jobs, int64_t extent, int64_t cores) {
  return idle_share(jobs, cores) > 0.1 && idle_share(jobs * extent, cores) < idle_share(jobs, cores);
}

// The loops of blocks annotated with kUnrollAxesAnn (tir/stmt.h): each loop
// of the block's own (one block under it) that drives an annotated iter
// var is split by the period where it is longer, and the pieces within a
// period are unrolled, innermost but for the block's last loop (the vector
// loop), so that every row a select chain picks is a constant.
void unroll_constant_rows(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    const BlockNode* b = block_info(sch.func(), name).block;
    const int64_t mask = annotation(b, kUnrollAxesAnn), period = annotation(b, kUnrollPeriodAnn);
    if (mask == 0 || period < 2) continue;
    const std::vector<LoopRV> loops = sch.get_loops(sch.get_block(name));
    // The block's own loops: the innermost ones with nothing else under them.
    size_t own = loops.size();
    while (own > 0 && child_block_realizes(sch.loop_stmt(loops[own - 1], "postprocess")).size() == 1) --own;
    if (loops.size() - own < 2) continue;
    const std::vector<int> bound = bound_iter_vars(sch.func(), name, vars_of(sch, loops));
    std::vector<LoopRV> outer, rows;
    for (size_t i = own; i + 1 < loops.size(); ++i) {
      const int k = bound[i];
      const int64_t e = extent_of(sch, loops[i]);
      const bool rowed = k >= 0 && k < 63 && ((mask >> k) & 1) && e >= 2 &&
                         sch.loop_stmt(loops[i], "postprocess").as<ForNode>()->for_kind == ForKind::kSerial;
      if (!rowed) {
        outer.push_back(loops[i]);
      } else if (e <= period) {
        rows.push_back(loops[i]);
      } else {
        const std::vector<LoopRV> parts = sch.split(loops[i], {kInfer, period});
        outer.push_back(parts[0]);
        rows.push_back(parts[1]);
      }
    }
    if (rows.empty()) continue;
    std::vector<LoopRV> order = outer;
    order.insert(order.end(), rows.begin(), rows.end());
    order.push_back(loops.back());
    sch.reorder(order);
    for (LoopRV l : rows) sch.unroll(l);
  }
}

// The share of its last iteration's work that a tile loop of `extent`
// does, from the guards `t * v + ... < E` under it (the last of its tiles
// partial); 1 where no guard reads it.
double last_tile_share(const Var& v, int64_t extent, const std::vector<Expr>& guards) {
  double share = 1;
  for (const Expr& g : guards) {
    const auto* lt = g.as<LTNode>();
    const int64_t* bound = lt ? as_const_int(lt->b) : nullptr;
    const std::optional<int64_t> t = bound ? arith::coefficient_of(lt->a, v.operator->()) : std::nullopt;
    if (!t || *t <= 0) continue;
    const int64_t rest = *bound - (extent - 1) * *t;
    if (rest > 0 && rest < *t) share = std::min(share, static_cast<double>(rest) / static_cast<double>(*t));
  }
  return share;
}

// The cores' idle share when they take a fused loop over `extents`
// (outermost first) in contiguous chunks, each iteration weighing the
// product of its loops' shares (`last`) where it is their last.
double chunk_idle_share(const std::vector<int64_t>& extents, const std::vector<double>& last, int64_t cores) {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  std::vector<double> load(static_cast<size_t>(cores), 0.0);
  double total = 0;
  for (int64_t c = 0, p = 0; c < cores; ++c) {
    for (; p < n * (c + 1) / cores; ++p) {  // core c's chunk: [n * c / cores, n * (c + 1) / cores)
      double w = 1;
      for (int64_t k = static_cast<int64_t>(extents.size()) - 1, q = p; k >= 0; q /= extents[k], --k)
        if (q % extents[k] == extents[k] - 1) w *= last[k];
      load[static_cast<size_t>(c)] += w;
      total += w;
    }
  }
  const double most = *std::max_element(load.begin(), load.end());
  return most > 0 ? 1 - total / (most * static_cast<double>(cores)) : 0;
}

// What each loop of a chain weighs in its last iteration (last_tile_share,
// from the guards of every block under the chain's first loop), and its
// extent.
struct ChainShares {
  std::vector<int64_t> extents;
  std::vector<double> shares;
  bool guarded() const {
    return std::any_of(shares.begin(), shares.end(), [](double x) { return x != 1; });
  }
  // The chain's positions with the guarded loops innermost, the others
  // first, each part in order.
  std::vector<size_t> guarded_last() const {
    std::vector<size_t> order(shares.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_partition(order.begin(), order.end(), [&](size_t i) { return shares[i] == 1; });
    return order;
  }
  // The cores' idle share over the chain as it is, and with its guarded
  // loops innermost.
  double idle(int64_t cores) const { return chunk_idle_share(extents, shares, cores); }
  double idle_guarded_last(int64_t cores) const {
    std::vector<int64_t> e;
    std::vector<double> w;
    for (size_t i : guarded_last()) e.push_back(extents[i]), w.push_back(shares[i]);
    return chunk_idle_share(e, w, cores);
  }
  // The chain without its last loop: the guards under its first loop are
  // the same, so are the other loops' shares.
  ChainShares without_last() const {
    return {{extents.begin(), extents.end() - 1}, {shares.begin(), shares.end() - 1}};
  }
};

ChainShares chain_shares(Schedule& sch, const std::vector<LoopRV>& chain) {
  std::vector<Expr> guards;
  post_order_visit(sch.loop_stmt(chain[0], "postprocess"), [&](const Stmt& s) {
    const auto* r = s.as<BlockRealizeNode>();
    if (!r || is_const_int(r->predicate, 1)) return;
    std::vector<Expr> todo{r->predicate};
    while (!todo.empty()) {
      Expr e = todo.back();
      todo.pop_back();
      if (const auto* a = e.as<AndNode>()) todo.insert(todo.end(), {a->a, a->b});
      else guards.push_back(e);
    }
  });
  ChainShares out;
  for (LoopRV l : chain) {
    out.extents.push_back(extent_of(sch, l));
    out.shares.push_back(guards.empty() ? 1.0 : last_tile_share(sch.loop_var(l), out.extents.back(), guards));
  }
  return out;
}

// Whether the chain's first loop splits what `block` writes into
// contiguous ranges, its write stride the largest of the chain's loops':
// the split the kernels before and after make of their rows (docs/tuner.md,
// "Which way the threads split"). Unknown strides count as such.
bool splits_contiguously(Schedule& sch, const std::string& block, const std::vector<LoopRV>& chain) {
  const std::optional<int64_t> first = write_stride(sch.func(), block, sch.loop_var(chain[0]));
  if (!first) return true;
  for (size_t i = 1; i < chain.size(); ++i) {
    const std::optional<int64_t> s = write_stride(sch.func(), block, sch.loop_var(chain[i]));
    if (!s) return true;
    if (std::abs(*s) > std::abs(*first)) return false;
  }
  return true;
}

// The chain with its guarded loops (tile loops whose last tile is partial)
// moved innermost, in order, where that evens out the cores. The cores
// take the fused loop in contiguous chunks (targets/codegen/llvm/
// codegen_parallel.cpp): with 7 columns in tiles of 4 outermost, a 1x1
// convolution at 7x7 (160->960) gave one core the 4 full columns and the
// other the 3 of the partial tile, 0.57 of the work against 0.43, and ran
// at 0.035 ms; with the column tiles innermost each core takes both, 0.031.
// Moved where the cores are more than a twentieth idle and less after;
// where the first loop splits the block's output into contiguous ranges
// (splits_contiguously: the rows the kernel before wrote), more than a
// tenth: that split is worth up to about 6% of a layer with the threads in
// two L3s (docs/tuner.md, "Which way the threads split"). A 3x3/2
// convolution 256->256 from 28² (Zen 5, 2 threads) had its 14 columns in
// 5 tiles of 3 outside 4 channel groups, one core 10 of the 20 jobs at full
// width and the other 8.67, 6.7% idle; with the columns innermost it ran
// 1.076x faster (the median of 25 rounds' ratios, faster in 20), 1.049 of
// oneDNN's kernel against 0.959. The loops are independent and perfectly
// nested: any order computes the same.
std::vector<LoopRV> guarded_last(Schedule& sch, const std::string& block, const std::vector<LoopRV>& chain,
                                 int64_t cores) {
  if (chain.size() < 2 || cores < 2) return chain;
  const ChainShares c = chain_shares(sch, chain);
  if (!c.guarded()) return chain;
  const double idle = c.idle(cores);
  const double bound = splits_contiguously(sch, block, chain) ? 0.1 : 0.05;
  if (idle <= bound || c.idle_guarded_last(cores) >= idle) return chain;
  std::vector<LoopRV> order;
  for (size_t i : c.guarded_last()) order.push_back(chain[i]);
  sch.reorder(order);
  return order;
}

// Whether a chain its guarded loops leave more than a tenth idle, in its
// order or with them innermost (guarded_last), takes `next` as well, past
// the bound, because with the guarded loops innermost the cores then are
// less idle: 6 groups of 3 output-channel blocks (16 blocks, the last
// group holding 1) alone on 2 cores give one 9 blocks and the other 7,
// where over 14 rows of pixels each core runs 7 rows of every group. On a
// 1x1 convolution 256->256 at 14² (Intel Xeon, model 167, 2 threads;
// `kiln_bench`, 5 rounds beside oneDNN, three processes) such a record of
// 3 x 7 register tiles ran at 421-422 GFLOP/s on the 6 groups and at
// 425-444 as 84 jobs so, oneDNN at 439-453; on one thread, at 237.5.
bool past_for_guards(Schedule& sch, std::vector<LoopRV> chain, LoopRV next, int64_t cores) {
  if (cores < 2) return false;
  chain.push_back(next);
  const ChainShares with_next = chain_shares(sch, chain);  // one walk of the guards for both
  const ChainShares now = with_next.without_last();
  if (!now.guarded()) return false;
  const double alone = std::min(now.idle(cores), now.idle_guarded_last(cores));
  return alone > 0.1 && with_next.idle_guarded_last(cores) < alone;
}

// Each nest's chain of perfectly nested independent loops, fused up to
// max_extent and made parallel; one loop past it where that evens out the
// cores (evens_out: a convolution's 7 row tiles on 2 cores ran at 0.89
// of its 7 x 7 row-and-column tiles), or where its partial tiles leave them
// idle and the next loop lets guarded_last spread them (past_for_guards).
// A chain starts at the first loop that runs more than once, or above it
// where unit loops nest it perfectly: under a unit loop whose body holds
// two nests (a producer computed there, then its consumer), each nest is a
// chain of its own.
void parallelize(Schedule& sch, int64_t max_extent) {
  const int64_t cores = std::max<int64_t>(1, max_extent / kJobsPerCore);
  const std::vector<std::string> blocks = blocks_in_order(sch.func());
  const std::unordered_set<const VarNode*> independent = independent_loops(sch.func(), blocks);
  std::unordered_set<const VarNode*> done;
  for (const std::string& name : blocks) {
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block(name));
    size_t start = 0;
    while (start < loops.size() && extent_of(sch, loops[start]) == 1) ++start;
    if (start == loops.size()) continue;
    while (start > 0 && directly_inside(sch, loops[start - 1], loops[start])) --start;
    if (!done.insert(sch.loop_var(loops[start]).operator->()).second) continue;
    size_t n = start;
    int64_t product = 1;
    while (n < loops.size() && independent.count(sch.loop_var(loops[n]).operator->())) {
      if (n > start && !directly_inside(sch, loops[n - 1], loops[n])) break;  // fuse takes a chain
      // A loop already unrolled (unroll_constant_rows) stays as it is.
      if (sch.loop_stmt(loops[n], "postprocess").as<ForNode>()->for_kind != ForKind::kSerial) break;
      int64_t e = extent_of(sch, loops[n]);
      if (e < 1) break;
      // Unit loops aside, the first loop may exceed the bound; a later one
      // only to even out the cores (evens_out, past_for_guards), and then
      // it is the last.
      const bool past = product > 1 && product * e > max_extent;
      if (past && !evens_out(product, e, cores) &&
          !past_for_guards(sch, std::vector<LoopRV>(loops.begin() + start, loops.begin() + n), loops[n], cores))
        break;
      product *= e;
      ++n;
      if (past) break;
    }
    if (product == 1) continue;
    std::vector<LoopRV> chain =
        guarded_last(sch, name, std::vector<LoopRV>(loops.begin() + start, loops.begin() + n), cores);
    sch.parallel(chain.size() == 1 ? chain[0] : sch.fuse(chain));
  }
}

void vectorize(Schedule& sch, int64_t max_extent) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block(name));
    if (loops.empty()) continue;
    LoopRV inner = loops.back();
    const Stmt l = sch.loop_stmt(inner, "postprocess");
    const int64_t e = extent_of(sch, inner);
    if (l.as<ForNode>()->for_kind != ForKind::kSerial || e < 2) continue;
    if (loop_roles(sch.func(), name, {sch.loop_var(inner)})[0] != LoopRole::kSpatial) continue;
    // A loop along which the block's stores are not contiguous (a tile's
    // output rows, the channels innermost in memory) would scatter them:
    // never fast here, and its masked scatters, which LLVM scalarizes, took
    // 46 s of optimization and 36 s of instruction selection for one
    // candidate of a 1x1 convolution. It stays serial.
    if (std::optional<int64_t> stride = write_stride(sch.func(), name, sch.loop_var(inner)); stride && *stride != 1)
      continue;
    // Longer than the vector bound: its largest piece within the bound
    // that divides it (a softmax's 128 columns in two of 64).
    int64_t piece = std::min(e, max_extent);
    while (piece > 1 && e % piece != 0) --piece;
    if (piece < 2) continue;
    try {
      if (piece == e) {
        sch.vectorize(inner);
      } else if (child_block_realizes(l).size() == 1) {
        sch.vectorize(sch.split(inner, {kInfer, piece})[1]);
      }
    } catch (const ScheduleError&) {
      // The innermost loop holds more than this block: it stays scalar.
    }
  }
}

void unroll(Schedule& sch, int64_t step) {
  if (step <= 0) return;
  std::unordered_set<const VarNode*> done;
  for (const std::string& name : blocks_in_order(sch.func())) {
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block(name));
    if (loops.empty() || !done.insert(sch.loop_var(loops[0]).operator->()).second) continue;
    sch.annotate(loops[0], kAutoUnrollMaxStep, AnnValue(step));
  }
}

// The extent of the loop bound to threadIdx.x among `loops`; 0 when none is.
int64_t thread_extent(Schedule& sch, const std::vector<LoopRV>& loops) {
  for (LoopRV l : loops) {
    const auto* f = sch.loop_stmt(l, "postprocess").as<ForNode>();
    if (f->for_kind == ForKind::kThreadBinding && f->thread_tag == "threadIdx.x") return extent_of(sch, l);
  }
  return 0;
}

// Each copy marked for a cooperative fetch: its own loops (those that hold
// it alone) fused, split by the block's threads, the middle part bound to
// them, so that each thread copies every threads-th piece; the pieces are
// the annotation's lanes, a vectorized loop, where they divide the copy.
void cooperative_fetch(Schedule& sch, int64_t max_shared_bytes) {
  std::map<const VarNode*, int64_t> shared;  // per kernel (its outermost loop): what its copies fetch at once
  for (const std::string& name : blocks_in_order(sch.func())) {
    const BlockNode* copy = block_info(sch.func(), name).block;
    const int64_t lanes = annotation(copy, kCooperativeFetchAnn);
    if (lanes <= 0) continue;
    BlockRV b = sch.get_block(name);
    std::vector<LoopRV> loops = sch.get_loops(b);
    const int64_t threads = thread_extent(sch, loops);
    if (threads <= 0) continue;
    size_t first = loops.size();
    while (first > 0) {
      const Stmt l = sch.loop_stmt(loops[first - 1], "postprocess");
      if (l.as<ForNode>()->for_kind != ForKind::kSerial || child_block_realizes(l).size() != 1) break;
      --first;
    }
    if (first == loops.size()) continue;
    std::vector<LoopRV> own(loops.begin() + static_cast<std::ptrdiff_t>(first), loops.end());
    LoopRV fused = own.size() == 1 ? own[0] : sch.fuse(own);
    const int64_t extent = extent_of(sch, fused);
    int64_t& bytes = shared[sch.loop_var(loops[0]).operator->()];
    bytes += extent * copy->writes[0].buffer().dtype().bytes();
    if (max_shared_bytes > 0 && bytes > max_shared_bytes)
      throw GpuSharedMemoryError("postprocess", "the tiles cached in shared memory take " + std::to_string(bytes) +
                                                    " bytes or more, more than the " + std::to_string(max_shared_bytes) +
                                                    " a block has");
    if (lanes > 1 && extent > 0 && extent % lanes == 0) {
      std::vector<LoopRV> parts = sch.split(fused, {kInfer, threads, lanes});
      sch.bind(parts[1], "threadIdx.x");
      sch.vectorize(parts[2]);
    } else {
      std::vector<LoopRV> parts = sch.split(fused, {kInfer, threads});
      sch.bind(parts[1], "threadIdx.x");
    }
  }
}

// Every block's threads (the product of its threadIdx loops, one per axis)
// within what the target runs.
void check_threads(Schedule& sch, int64_t max_threads) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    std::optional<Located> loc = locate_block(sch.func().body(), name);
    if (!loc) continue;
    std::map<std::string, int64_t> axes;
    for (const Stmt& s : enclosing_loops(*loc)) {
      const auto* f = s.as<ForNode>();
      if (f->for_kind != ForKind::kThreadBinding || !is_thread_index_tag(f->thread_tag)) continue;
      const int64_t* e = as_const_int(f->extent);
      if (e) axes[f->thread_tag] = std::max(axes[f->thread_tag], *e);
    }
    int64_t threads = 1;
    for (const auto& [tag, e] : axes) threads *= e;
    if (threads > max_threads)
      throw GpuThreadsError("postprocess", "block '" + name + "' runs in blocks of " + std::to_string(threads) +
                                               " threads, more than the " + std::to_string(max_threads) +
                                               " the target allows");
  }
}

}  // namespace

void postprocess(Schedule& sch) {
  sch.enter_postproc();
  const BlockNode* root = block_info(sch.func(), root_block(sch.func())).block;
  const int64_t max_parallel = annotation(root, kParallelAnn);
  const int64_t max_vector = annotation(root, kVectorizeAnn);
  const int64_t unroll_step = annotation(root, kUnrollAnn);
  const int64_t gpu_threads = annotation(root, kGpuThreadsAnn);
  const int64_t gpu_shared = annotation(root, kGpuSharedAnn);
  if (gpu_threads > 0) check_threads(sch, gpu_threads);
  check_register_tiles(sch, max_vector);
  if (gpu_threads == 0) rewrite_layouts(sch);
  decompose_reductions(sch);
  tensorize_marked(sch);
  if (gpu_threads == 0) unroll_constant_rows(sch);
  if (gpu_threads > 0) cooperative_fetch(sch, gpu_shared);
  if (max_parallel > 0) parallelize(sch, max_parallel);
  if (max_vector > 0) vectorize(sch, max_vector);
  unroll(sch, unroll_step);
}

}  // namespace kiln::search
