// kiln.Schedule: every primitive of tir/schedule/schedule.h, recorded in a
// trace that serialises to JSON (docs/schedule_trace.md) and replays.
//
//   sch = kiln.Schedule(f)
//   c = sch.get_block("C")
//   i, j, k = sch.get_loops(c)
//   j0, j1 = sch.split(j, [None, 16])
//   sch.vectorize(j1)
//   print(sch.mod)        # kiln's IR text
//   print(sch.trace)      # the trace as JSON
//
// A primitive that cannot run raises the library's ScheduleError as its
// Python class (kiln.FactorError, ...) and leaves the schedule as it was.
#include <pybind11/stl.h>

#include "python/src/bindings.h"
#include "tir/printer.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"

namespace kiln::py {
namespace {

std::vector<Factor> factors_of(const std::vector<pyb::handle>& fs) {
  std::vector<Factor> out;
  for (pyb::handle f : fs) {
    if (f.is_none()) out.push_back(kInfer);
    else if (pyb::isinstance<ExprRV>(f)) out.push_back(Factor(f.cast<ExprRV>()));
    else out.push_back(Factor(f.cast<int64_t>()));
  }
  return out;
}

BufferRole role_of(const std::string& s) {
  if (s == "read") return BufferRole::kRead;
  if (s == "write") return BufferRole::kWrite;
  throw pyb::value_error("buffer role is 'read' or 'write', not '" + s + "'");
}

std::string trace_text(const Trace& t) { return t.to_json().dump(2); }

}  // namespace

void bind_schedule(pyb::module_& m) {
  pyb::class_<BlockRV>(m, "BlockRV", "A schedule's handle to a block.")
      .def("__repr__", [](const BlockRV& b) { return "BlockRV(" + std::to_string(b.id) + ")"; });
  pyb::class_<LoopRV>(m, "LoopRV", "A schedule's handle to a loop.")
      .def("__repr__", [](const LoopRV& l) { return "LoopRV(" + std::to_string(l.id) + ")"; });
  pyb::class_<ExprRV>(m, "ExprRV", "A schedule's handle to a sampled value; sch.get(rv) reads it.")
      .def("__repr__", [](const ExprRV& e) { return "ExprRV(" + std::to_string(e.id) + ")"; });

  using S = Schedule;
  pyb::class_<S>(m, "Schedule",
                 "A function being scheduled: primitives transform it, each recorded in the trace.\n\n"
                 "    sch = kiln.Schedule(f)\n    i, j, k = sch.get_loops(sch.get_block('C'))\n"
                 "    sch.parallel(i)\n    print(sch.mod)")
      .def(pyb::init([](const PrimFunc& f, uint64_t seed, bool verify) {
             return S(f, {.seed = seed, .verify_each_step = verify});
           }),
           pyb::arg("func"), pyb::arg("seed") = 1, pyb::arg("verify") = true,
           "seed: the sampling primitives' random state; verify: run the IR verifier after every primitive.")
      .def_static(
          "from_trace",
          [](const PrimFunc& f, const std::string& trace, uint64_t seed) {
            return apply_trace(Trace::parse(trace), f, {.seed = seed});
          },
          pyb::arg("func"), pyb::arg("trace"), pyb::arg("seed") = 1,
          "The trace (JSON text) replayed on the unscheduled function.")
      .def_property_readonly("mod", &S::func, "The function as scheduled so far (print it for the IR text).")
      .def_property_readonly("func", &S::func, "The same as mod.")
      .def_property_readonly("trace", [](const S& s) { return trace_text(s.trace()); },
                             "The trace so far, as JSON text (docs/schedule_trace.md).")
      .def("get", &S::value, pyb::arg("rv"), "The value a sampling primitive chose.")
      .def("get_block", &S::get_block, pyb::arg("name"), "A block by name: c = sch.get_block('C').")
      .def("get_loops", &S::get_loops, pyb::arg("block"), "The loops above a block, outermost first.")
      .def("get_child_blocks", pyb::overload_cast<BlockRV>(&S::get_child_blocks), pyb::arg("block"))
      .def("get_child_blocks", pyb::overload_cast<LoopRV>(&S::get_child_blocks), pyb::arg("loop"))
      .def(
          "split",
          [](S& s, LoopRV loop, const std::vector<pyb::handle>& factors) { return s.split(loop, factors_of(factors)); },
          pyb::arg("loop"), pyb::arg("factors"),
          "Splits a loop; factors are ints, sampled values, or one None (inferred): sch.split(j, [None, 16]).")
      .def("fuse", [](S& s, pyb::args loops) { return s.fuse(loops.cast<std::vector<LoopRV>>()); },
           "Fuses nested loops: sch.fuse(i, j).")
      .def("reorder", [](S& s, pyb::args loops) { s.reorder(loops.cast<std::vector<LoopRV>>()); },
           "Puts the loops in this order: sch.reorder(k, j).")
      .def("parallel", &S::parallel, pyb::arg("loop"), "Runs the loop's iterations on the thread pool: sch.parallel(i0).")
      .def("vectorize", &S::vectorize, pyb::arg("loop"), "Makes the loop a vector operation: sch.vectorize(j1).")
      .def("unroll", &S::unroll, pyb::arg("loop"), "Unrolls the loop: sch.unroll(i1).")
      .def("bind", &S::bind, pyb::arg("loop"), pyb::arg("thread"), "A GPU thread axis: 'blockIdx.x', 'threadIdx.x', ...")
      .def(
          "annotate",
          [](S& s, pyb::handle at, const std::string& key, pyb::handle value) {
            const bool loop = pyb::isinstance<LoopRV>(at);
            if (!loop && !pyb::isinstance<BlockRV>(at)) throw pyb::type_error("annotate takes a loop or a block");
            if (pyb::isinstance<ExprRV>(value)) {
              loop ? s.annotate(at.cast<LoopRV>(), key, value.cast<ExprRV>())
                   : s.annotate(at.cast<BlockRV>(), key, value.cast<ExprRV>());
              return;
            }
            AnnValue v = pyb::isinstance<pyb::str>(value) ? AnnValue(value.cast<std::string>())
                                                           : AnnValue(value.cast<int64_t>());
            loop ? s.annotate(at.cast<LoopRV>(), key, v) : s.annotate(at.cast<BlockRV>(), key, v);
          },
          pyb::arg("target"), pyb::arg("key"), pyb::arg("value"),
          "An annotation of a loop or block: sch.annotate(i, 'pragma_auto_unroll_max_step', 64).")
      .def("enter_postproc", &S::enter_postproc, "Marks the end of a design (what the search mutates).")
      .def("decompose_reduction", &S::decompose_reduction, pyb::arg("block"), pyb::arg("loop"),
           "Moves a reduction's init into a block before `loop`: init = sch.decompose_reduction(c, k).")
      .def("cache_read", &S::cache_read, pyb::arg("block"), pyb::arg("read_index"), pyb::arg("scope"),
           "Reads the block's read_index-th buffer through a copy: a = sch.cache_read(c, 0, 'global').")
      .def("cache_write", &S::cache_write, pyb::arg("block"), pyb::arg("write_index"), pyb::arg("scope"),
           "Writes through a buffer copied out after: cw = sch.cache_write(c, 0, 'local').")
      .def("compute_at", &S::compute_at, pyb::arg("block"), pyb::arg("loop"),
           "Computes a producer under a consumer's loop, what it needs there: sch.compute_at(pad, i0).")
      .def("reverse_compute_at", &S::reverse_compute_at, pyb::arg("block"), pyb::arg("loop"),
           "Computes a consumer under a producer's loop: sch.reverse_compute_at(relu, i0).")
      .def("set_scope", &S::set_scope, pyb::arg("block"), pyb::arg("write_index"), pyb::arg("scope"),
           "The storage scope of a buffer the block writes: sch.set_scope(b, 0, 'local').")
      .def(
          "transform_layout",
          [](S& s, BlockRV b, const std::string& role, int index, const std::string& map) {
            s.transform_layout(b, role_of(role), index, map);
          },
          pyb::arg("block"), pyb::arg("buffer_role"), pyb::arg("index"), pyb::arg("index_map"),
          "Re-indexes an allocated buffer: sch.transform_layout(b, 'read', 1, 'lambda k, j: (j // 64, k, j % 64)').")
      .def("rfactor", &S::rfactor, pyb::arg("loop"), pyb::arg("factor_axis"),
           "Partial sums over a reduction loop in a new block: rf = sch.rfactor(k1, 1).")
      .def("storage_align", &S::storage_align, pyb::arg("block"), pyb::arg("write_index"), pyb::arg("axis"),
           pyb::arg("factor"), pyb::arg("offset"),
           "Pads a written buffer's stride along axis to offset mod factor: sch.storage_align(b, 0, 0, 16, 1).")
      .def("compute_inline", &S::compute_inline, pyb::arg("block"),
           "Computes a producer where each consumer reads it: sch.compute_inline(sch.get_block('pad')).")
      .def("reverse_compute_inline", &S::reverse_compute_inline, pyb::arg("block"),
           "Folds a consumer into its elementwise producer: sch.reverse_compute_inline(sch.get_block('relu')).")
      .def("sample_perfect_tile", &S::sample_perfect_tile, pyb::arg("loop"), pyb::arg("n"),
           pyb::arg("max_innermost") = 0, pyb::arg("decision") = std::nullopt,
           "n factors whose product is the loop's extent: sch.split(j, sch.sample_perfect_tile(j, 2, 16)).")
      .def("sample_tile", &S::sample_tile, pyb::arg("loop"), pyb::arg("n"), pyb::arg("max_innermost") = 0,
           pyb::arg("decision") = std::nullopt, "n factors that cover the loop's extent (the rest predicated).")
      .def("sample_categorical", &S::sample_categorical, pyb::arg("candidates"), pyb::arg("probs"),
           pyb::arg("decision") = std::nullopt,
           "One of the candidates: u = sch.sample_categorical([0, 16, 64], [0.2, 0.3, 0.5]).")
      .def("sample_compute_location", &S::sample_compute_location, pyb::arg("block"),
           pyb::arg("decision") = std::nullopt,
           "Where to compute a block (a loop, root or inline): sch.compute_at(b, sch.sample_compute_location(b)).")
      .def("__repr__", [](const S& s) {
        return "<kiln.Schedule of " + s.func().name() + ", " + std::to_string(s.trace().size()) + " instructions>";
      });
}

}  // namespace kiln::py
