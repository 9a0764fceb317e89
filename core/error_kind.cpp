#include "core/error_kind.h"

#include <array>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <utility>

#include "core/error.h"

namespace kiln {
namespace {

constexpr std::array<std::pair<ErrorKind, const char*>, 10> kNames = {{
    {ErrorKind::kNone, "none"},
    {ErrorKind::kInstantiation, "instantiation"},
    {ErrorKind::kLowering, "lowering"},
    {ErrorKind::kCompile, "compile"},
    {ErrorKind::kBuildTimeout, "build_timeout"},
    {ErrorKind::kRuntimeError, "runtime_error"},
    {ErrorKind::kTimeout, "timeout"},
    {ErrorKind::kWrongAnswer, "wrong_answer"},
    {ErrorKind::kUnsupportedTarget, "unsupported_target"},
    {ErrorKind::kInternal, "internal"},
}};
static_assert(kNames.back().first == ErrorKind::kInternal, "every kind is named");

std::atomic<int64_t> g_internal_errors{0};

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

CaughtError caught_error(ErrorKind stage) {
  try {
    throw;
  } catch (const InternalError& e) {
    return {ErrorKind::kInternal, e.what()};
  } catch (const std::logic_error& e) {
    return {ErrorKind::kInternal, std::string("internal error: ") + e.what()};
  } catch (const std::exception& e) {
    return {stage, e.what()};
  } catch (...) {
    return {stage, "an exception of unknown type"};
  }
}

int64_t internal_errors_met() { return g_internal_errors.load(); }
void note_internal_error() { g_internal_errors.fetch_add(1); }

}  // namespace kiln
