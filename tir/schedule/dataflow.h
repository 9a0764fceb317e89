// A trace's dataflow: which instruction made each handle, and where each
// instruction sits in the graph of handles, independent of the order the
// instructions were written in.
//
// The search recognises structure in a trace (a block's register tile, the
// unroll step's draw, the sketch a stored design was drawn from). Read by
// position ("the tile samples after the last get_block", "the instruction
// after a categorical draw"), a rule that moves an annotation earlier, or
// draws one tile before another, would break the search without an error.
// Read by def-use, it does not: a block's register tile is the tile samples
// of the loops that get_loops gave for that block's handle, whatever comes
// between them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tir/schedule/trace.h"

namespace kiln {

class TraceDefs {
 public:
  explicit TraceDefs(const Trace& t);

  struct Def {
    size_t instruction;
    size_t output;  // which of its outputs
  };
  // The instruction that made `rv`, nullopt when none did.
  std::optional<Def> def(const RV& rv) const;
  // The instruction that made input `k` of instruction `i`, when that input
  // is a handle.
  std::optional<Def> def_of_input(size_t i, size_t k) const;
  // The name a block handle stands for, when a get_block made it.
  std::optional<std::string> block_name(const RV& rv) const;

 private:
  const Trace& t_;
  std::vector<std::optional<Def>> by_id_;  // handle ids are unique within a trace
};

// Each instruction's site: a hash of its kind, its attributes and the sites
// of the instructions that made its inputs (with which output), so that
// two traces that run the same primitives on the same handles have the same
// sites, in whatever order they ran them. Decisions are left out: a design
// and the sketch it was drawn from have the same sites. With
// `with_block_names` false, get_block's name is left out too, so that a
// sibling workload whose blocks are named differently matches.
std::vector<uint64_t> instruction_sites(const Trace& t, bool with_block_names = true);

}  // namespace kiln
