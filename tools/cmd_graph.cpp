// kiln graph MODEL.onnx [--input-shapes "name:[1,3,224,224]"] | kiln graph --ops
#include <iostream>

#include "core/error.h"
#include "graph/onnx_import.h"
#include "graph/op_table.h"
#include "tools/commands.h"

namespace kiln::cli {

void add_graph(CLI::App& app) {
  struct Args {
    std::string model;
    std::string input_shapes;
    bool ops = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("graph", "print an ONNX model as kiln's graph IR, every shape inferred");
  cmd->add_option("model", args->model, "the .onnx file");
  cmd->add_option("--input-shapes", args->input_shapes,
                  "shapes of inputs with dynamic dimensions: \"name:[1,3,224,224] other:[1,128]\"");
  cmd->add_flag("--ops", args->ops, "list the ONNX operators kiln compiles");
  cmd->callback([args] {
    if (args->ops) {
      for (const graph::OpDef& d : graph::op_table()) std::cout << d.name << ": " << d.summary << "\n";
      std::cout << "(default domain, opsets 1 to " << graph::kMaxOpset << ")\n";
      return;
    }
    if (args->model.empty()) KILN_USER_ERROR() << "kiln graph: give a model file (or --ops)";
    graph::ImportOptions options;
    options.input_shapes = graph::parse_input_shapes(args->input_shapes);
    std::cout << graph::import_onnx_file(args->model, options).str();
  });
}

}  // namespace kiln::cli
