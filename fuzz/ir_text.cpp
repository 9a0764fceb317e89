// IR text (tir/parser/parser.h): what `kiln print` writes and tests and
// users write by hand. The first byte picks the entry point (a function, a
// module, an expression), the rest is the text. What parses must print to
// text that parses to a structurally equal program: the parser's contract.
// An expression's variables (written T.Var("x", "int32")) print as plain
// names, so the second parse is given them, as a test gives a fragment its
// free variables (vars_of).
#include <optional>
#include <string>

#include "core/functor.h"
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
  KILN_ICHECK(kiln::structural_equal(first, second, kiln::FreeVars::kMap)) << "the printed form parses to another program:\n" << printed;
}

// The variables of `e` for its second parse, when they can be told apart
// by the names the printer gives them: distinct plain identifiers. Others
// (T.Var("x") twice, T.Var("a b")) print as names that no environment
// resolves, so such an expression is parsed once, not round-tripped.
std::optional<kiln::ParseEnv> vars_of(const kiln::Expr& e) {
  kiln::ParseEnv env;
  bool nameable = true;
  kiln::post_order_visit(e, [&](const kiln::Expr& n) {
    const auto* v = n.as<kiln::VarNode>();
    if (!v) return;
    for (const kiln::Var& seen : env.vars) {
      if (seen.same_as(n)) return;
      nameable = nameable && seen.name() != v->name;
    }
    nameable = nameable && kiln::is_plain_identifier(v->name);
    env.vars.push_back(kiln::Var(n.ptr()));
  });
  if (!nameable) return std::nullopt;
  return env;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text = kiln::fuzz::as_string(data + 1, size - 1);
  kiln::fuzz::user_errors_are_fine([&] {
    switch (data[0] % 3) {
      case 0: return round_trip<kiln::PrimFunc>(text, [](const std::string& s) { return kiln::parse_prim_func(s); });
      case 1: return round_trip<kiln::IRModule>(text, [](const std::string& s) { return kiln::parse_module(s); });
      default: {
        const std::optional<kiln::ParseEnv> env = vars_of(kiln::parse_expr(text));
        if (env) round_trip<kiln::Expr>(text, [&](const std::string& s) { return kiln::parse_expr(s, *env); });
        return;
      }
    }
  });
  return 0;
}
