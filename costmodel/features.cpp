#include "costmodel/features.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/arith/linear.h"
#include "core/functor.h"
#include "tir/thread_axes.h"

namespace kiln::costmodel {
namespace {

constexpr int kArith = 0, kLoops = 11, kBuffers = 29, kSlot = 15, kSlots = 5, kCurve = 104, kCurvePoints = 10,
              kAlloc = 114, kProgram = 117, kGpu = 120;
static_assert(kBuffers + kSlot * kSlots == kCurve && kCurve + kCurvePoints == kAlloc && kProgram + 3 == kGpu &&
              kGpu + 8 == kFeatureLength);
constexpr double kWarp = 32;

constexpr double kLineBytes = 64;

float slog(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

struct Loop {
  const VarNode* var;
  double extent;
  ForKind kind;
  int64_t auto_unroll;
  const std::string* thread_tag;  // the For's, for bound loops
};

struct Allocation {
  const BufferNode* buffer;
  double bytes;
  bool local;
};

// Operations of one evaluation of a stored value, by the kinds of the
// layout's first group; the float ones summed are the store's float ops.
std::array<double, 11> count_arith(const Expr& value) {
  std::array<double, 11> c{};
  post_order_visit(value, [&](const Expr& x) {
    const bool f = x.dtype().is_float();
    switch (x.kind()) {
      case ExprKind::Add:
      case ExprKind::Sub: {
        BinaryOperands ops = binary_operands(x);
        const bool mad = f && (ops.a->kind() == ExprKind::Mul || ops.b->kind() == ExprKind::Mul);
        c[mad ? 2 : f ? 0 : 6] += 1;
        break;
      }
      case ExprKind::Mul: c[f ? 1 : 7] += 1; break;
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod: c[f ? 3 : 8] += 1; break;
      case ExprKind::Call: c[4] += 1; break;
      case ExprKind::Min:
      case ExprKind::Max: c[f ? 5 : 6] += 1; break;
      case ExprKind::Select: c[f ? 5 : 9] += 1; break;
      case ExprKind::EQ:
      case ExprKind::NE:
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE: c[binary_operands(x).a->dtype().is_float() ? 5 : 9] += 1; break;
      case ExprKind::And:
      case ExprKind::Or:
      case ExprKind::Not: c[9] += 1; break;
      case ExprKind::Cast: c[10] += 1; break;
      default: break;
    }
  });
  return c;
}

double float_ops(const std::array<double, 11>& c) { return c[0] + c[1] + 2 * c[2] + c[3] + c[4] + c[5]; }

// How one index moves with the loops around the store.
struct IndexShape {
  std::vector<bool> uses;     // per loop: its variable appears in the index
  std::vector<int64_t> coef;  // per loop: its coefficient, when linear
  bool linear = true;
};

IndexShape shape_of(const Expr& index, const std::vector<Loop>& loops) {
  IndexShape s;
  s.uses.assign(loops.size(), false);
  s.coef.assign(loops.size(), 0);
  auto position = [&](const VarNode* v) -> int {
    for (size_t i = 0; i < loops.size(); ++i)
      if (loops[i].var == v) return static_cast<int>(i);
    return -1;
  };
  post_order_visit(index, [&](const Expr& x) {
    if (const auto* v = x.as<VarNode>()) {
      int p = position(v);
      if (p >= 0) s.uses[p] = true;
    }
  });
  std::optional<arith::LinearForm> form = arith::linear_form(index);
  if (!form) {
    s.linear = false;
    return s;
  }
  for (const auto& [term, c] : form->terms) {
    const auto* v = term.as<VarNode>();
    int p = v ? position(v) : -1;
    if (p >= 0) {
      s.coef[p] = c;
    } else {
      bool moves = false;
      post_order_visit(term, [&](const Expr& x) {
        if (const auto* u = x.as<VarNode>(); u && position(u) >= 0) moves = true;
      });
      if (moves) s.linear = false;
    }
  }
  return s;
}

// All accesses of one buffer in one store.
struct BufferUse {
  const BufferNode* buffer;
  int bytes;  // per element
  bool read = false, write = false;
  std::vector<IndexShape> indices;
};

class Extractor {
 public:
  ProgramFeatures run(const PrimFunc& f) {
    out_.length = kFeatureLength;
    if (f.body().defined()) stmt(f.body());
    const int n = out_.num_rows();
    for (int r = 0; r < n; ++r) {
      float* row = &out_.rows[static_cast<size_t>(r) * kFeatureLength];
      row[kProgram + 0] = slog(n);
      row[kProgram + 1] = slog(max_parallel_);
      row[kProgram + 2] = slog(program_flops_);
      // The program's shared memory, for the stores a GPU runs (bound: at least one thread).
      if (row[kGpu + 3] > 0) row[kGpu + 6] = slog(shared_bytes_);
    }
    return std::move(out_);
  }

 private:
  void stmt(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::For: {
        const auto* op = s.as<ForNode>();
        const int64_t* e = as_const_int(op->extent);
        int64_t unroll = 0;
        if (auto it = op->annotations.find("pragma_auto_unroll_max_step"); it != op->annotations.end())
          if (const int64_t* v = as_const_int(it->second)) unroll = *v;
        loops_.push_back(
            {op->loop_var.operator->(), e ? static_cast<double>(*e) : 1.0, op->for_kind, unroll, &op->thread_tag});
        stmt(op->body);
        loops_.pop_back();
        return;
      }
      case StmtKind::SeqStmt:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) stmt(c);
        return;
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        ++guards_;
        stmt(op->then_case);
        if (op->else_case.defined()) stmt(op->else_case);
        --guards_;
        return;
      }
      case StmtKind::LetStmt: stmt(s.as<LetStmtNode>()->body); return;
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        allocs_.push_back({op->buffer.operator->(), bytes_of(op->buffer), op->buffer->scope == "local"});
        if (op->buffer->scope == "shared") shared_bytes_ += allocs_.back().bytes;
        stmt(op->body);
        allocs_.pop_back();
        return;
      }
      case StmtKind::BufferStore: store(s.as<BufferStoreNode>()); return;
      default: return;
    }
  }

  static double bytes_of(const Buffer& b) {
    double elems = 1;
    for (const Expr& d : b.shape())
      if (const int64_t* v = as_const_int(d)) elems *= static_cast<double>(*v);
    return elems * b.dtype().bytes();
  }

  // The GPU's view of a store: its launch (blocks, threads per block,
  // virtual threads), which memory it writes and reads. All zero on a CPU.
  void gpu_features(const BufferStoreNode* op, const std::vector<BufferUse>& uses, float* f) const {
    double blocks = 1, vthreads = 1;
    std::map<std::string, double> threads;  // per axis: a fetch's loop shares its nest's axis
    bool bound = false;
    for (const Loop& l : loops_) {
      if (l.kind != ForKind::kThreadBinding) continue;
      bound = true;
      const std::string& tag = *l.thread_tag;
      if (is_block_index_tag(tag)) blocks *= l.extent;
      else if (is_thread_index_tag(tag)) threads[tag] = std::max(threads[tag], l.extent);
      else vthreads *= l.extent;
    }
    if (!bound) return;
    double per_block = 1;
    for (const auto& [tag, e] : threads) per_block *= e;
    double shared_reads = 0;
    for (const BufferUse& u : uses)
      if (u.read && u.buffer->scope == "shared") shared_reads += static_cast<double>(u.indices.size());
    f[0] = slog(blocks);
    f[1] = slog(per_block);
    f[2] = slog(vthreads);
    f[3] = slog(blocks * per_block);
    f[4] = op->buffer->scope == "shared" ? 1.0f : 0.0f;
    f[5] = slog(shared_reads);
    // f[6], the program's shared memory, is known once the walk is done (run()).
    f[7] = std::fmod(per_block, kWarp) == 0 ? 1.0f : 0.0f;
  }

  // Product of the extents of loops [from, depth).
  double executions(size_t from) const {
    double p = 1;
    for (size_t i = from; i < loops_.size(); ++i) p *= loops_[i].extent;
    return p;
  }

  // Distinct elements an index touches while loops [from, depth) run.
  double footprint(const IndexShape& s, size_t from) const {
    double product = 1, span = 0;
    for (size_t i = from; i < loops_.size(); ++i) {
      if (!s.uses[i]) continue;
      product *= loops_[i].extent;
      span += static_cast<double>(std::llabs(s.coef[i])) * (loops_[i].extent - 1);
    }
    return s.linear ? std::min(product, span + 1) : product;
  }

  // Cache lines an index touches while loops [from, depth) run: the
  // innermost loop that moves it walks memory at its stride, every other
  // loop that moves it (or, unless `unique`, any loop at all) starts anew.
  double lines(const IndexShape& s, int bytes, size_t from, bool unique) const {
    double n = 1;
    bool innermost = true;
    for (size_t i = loops_.size(); i-- > from;) {
      const double ext = loops_[i].extent;
      if (s.uses[i] && innermost) {
        const double stride_bytes = static_cast<double>(std::llabs(s.coef[i])) * bytes;
        n *= s.linear && stride_bytes < kLineBytes ? std::ceil(ext * stride_bytes / kLineBytes) : ext;
        innermost = false;
      } else if (s.uses[i] || !unique) {
        n *= ext;
      }
    }
    return n;
  }

  double buffer_footprint(const BufferUse& u, size_t from) const {
    double elems = 0;
    for (const IndexShape& s : u.indices) elems = std::max(elems, footprint(s, from));
    return elems;
  }

  void store(const BufferStoreNode* op) {
    std::vector<BufferUse> uses;
    auto use = [&](const Buffer& b, const std::vector<Expr>& indices, bool write) {
      auto it = std::find_if(uses.begin(), uses.end(), [&](const BufferUse& u) { return u.buffer == b.operator->(); });
      if (it == uses.end()) it = uses.insert(uses.end(), BufferUse{b.operator->(), b.dtype().bytes()});
      (write ? it->write : it->read) = true;
      if (!indices.empty()) it->indices.push_back(shape_of(indices.front(), loops_));
    };
    use(op->buffer, op->indices, true);
    post_order_visit(op->value, [&](const Expr& x) {
      if (const auto* load = x.as<BufferLoadNode>()) use(load->buffer, load->indices, false);
    });

    std::vector<float> row(kFeatureLength, 0.0f);
    const size_t depth = loops_.size();
    const double runs = executions(0);
    const std::array<double, 11> arith = count_arith(op->value);
    for (int i = 0; i < 11; ++i) row[kArith + i] = slog(arith[i] * runs);
    const double flops = float_ops(arith);
    program_flops_ += flops * runs;

    // Loops.
    row[kLoops + 0] = slog(static_cast<double>(depth));
    row[kLoops + 1] = slog(runs);
    row[kLoops + 2] = slog(depth ? loops_.back().extent : 0);
    int k = 3;
    double parallel = 1;
    for (ForKind kind : {ForKind::kParallel, ForKind::kVectorized, ForKind::kUnrolled}) {
      double count = 0, product = 1, innermost = 0, position = 0;
      for (size_t i = 0; i < depth; ++i) {
        if (loops_[i].kind != kind) continue;
        if (count == 0) position = static_cast<double>(depth - i);
        count += 1;
        product *= loops_[i].extent;
        innermost = loops_[i].extent;
      }
      if (kind == ForKind::kParallel && count > 0) parallel = product;
      row[kLoops + k++] = slog(count);
      row[kLoops + k++] = slog(count ? product : 0);
      row[kLoops + k++] = slog(innermost);
      row[kLoops + k++] = slog(position);
    }
    max_parallel_ = std::max(max_parallel_, parallel);
    int64_t unroll = 0;
    for (const Loop& l : loops_) unroll = std::max(unroll, l.auto_unroll);
    row[kLoops + 15] = slog(static_cast<double>(unroll));
    row[kLoops + 16] = depth && loops_.back().kind == ForKind::kVectorized ? 1.0f : 0.0f;
    row[kLoops + 17] = guards_ > 0 ? 1.0f : 0.0f;

    // Buffers, most bytes first.
    std::vector<double> bytes(uses.size());
    for (size_t i = 0; i < uses.size(); ++i)
      bytes[i] = runs * static_cast<double>(uses[i].indices.size()) * uses[i].bytes;
    std::vector<size_t> order(uses.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bytes[a] > bytes[b]; });
    for (size_t slot = 0; slot < order.size() && slot < kSlots; ++slot) {
      const BufferUse& u = uses[order[slot]];
      float* f = &row[kBuffers + kSlot * slot];
      const Allocation* alloc = allocation(u.buffer);
      const double unique = buffer_footprint(u, 0) * u.bytes;
      double total_lines = 0, unique_lines = 0;
      for (const IndexShape& s : u.indices) {
        total_lines += lines(s, u.bytes, 0, false);
        unique_lines = std::max(unique_lines, lines(s, u.bytes, 0, true));
      }
      const IndexShape& first = u.indices.front();
      int64_t inner_stride = depth ? std::llabs(first.coef[depth - 1]) : 0, moving_stride = 0;
      for (size_t i = depth; i-- > 0;)
        if (first.uses[i]) {
          moving_stride = std::llabs(first.coef[i]);
          break;
        }
      f[0] = u.read;
      f[1] = u.write;
      f[2] = alloc && alloc->local;
      f[3] = slog(bytes[order[slot]]);
      f[4] = slog(unique);
      f[5] = slog(total_lines);
      f[6] = slog(unique_lines);
      f[7] = slog(static_cast<double>(inner_stride));
      f[8] = slog(static_cast<double>(moving_stride));
      // Loop-carried reuse: the innermost loop (of extent > 1) that moves none of its accesses.
      for (size_t i = depth; i-- > 0;) {
        bool moves = false;
        for (const IndexShape& s : u.indices) moves = moves || s.uses[i];
        if (moves || loops_[i].extent <= 1) continue;
        f[9] = 1;
        f[11] = slog(executions(i + 1));
        f[12] = slog(buffer_footprint(u, i + 1) * u.bytes);
        f[13] = slog(loops_[i].extent);
        break;
      }
      f[10] = u.indices.size() > 1;
      f[14] = slog(unique > 0 ? bytes[order[slot]] / unique : 0);
    }

    // Arithmetic intensity from the store outwards, sampled at fixed levels.
    std::vector<double> curve(depth + 1);
    for (size_t level = 0; level <= depth; ++level) {
      const size_t from = depth - level;
      double touched = 0;
      for (const BufferUse& u : uses) touched += buffer_footprint(u, from) * u.bytes;
      curve[level] = touched > 0 ? flops * executions(from) / touched : 0;
    }
    for (int p = 0; p < kCurvePoints; ++p) {
      const double at = static_cast<double>(depth) * p / (kCurvePoints - 1);
      const size_t lo = static_cast<size_t>(std::floor(at)), hi = std::min(lo + 1, depth);
      const double w = at - static_cast<double>(lo);
      row[kCurve + p] = slog(curve[lo] * (1 - w) + curve[hi] * w);
    }

    // Allocation of the stored buffer.
    if (const Allocation* a = allocation(op->buffer.operator->())) {
      row[kAlloc + 0] = slog(a->bytes);
      row[kAlloc + 1] = a->local;
    }
    row[kAlloc + 2] = slog(static_cast<double>(allocs_.size()));
    gpu_features(op, uses, &row[kGpu]);

    out_.rows.insert(out_.rows.end(), row.begin(), row.end());
  }

  const Allocation* allocation(const BufferNode* b) const {
    for (const Allocation& a : allocs_)
      if (a.buffer == b) return &a;
    return nullptr;
  }

  ProgramFeatures out_;
  std::vector<Loop> loops_;
  std::vector<Allocation> allocs_;
  int guards_ = 0;
  double shared_bytes_ = 0;  // the program's shared allocations
  double max_parallel_ = 1;
  double program_flops_ = 0;
};

}  // namespace

ProgramFeatures extract_features(const PrimFunc& loops) { return Extractor().run(loops); }

}  // namespace kiln::costmodel
