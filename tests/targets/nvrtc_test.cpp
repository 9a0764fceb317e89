// CUDA C to PTX with NVRTC, checked by ptxas for the archs kiln targets,
// with no GPU: a kernel compiles for sm_80 and sm_90 and assembles; a
// broken source is refused with NVRTC's log; PTX for sm_90 does not
// assemble for sm_80.
#include <gtest/gtest.h>

#include "core/error.h"
#include "targets/codegen/cuda/nvrtc.h"

namespace kiln {
namespace {

const char* kScaledAdd = R"cu(
extern "C" __global__ void __launch_bounds__(128) scaled_add(const float* __restrict__ a,
                                                             const float* __restrict__ b, float* __restrict__ c) {
  int i = blockIdx.x * 128 + threadIdx.x;
  c[i] = a[i] + 2.0f * b[i];
}
)cu";

TEST(Nvrtc, AKernelCompilesToPtxThatPtxasAssemblesForSm80AndSm90) {
  for (const std::string arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    const std::string ptx = compile_cuda_to_ptx(kScaledAdd, arch);
    EXPECT_NE(ptx.find(".entry scaled_add"), std::string::npos) << ptx.substr(0, 400);
    EXPECT_NE(ptx.find(".target " + arch), std::string::npos) << ptx.substr(0, 400);
    EXPECT_EQ(ptxas_errors(ptx, arch), "");
  }
}

TEST(Nvrtc, ABrokenSourceIsRefusedWithTheCompilersLog) {
  try {
    compile_cuda_to_ptx("extern \"C\" __global__ void k(float* a) { a[0] = undeclared_name; }", "sm_90", "broken.cu");
    FAIL() << "a broken source compiled";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("broken.cu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undeclared_name"), std::string::npos) << msg;
  }
}

TEST(Nvrtc, PtxasRefusesPtxForANewerArch) {
  const std::string ptx = compile_cuda_to_ptx(kScaledAdd, "sm_90");
  const std::string errors = ptxas_errors(ptx, "sm_80");
  EXPECT_NE(errors, "");
  EXPECT_NE(errors.find("SM version specified by .target is higher"), std::string::npos) << errors;
}

}  // namespace
}  // namespace kiln
