// Precompiled once and reused by every test binary (tests/CMakeLists.txt):
// the headers nearly every test file includes. Parsing gtest, nlohmann's
// JSON and the IR's headers took a second or more of each of some 240 test
// files; precompiled, each file parses them in a blink.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expr.h"
#include "tir/stmt.h"
