// The OpenCL runtime on the machine's device (PoCL here): a program built
// from source runs over host tensors, and a program that does not build
// says why, with the compiler's log.
#include <gtest/gtest.h>

#include "core/error.h"
#include "targets/runtime/opencl.h"

namespace kiln {
namespace {

TEST(OpenclRuntime, AKernelFromSourceRunsOverHostTensors) {
  OpenclDevice& dev = OpenclDevice::get();
  EXPECT_FALSE(dev.name().empty());
  EXPECT_GE(dev.target().gpu_limits().max_threads_per_block, 1);
  OpenclProgram p(dev, R"cl(
__kernel void scaled_add(__global const float* restrict a, __global const float* restrict b,
                         __global float* restrict c) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  c[i] = a[i] + 2.0f * b[i];
}
)cl");
  NDArray a(DataType::Float32(), {64}), b(DataType::Float32(), {64}), c(DataType::Float32(), {64});
  a.fill_random(1);
  b.fill_random(2);
  const double secs = p.run("scaled_add", {&a, &b, &c}, {64, 1, 1}, {16, 1, 1});
  EXPECT_GE(secs, 0);
  for (int64_t i = 0; i < 64; ++i) EXPECT_FLOAT_EQ(c.get(i), a.get(i) + 2 * b.get(i)) << i;
}

TEST(OpenclRuntime, AProgramThatDoesNotBuildShowsTheCompilersLog) {
  try {
    OpenclProgram p(OpenclDevice::get(), "__kernel void broken(__global float* a) { a[0] = undeclared_name; }");
    FAIL() << "a broken program built";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("does not build"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undeclared_name"), std::string::npos) << msg;
  }
}

TEST(OpenclRuntime, AnUnknownKernelOrBadLaunchIsAnErrorNamingIt) {
  OpenclProgram p(OpenclDevice::get(), "__kernel void one(__global float* a) { a[get_global_id(0)] = 1.0f; }");
  NDArray a(DataType::Float32(), {8});
  try {
    p.run("two", {&a}, {8, 1, 1}, {8, 1, 1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel two"), std::string::npos) << e.what();
  }
  // A work-group that does not divide the range.
  EXPECT_THROW(p.run("one", {&a}, {8, 1, 1}, {3, 1, 1}), Error);
  p.run("one", {&a}, {8, 1, 1}, {8, 1, 1});
  EXPECT_EQ(a.get(7), 1.0);
}

}  // namespace
}  // namespace kiln
