// Tuning databases as JSON lines (tuning_logs/jsonl.h): shared between
// users and read by `kiln db import`. Each input is imported into a fresh
// in-memory database, every line checked as the command checks it.
#include <sstream>
#include <string>

#include "fuzz/fuzz_util.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/open_database.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(kiln::fuzz::as_string(data, size));
  kiln::fuzz::user_errors_are_fine([&] {
    auto db = kiln::tuning::open_database(":memory:");
    kiln::tuning::import_jsonl(*db, in, "input.jsonl");
  });
  return 0;
}
