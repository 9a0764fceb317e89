// One model from .onnx file to scheduled tasks: the path shared by `kiln
// compile`, `kiln run` and `kiln tune`.
//
//   model.onnx --graph::import_onnx_file--> Graph (shapes inferred, constants folded)
//     --graph::run_passes--> Graph (batch norms folded, dead nodes dropped,
//        convolutions in blocked channels)
//     --graph::fuse_operators--> fused groups
//     --graph::extract_tasks--> tasks (one per distinct group, with weights)
//     --schedule_tasks--> each task's function, as the tuning database's
//        best record schedules it, or its untuned design
//        (search/untuned_design.h)
//     --graph::write_compiled_model--> OUT/ (kernels.so, model.json, weights.bin)
#pragma once

#include <string>
#include <vector>

#include "graph/fuse.h"
#include "graph/graph.h"
#include "graph/passes.h"
#include "graph/tasks.h"
#include "targets/target.h"

namespace kiln {

struct ModelProgram {
  graph::Graph imported;  // as read: what the reference executor checks against
  graph::Graph graph;     // after the graph passes
  std::vector<graph::FusedGroup> groups;
  std::vector<graph::Task> tasks;
};

// The graph passes' options for the model commands' --layout flag:
// "nchwc" blocks convolutions for `target`'s float32 vector lanes
// (graph/layout.h), "nchw" keeps them as the model has them. Throws
// kiln::Error naming the flag for another value.
graph::PassOptions pass_options(const std::string& layout, const Target& target);
inline constexpr const char* kLayoutHelp =
    "nchwc: convolutions in blocked channels for the target's vectors (default); nchw: as the model has them";

// Imports, runs the graph passes, fuses and extracts the tasks.
// `input_shapes` as the flag takes it ("name:[1,3,224,224] other:[1,128]";
// empty: the model's own shapes).
ModelProgram prepare_model(const std::string& path, const std::string& input_shapes,
                           const graph::PassOptions& passes);

// Task t's function as the best record of `db_path` (none: no database)
// for its workload and `target` schedules it, or its untuned design (its
// default program where the space makes none). A warning on stderr names
// the tasks left untuned.
std::vector<PrimFunc> schedule_tasks(const ModelProgram& m, const std::string& db_path, const Target& target);

}  // namespace kiln
