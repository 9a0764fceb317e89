// A trace: the instructions a Schedule ran, with the decisions of its samples.
//
// The trace, not the scheduled IR, is what kiln keeps: the tuning database
// stores it, the search mutates a candidate by changing one decision and
// replaying, and `kiln bench-op --trace` reads one written by hand. Replaying
// a trace on the unscheduled function gives the same program every time.
//
// The JSON form is a public format (docs/schedule_trace.md):
//
//   {"kiln_trace": 1, "instructions": [
//     {"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
//     {"kind": "get_loops", "inputs": ["b0"], "attrs": [], "outputs": ["l1", "l2", "l3"]},
//     {"kind": "sample_perfect_tile", "inputs": ["l1"], "attrs": [2, 16],
//      "outputs": ["v4", "v5"], "decision": [8, 8]},
//     {"kind": "split", "inputs": ["l1", "v4", "v5"], "attrs": [], "outputs": ["l6", "l7"]}]}
//
// A handle is written as its kind's letter (b block, l loop, v value) and a
// number; numbers are given in order of definition when a trace is written.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tir/schedule/error.h"
#include "tir/schedule/instruction.h"

namespace kiln {

inline constexpr int kTraceJsonVersion = 1;

// A trace that does not apply: which instruction, and why, by kind (the
// ScheduleError's, or kOther for any other kiln::Error), so that the search
// can count its failures by kind and mend the ones it knows how to.
class TraceError : public Error {
 public:
  TraceError(size_t instruction, ScheduleErrorKind kind, const std::string& message)
      : Error(message), instruction_(instruction), kind_(kind) {}
  size_t instruction() const { return instruction_; }
  ScheduleErrorKind kind() const { return kind_; }

 private:
  size_t instruction_;
  ScheduleErrorKind kind_;
};

class Trace {
 public:
  const std::vector<Instruction>& instructions() const { return insts_; }
  size_t size() const { return insts_.size(); }
  void append(Instruction inst) { insts_.push_back(std::move(inst)); }

  // This trace with instruction i's decision replaced. Throws kiln::Error if
  // instruction i does not sample. The decision is checked when replayed.
  Trace with_decision(size_t i, Decision decision) const;
  // The instructions before the first enter_postproc: the design-space part
  // that the search mutates and replays (the whole trace if it has none).
  Trace without_postproc() const;

  // Runs every instruction on `sch`. Throws TraceError naming the first
  // instruction that does not apply ("trace instruction 4: (split) ...");
  // `sch` then holds the state before that instruction.
  void apply(Schedule& sch) const;

  nlohmann::json to_json() const;
  // A 64-bit hash of what to_json() says (kinds, inputs, attributes,
  // decisions; handles by order of definition, as to_json names them), at a
  // fraction of its cost: the search's identity of a trace, computed for
  // every candidate it considers. Equal traces have equal fingerprints;
  // unequal ones collide with probability about 2^-64 per pair.
  uint64_t fingerprint() const;
  // Reads and checks a trace: every kind known, every input defined by an
  // earlier output of the right kind. Throws kiln::Error naming the
  // instruction and field at fault.
  static Trace from_json(const nlohmann::json& doc);
  static Trace parse(const std::string& text);  // JSON text

  // A Python-like listing, one instruction per line, for people:
  //   l4, l5 = split(l1, None, 16)
  std::string str() const;

 private:
  std::vector<Instruction> insts_;
};

}  // namespace kiln
