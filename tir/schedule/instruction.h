// Instructions: one recorded call of a schedule primitive.
//
// An instruction is its kind, its inputs (handles made by earlier
// instructions, integer constants, or none), its attributes (the plain values
// of the call: a name, a tile's level count, a thread tag; typed,
// inst_attrs.h) and its outputs (the handles it made). A sampling instruction also carries its decision, the
// value it drew (decision.h), which a replay reuses and the search changes.
//
// The traits of each kind (its name, whether it samples, and how to run it
// again on a Schedule) live at the bottom of the primitive's own file. The
// list below names them all, so that the linker keeps every primitive and a
// trace read from JSON finds its kinds by name; a new primitive is its file
// plus one line here.
#pragma once

#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "tir/schedule/decision.h"
#include "tir/schedule/handles.h"
#include "tir/schedule/inst_attrs.h"

namespace kiln {

class Schedule;

// One input: a handle, an integer constant, or nothing (split's inferred factor).
using InstInput = std::variant<std::monostate, RV, int64_t>;

struct InstructionKind {
  std::string_view name;
  bool is_sampling;
  // Runs the instruction again on `sch`, whose handles `inputs` already
  // name, and returns the handles it made (as many as the original made).
  std::vector<RV> (*apply)(Schedule& sch, const std::vector<InstInput>& inputs, const InstAttrs& attrs,
                           const Decision& decision);
  // A sampling kind's decision from its JSON form (decision.h); throws
  // kiln::Error when it is not of the kind's form. Null for other kinds.
  Decision (*read_decision)(const nlohmann::json& j) = nullptr;
  // The kind's attributes from their JSON form (inst_attrs.h); throws
  // kiln::Error naming the attribute that is not of the kind's form.
  InstAttrs (*read_attrs)(const nlohmann::json& j) = attrs_from_json<NoAttrs>;
};

#define KILN_FOR_EACH_INSTRUCTION(X) \
  X(get_block)                       \
  X(get_loops)                       \
  X(get_child_blocks)                \
  X(split)                           \
  X(fuse)                            \
  X(reorder)                         \
  X(parallel)                        \
  X(vectorize)                       \
  X(unroll)                          \
  X(bind)                            \
  X(annotate)                        \
  X(decompose_reduction)             \
  X(cache_read)                      \
  X(cache_write)                     \
  X(compute_at)                      \
  X(reverse_compute_at)              \
  X(compute_inline)                  \
  X(reverse_compute_inline)          \
  X(set_scope)                       \
  X(transform_layout)                \
  X(rfactor)                         \
  X(storage_align)                   \
  X(sample_perfect_tile)             \
  X(sample_tile)                     \
  X(sample_categorical)              \
  X(sample_compute_location)        \
  X(enter_postproc)                  \
  X(tensorize)

namespace inst {
#define X(name) extern const InstructionKind name;
KILN_FOR_EACH_INSTRUCTION(X)
#undef X
}  // namespace inst

// The kind called `name`, or nullptr.
const InstructionKind* find_instruction_kind(std::string_view name);

struct Instruction {
  const InstructionKind* kind = nullptr;
  std::vector<InstInput> inputs;
  InstAttrs attrs;
  std::vector<RV> outputs;
  Decision decision;  // none unless kind->is_sampling
};

// sample_perfect_tile or sample_tile: its decision is tile factors, outermost first.
inline bool is_tile_sample(const Instruction& inst) {
  return inst.kind == &inst::sample_perfect_tile || inst.kind == &inst::sample_tile;
}

// A tile sample's factors, outermost first (TileDecision), or nullptr when
// `inst` holds no tile decision.
inline const std::vector<int64_t>* tile_factors(const Instruction& inst) {
  const auto* t = std::get_if<TileDecision>(&inst.decision);
  return t ? &t->factors : nullptr;
}

}  // namespace kiln
