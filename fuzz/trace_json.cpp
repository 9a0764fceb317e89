// Schedule traces as JSON (tir/schedule/trace.h): stored in every tuning
// record, shared in databases and written by hand for
// `kiln bench-op --trace`. The trace is read and replayed on matmul 8x8x8
// as bench-op replays a trace file, and on its canonical form (block names
// b0, b1, ...) as it replays a database's; what applies must print.
#include <string>

#include "fuzz/fuzz_util.h"
#include "ops/workload.h"
#include "tir/analysis/workload_key.h"
#include "tir/printer.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const kiln::PrimFunc matmul = kiln::ops::build_workload(kiln::ops::parse_workload("matmul:M=8,N=8,K=8"));
  static const kiln::PrimFunc canonical = kiln::canonical_workload(matmul);
  const std::string text = kiln::fuzz::as_string(data, size);
  kiln::fuzz::user_errors_are_fine([&] {
    const kiln::Trace trace = kiln::Trace::parse(text);
    const kiln::Trace again = kiln::Trace::from_json(trace.to_json());
    KILN_ICHECK(again.fingerprint() == trace.fingerprint()) << "the trace's JSON reads back as another trace";
    trace.str();
    for (const kiln::PrimFunc& f : {matmul, canonical})
      kiln::fuzz::user_errors_are_fine([&] { kiln::to_string(kiln::apply_trace(trace, f).func()); });
  });
  return 0;
}
