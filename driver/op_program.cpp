#include "driver/op_program.h"

#include "core/file.h"

#include <algorithm>
#include <iostream>

#include "search/sample.h"
#include "tir/analysis/flops.h"
#include "tir/analysis/workload_key.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/schedule.h"
#include "tuning_logs/apply_record.h"
#include "tuning_logs/best.h"
#include "tuning_logs/open_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln {

std::optional<StoredTrace> best_trace(const std::string& db_path, const PrimFunc& func, const Target& target) {
  auto db = tuning::open_database(db_path, tuning::OpenMode::kExisting);
  std::optional<tuning::TuningRecord> best = tuning::best_record(*db, func, target.str());
  if (!best) {
    std::cerr << "kiln: warning: " << tuning::database_name(db_path) << ": " << tuning::no_record_message(*db, func, target.str())
              << "; using the default schedule\n";
    return std::nullopt;
  }
  std::string origin = tuning::database_name(db_path) + ": record " + std::to_string(best->id) + " (workload " + best->workload_key +
                       ", target '" + best->target + "')";
  try {
    return StoredTrace{tuning::record_trace(*best), origin};
  } catch (const Error& e) {
    KILN_USER_ERROR() << tuning::database_name(db_path) << ": " << e.what();
  }
}

namespace {

// The function a trace file applies to: `f` itself, or its stored form
// (tuning_logs/apply_record.h) where the trace's first block is one only
// that form names: a record's trace taken out of a tuning database (`kiln
// db best --json`, `kiln db export`) names the blocks b0, b1, ... and
// applies, edited or not, as the database applies it.
PrimFunc form_named_by(const Trace& trace, const PrimFunc& f) {
  for (const Instruction& inst : trace.instructions()) {
    if (inst.kind != &inst::get_block) continue;
    const std::string& name = std::get<BlockNameAttrs>(inst.attrs).name;
    auto names = [&](const PrimFunc& g) {
      const std::vector<std::string> all = block_names(g.body());
      return std::find(all.begin(), all.end(), name) != all.end();
    };
    if (names(f)) return f;
    PrimFunc stored = tuning::stored_form(f);
    return names(stored) ? stored : f;
  }
  return f;
}

PrimFunc postprocessed_again(const PrimFunc& f, const Trace& trace) {
  const Trace design = trace.without_postproc();
  if (design.size() == trace.size()) return apply_trace(trace, f).func();
  search::SampleFailure why;
  std::optional<search::Candidate> c = search::replay_candidate(f, design, &why);
  if (!c) KILN_USER_ERROR() << "the trace's design makes no candidate: " << why.name() << ": " << why.message;
  return c->func;
}

}  // namespace

ScheduledProgram schedule_and_lower(const PrimFunc& f, const std::string& what, const Target& target,
                                    const PrepareOptions& options) {
  const Trace* trace = options.trace;
  std::optional<StoredTrace> from_db;
  if (!trace && !options.db.empty() && (from_db = best_trace(options.db, f, target))) trace = &from_db->trace;
  PrimFunc scheduled = default_program(f, target);
  try {
    if (trace) {
      const PrimFunc named = from_db ? tuning::stored_form(f) : form_named_by(*trace, f);
      scheduled = options.postprocess_again ? postprocessed_again(named, *trace) : apply_trace(*trace, named).func();
    }
  } catch (const Error& e) {
    if (!from_db) throw;
    KILN_USER_ERROR() << from_db->origin << ", the best for " << what
                      << ", holds a trace that no longer applies: " << e.what();
  }
  PrimFunc lowered = lower(scheduled, target, options.after_pass);
  return {scheduled, lowered, from_db ? from_db->origin : ""};
}

OpProgram prepare_op(const std::string& workload, const Target& target, const PrepareOptions& options) {
  ops::Workload w = ops::parse_workload(workload);
  PrimFunc f = ops::build_workload(w);
  ScheduledProgram p = schedule_and_lower(f, w.str(), target, options);
  return OpProgram{w, target, f, p.scheduled, p.lowered};
}

NamedWorkload named_workload(const std::string& workload, const std::string& db_path) {
  if (!is_workload_key(workload)) {
    ops::Workload w = ops::parse_workload(workload);
    return {w.str(), ops::workload_flops(w), ops::build_workload(w)};
  }
  if (db_path.empty()) KILN_USER_ERROR() << "a workload key (" << workload << ") needs --db, the database that holds it";
  PrimFunc f = stored_workload(db_path, workload);
  return {workload, estimate_flops(f), f};
}

NamedProgram prepare_workload_or_key(const std::string& workload, const Target& target,
                                     const PrepareOptions& options) {
  NamedWorkload w = named_workload(workload, options.db);
  ScheduledProgram p = schedule_and_lower(w.func, w.name, target, options);
  return {w.name, w.flops, w.func, p.scheduled, p.lowered, p.applied};
}

PrimFunc stored_workload(const std::string& db_path, const std::string& key) {
  auto db = tuning::open_database(db_path, tuning::OpenMode::kExisting);
  std::optional<tuning::WorkloadEntry> entry = db->workload(key);
  if (!entry) KILN_USER_ERROR() << tuning::database_name(db_path) << " holds no workload " << key << " (kiln db list shows what it holds)";
  try {
    return tuning::read_workload_ir(entry->ir_json);
  } catch (const Error& e) {
    KILN_USER_ERROR() << tuning::database_name(db_path) << ": workload " << key << ": " << e.what();
  }
}

Trace read_trace_file(const std::string& path) {
  const std::string text = read_file(path, "trace file");
  try {
    return Trace::parse(text);
  } catch (const Error& e) {
    KILN_USER_ERROR() << path << ": " << e.what();
  }
}

}  // namespace kiln
