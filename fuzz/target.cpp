// Target strings (targets/target.h): given on the command line, stored in
// every tuning record and sent by peers with each artifact. A parsed target
// must print canonically and parse back to itself.
#include <string>

#include "fuzz/fuzz_util.h"
#include "targets/target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = kiln::fuzz::as_string(data, size);
  kiln::fuzz::user_errors_are_fine([&] {
    const kiln::Target t = kiln::Target::parse(text);
    KILN_ICHECK(kiln::Target::parse(t.str()) == t) << "'" << t.str() << "' does not parse back to itself";
    if (t.is_gpu()) {
      t.gpu_limits();
    } else {
      t.isa_features();
      t.llvm_features();
    }
    t.vector_lanes(kiln::DataType::Float32());
    t.cannot_run_on(kiln::Target::host());
  });
  return 0;
}
