#include "driver/model_program.h"

#include <iostream>

#include "core/error.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "search/untuned_design.h"
#include "tir/analysis/workload_key.h"
#include "tir/schedule/schedule.h"
#include "tuning_logs/apply_record.h"
#include "tuning_logs/best.h"
#include "tuning_logs/open_database.h"

namespace kiln {

graph::PassOptions pass_options(const std::string& layout, const Target& target) {
  graph::PassOptions o;
  o.dense_lanes = target.vector_lanes(DataType::Float32());
  if (layout == "nchwc")
    o.lanes = target.vector_lanes(DataType::Float32());
  else if (layout != "nchw")
    KILN_USER_ERROR() << "--layout takes nchwc or nchw, not '" << layout << "'";
  return o;
}

ModelProgram prepare_model(const std::string& path, const std::string& input_shapes,
                           const graph::PassOptions& passes) {
  graph::ImportOptions options;
  options.input_shapes = graph::parse_input_shapes(input_shapes);
  ModelProgram m;
  m.imported = graph::import_onnx_file(path, options);
  m.graph = graph::run_passes(m.imported, "", passes);
  m.groups = graph::fuse_operators(m.graph);
  m.tasks = graph::extract_tasks(m.graph, m.groups);
  return m;
}

std::vector<PrimFunc> schedule_tasks(const ModelProgram& m, const std::string& db_path, const Target& target) {
  std::vector<PrimFunc> out;
  std::unique_ptr<tuning::Database> db;
  if (!db_path.empty()) db = tuning::open_database(db_path, tuning::OpenMode::kExisting);
  std::vector<std::string> untuned;
  for (size_t t = 0; t < m.tasks.size(); ++t) {
    const graph::Task& task = m.tasks[t];
    std::optional<tuning::TuningRecord> best;
    if (db) best = tuning::best_record(*db, task.func, target.str());
    if (!best) {
      std::optional<search::Candidate> c =
          search::untuned_design(tuning::stored_form(task.func), target, graph::constant_params(m.graph, task));
      out.push_back(c ? c->func : task.func);
      untuned.push_back("task " + std::to_string(t) + " (" + task.name + ")");
      continue;
    }
    try {
      out.push_back(tuning::apply_record(*best, task.func));
    } catch (const Error& e) {
      KILN_USER_ERROR() << tuning::database_name(db_path) << ": the best for task " << t << " (" << task.name
                        << "): " << e.what();
    }
  }
  if (!untuned.empty()) {
    std::cerr << "kiln: warning: " << untuned.size() << " of " << m.tasks.size() << " tasks have no tuned record"
              << (db_path.empty() ? "" : " in " + tuning::database_name(db_path)) << " for '" << target.str()
              << "' and run an untuned design (search/untuned_design.h):";
    for (const std::string& u : untuned) std::cerr << " " << u << (&u == &untuned.back() ? "" : ",");
    std::cerr << "\n";
  }
  return out;
}

}  // namespace kiln
