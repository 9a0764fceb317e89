#include "core/error_kind.h"

#include <array>
#include <utility>

namespace kiln {
namespace {

constexpr std::array<std::pair<ErrorKind, const char*>, 9> kNames = {{
    {ErrorKind::kNone, "none"},
    {ErrorKind::kInstantiation, "instantiation"},
    {ErrorKind::kLowering, "lowering"},
    {ErrorKind::kCompile, "compile"},
    {ErrorKind::kBuildTimeout, "build_timeout"},
    {ErrorKind::kRuntimeError, "runtime_error"},
    {ErrorKind::kTimeout, "timeout"},
    {ErrorKind::kWrongAnswer, "wrong_answer"},
    {ErrorKind::kUnsupportedTarget, "unsupported_target"},
}};
static_assert(kNames.back().first == ErrorKind::kUnsupportedTarget, "every kind is named");

}  // namespace

const char* error_kind_name(ErrorKind k) {
  for (const auto& [kind, name] : kNames)
    if (kind == k) return name;
  return "unknown";
}

std::optional<ErrorKind> parse_error_kind(const std::string& name) {
  for (const auto& [kind, n] : kNames)
    if (name == n) return kind;
  return std::nullopt;
}

}  // namespace kiln
