// ONNX models (graph/onnx_import.h): files users download and import with
// `kiln graph`, `kiln compile` and `kiln run`. The bytes are a serialized
// ModelProto, imported as the file would be, shapes inferred; then what
// every compile does before code generation: the graph passes (the
// recognizers of graph/recognize.h among them), fusion and the tasks'
// functions.
//
// Constant folding runs the reference interpreter, some 30 times slower
// in this sanitized, instrumented build: its bound is set to 2^20 steps
// (2^26 by default) so that what is fuzzed is the importer and the bound,
// not the interpreter's throughput on a large constant within it.
#include <string>

#include "fuzz/fuzz_util.h"
#include "graph/fuse.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/tasks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = kiln::fuzz::as_string(data, size);
  kiln::graph::ImportOptions options;
  options.max_fold_steps = double(1 << 20);
  kiln::fuzz::user_errors_are_fine([&] {
    // Every pass on, as an AVX-512 target has them: blocked convolutions,
    // padded dense columns.
    const kiln::graph::PassOptions passes{.lanes = 16, .dense_lanes = 16};
    const kiln::graph::Graph g = kiln::graph::run_passes(kiln::graph::import_onnx_bytes(bytes, options), "", passes);
    kiln::graph::extract_tasks(g, kiln::graph::fuse_operators(g));
  });
  return 0;
}
