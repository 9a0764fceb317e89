// ONNX models (graph/onnx_import.h): files users download and compile with
// `kiln model`. The bytes are a serialized ModelProto, imported as the
// file would be, shapes inferred.
#include <string>

#include "fuzz/fuzz_util.h"
#include "graph/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = kiln::fuzz::as_string(data, size);
  kiln::fuzz::user_errors_are_fine([&] { kiln::graph::import_onnx_bytes(bytes); });
  return 0;
}
