// Choosing among a task's tuned records inside the model that runs them.
//
// The tuner times each task alone: its inputs written by the harness, its
// weights cold, nothing else of the model in the caches or the TLB. In
// the compiled model a kernel runs between forty others, after 14 MB of
// weights and 7 MB of activations have gone through the caches, and two
// records within 2% of each other alone can part by a third there:
// mobilenet_v2's 16->96 expansion at 112², best of 200 trials at 0.091 ms
// alone, ran 0.121-0.133 ms in the model, where the first few layers
// compiled as a model of their own ran it at 0.094 (docs/onnx.md,
// "Records picked inside the model"). Which designs suffer is not
// something the harness reproduces: evicting or dirtying the caches
// around the kernel did not.
//
// So the choice among a task's best few records is made where it counts:
// the model is compiled once per rank, variant j taking every task's j-th
// best record (its last where it has fewer), the variants run in turn on
// this machine, each call timed, and each task keeps the record whose
// calls took the least time in the model (the median over the rounds).
// The picks together are then timed end to end against the best alone
// together, and kept only if faster.
// A task's record is timed beside the other tasks' records of the same
// rank; running the variants in turn, round after round, makes a change
// of the machine's state (docs/onnx.md, "Where the host puts the two
// threads") fall on all of them alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/model_program.h"
#include "targets/target.h"
#include "tir/stmt.h"

namespace kiln {

struct PickOptions {
  int candidates = 4;        // each task's best records tried, at most
  double seconds = 3;        // rounds of the variants until this long has passed,
  int min_rounds = 20;       // and at least this many
};

// What the rounds found for one task.
struct TaskPick {
  std::vector<int64_t> record_ids;  // its candidates, best alone first; empty: no record
  std::vector<double> alone_ms;     // each one's time alone (its rank in the database)
  std::vector<double> model_ms;     // each one's calls in the model, per run (median over the rounds)
  size_t picked = 0;                // the index of the record kept
};

struct InModelPick {
  std::vector<PrimFunc> funcs;  // per task: what the picked record schedules (as schedule_tasks)
  std::vector<TaskPick> tasks;
  int rounds = 0;
  // Where a task changed: the model of the picks and the model of the best
  // alone timed end to end in turn (medians, ms). Not kept (every task back
  // to its best alone) unless the picks were faster.
  double alone_ms = 0, picked_ms = 0;
  bool kept = true;
};

// Runs the variants on this machine: throws kiln::Error when `target`
// cannot run here or `db_path` is not a database. A task without records
// runs its untuned design in every variant (schedule_tasks warns of it).
InModelPick pick_in_model(const ModelProgram& m, const std::string& db_path, const Target& target,
                          const PickOptions& options = {});

// Each task's function for compiling the model: its best record alone
// (schedule_tasks), or with pick > 1 the one of its `pick` best that ran
// fastest in the model (pick_in_model, what it found in *found). Throws
// kiln::UserError for pick > 1 without a database: the pick chooses among
// its records. What `kiln compile` and Python's Model.compile call.
std::vector<PrimFunc> scheduled_for_model(const ModelProgram& m, const std::string& db_path, const Target& target,
                                          int pick, InModelPick* found = nullptr);

}  // namespace kiln
