// kiln_model_server: a compiled model kept loaded and warm, timed on
// request, so that bench/models can interleave it with onnxruntime and
// OpenVINO in short blocks.
//
//   kiln_model_server COMPILED_DIR INPUTS_DIR THREADS
//
// It loads the model and the inputs (INPUTS_DIR/input_N.pb), runs it once,
// prints {"ready": true} and then answers each line "N [W]" on stdin with
// one JSON line: the milliseconds of N timed runs, after untimed ones for W
// milliseconds (one at least; W 0 when absent), and where the host has put
// the threads just before them (a cache line's round trip,
// targets/runtime/thread_distance.h). End of input ends it.
//
// Why a server and not `kiln run` per round: the shared hosts these benches
// run on change speed for seconds at a time (the same kernel read 250 and
// 320 GFLOP/s a minute apart), and a round of `kiln run`, onnxruntime and
// OpenVINO one after the other lets one side run through a slow spell the
// others miss. Blocks of a few runs each, taken in turn by three processes
// already loaded, share the spells out alike.
#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "bench/guarded_main.h"
#include "graph/compiled_model.h"
#include "graph/onnx_import.h"
#include "targets/runtime/thread_distance.h"

namespace kiln::bench {
namespace {

int serve(int argc, char** argv) {
  if (argc != 4) KILN_USER_ERROR() << "usage: kiln_model_server COMPILED_DIR INPUTS_DIR THREADS";
  graph::CompiledModel model = graph::CompiledModel::load(argv[1]);
  const std::vector<NDArray> in = graph::read_numbered_tensors(argv[2], "input");
  ThreadPool pool(std::stoi(argv[3]));
  model.run(in, pool);
  std::cout << nlohmann::json{{"ready", true}, {"threads", pool.num_threads()}}.dump() << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream request(line);
    int runs = 0;
    double warm_ms = 0;
    // N, then W where given: anything else is a malformed request, not a W of 0.
    bool well_formed = (request >> runs) && runs >= 0;
    if (well_formed && !(request >> std::ws).eof()) well_formed = (request >> warm_ms) && warm_ms >= 0;
    if (!well_formed || !(request >> std::ws).eof())
      KILN_USER_ERROR() << "a request is \"N [W]\", not '" << line << "'";
    const double round_trip_ns = thread_round_trip_ns(pool);
    const auto warm_until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(warm_ms);
    do model.run(in, pool);
    while (std::chrono::steady_clock::now() < warm_until);
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      model.run(in, pool);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::cout << nlohmann::json{{"ms", ms}, {"thread_round_trip_ns", round_trip_ns}}.dump() << std::endl;
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::guarded_main("kiln_model_server", kiln::bench::serve, argc, argv); }
