// IR text (tir/parser/parser.h): what `kiln print` writes and tests and
// users write by hand. The first byte picks the entry point (a function, a
// module, an expression), the rest is the text. What parses must print to
// text that parses to a structurally equal program: the parser's contract.
#include <string>

#include "core/printer.h"
#include "core/structural.h"
#include "fuzz/fuzz_util.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"

namespace {

template <typename T, typename Parse>
void round_trip(const std::string& text, Parse parse) {
  const T first = parse(text);
  const std::string printed = kiln::to_string(first);
  T second;
  try {
    second = parse(printed);
  } catch (const kiln::Error& e) {
    KILN_ICHECK(false) << "the printed form does not parse again: " << e.what() << "\n" << printed;
  }
  KILN_ICHECK(kiln::structural_equal(first, second)) << "the printed form parses to another program:\n" << printed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text = kiln::fuzz::as_string(data + 1, size - 1);
  kiln::fuzz::user_errors_are_fine([&] {
    switch (data[0] % 3) {
      case 0: return round_trip<kiln::PrimFunc>(text, [](const std::string& s) { return kiln::parse_prim_func(s); });
      case 1: return round_trip<kiln::IRModule>(text, [](const std::string& s) { return kiln::parse_module(s); });
      default: return round_trip<kiln::Expr>(text, [](const std::string& s) { return kiln::parse_expr(s); });
    }
  });
  return 0;
}
