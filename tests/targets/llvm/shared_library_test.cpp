// Shared libraries: exported, loaded back (in this process and in a forked
// child that uses only dlopen and the C ABI), and checked to depend on
// nothing but the C runtime.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "tests/targets/llvm/kernel_util.h"

namespace kiln {
namespace {

using namespace kiln::test;

constexpr int kN = 300;

// C = atan(exp(A)) + A through a scratch buffer and a parallel loop: a
// libm call (atanf; exp is inline arithmetic, vector_math.h), runtime
// allocation and launches all cross the library boundary.
PrimFunc library_kernel() {
  Buffer A = flat("A", DataType::Float32(), kN), C = flat("C", DataType::Float32(), kN);
  Buffer T = flat("T", DataType::Float32(), 10000);
  Var i("i"), j("j");
  Stmt body = allocate(T, seq({loop(j, kN, st(T, call(Intrinsic::exp, {ld(A, j)}), j)),
                               loop(i, kN, st(C, call(Intrinsic::atan, {ld(T, i)}) + ld(A, i), i), ForKind::kParallel)}));
  return PrimFunc("exported", {A, C}, body);
}

float expected(float a) { return std::atan(std::exp(a)) + a; }

class SharedLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("kiln_test_" + std::to_string(getpid()) + ".so")).string();
    export_shared_library(library_kernel(), host(), path_);
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(SharedLibraryTest, LoadsAndRunsInThisProcess) {
  auto k = load_shared_library(path_, "exported");
  EXPECT_EQ(k->name(), "exported");
  ASSERT_EQ(k->params().size(), 2u);
  EXPECT_EQ(k->params()[1].name, "C");
  EXPECT_EQ(k->params()[1].numel, kN);
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    NDArray a = random_array(DataType::Float32(), kN, 60), c(DataType::Float32(), {kN});
    ASSERT_EQ(k->call_arrays({&a, &c}, pool), 0);
    for (int e = 0; e < kN; ++e) ASSERT_NEAR(c.data_as<float>()[e], expected(a.data_as<float>()[e]), 1e-5) << e;
  }
}

// The child's runtime: serial tasks and malloc, written against kernel_abi.h alone.
int32_t serial_launch(void*, KilnTaskFn fn, void* closure, int64_t max_tasks) {
  int64_t n = max_tasks < 3 ? max_tasks : 3;
  for (int64_t t = 0; t < n; ++t)
    if (int32_t s = fn(t, n, closure)) return s;
  return 0;
}
void* plain_alloc(void*, uint64_t nbytes, uint64_t align) { return std::aligned_alloc(align, (nbytes + align - 1) / align * align); }
void plain_free(void*, void* p) { std::free(p); }

int run_in_child(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return 2;
  auto fn = reinterpret_cast<KilnKernelFn>(dlsym(h, "exported"));
  if (!fn) return 3;
  KilnRuntimeApi api{};
  api.version = KILN_RUNTIME_API_VERSION;
  api.parallel_launch = &serial_launch;
  api.alloc_scratch = &plain_alloc;
  api.free_scratch = &plain_free;
  static float a[kN], c[kN];
  for (int e = 0; e < kN; ++e) a[e] = -1.0f + 2.0f * static_cast<float>(e) / kN;
  void* args[] = {a, c};
  if (fn(args, &api) != 0) return 4;
  for (int e = 0; e < kN; ++e)
    if (std::fabs(c[e] - expected(a[e])) > 1e-5f) return 5;
  return dlclose(h) == 0 ? 0 : 6;
}

TEST(SharedLibrary, OneLibraryHoldsManyKernels) {
  // A model's kernels go into one library, each found by its name.
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kiln_test_many_" + std::to_string(getpid()) + ".so")).string();
  PrimFunc first = library_kernel();
  PrimFunc second("doubled", first->params, [&] {
    Var i("i");
    return loop(i, kN, st(first->params[1], ld(first->params[0], i) * 2.0f, i));
  }());
  export_shared_library({first, second}, host(), path, /*threads=*/2);
  ThreadPool pool(1);
  NDArray a = random_array(DataType::Float32(), kN, 61), c(DataType::Float32(), {kN});
  ASSERT_EQ(load_shared_library(path, "doubled")->call_arrays({&a, &c}, pool), 0);
  for (int e = 0; e < kN; ++e) ASSERT_EQ(c.data_as<float>()[e], 2 * a.data_as<float>()[e]) << e;
  ASSERT_EQ(load_shared_library(path, "exported")->call_arrays({&a, &c}, pool), 0);
  for (int e = 0; e < kN; ++e) ASSERT_NEAR(c.data_as<float>()[e], expected(a.data_as<float>()[e]), 1e-5) << e;
  std::filesystem::remove(path);
  try {
    export_shared_library({first, first}, host(), path);
    FAIL() << "two kernels of one name were exported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two kernels called 'exported'"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(SharedLibraryTest, RunsInAChildThroughDlopenAlone) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(run_in_child(path_));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "child failed at step " << WEXITSTATUS(status);
}

TEST_F(SharedLibraryTest, NeedsOnlyTheCRuntime) {
  auto buf = llvm::MemoryBuffer::getFile(path_);
  ASSERT_TRUE(buf);
  auto obj = llvm::object::ObjectFile::createObjectFile((*buf)->getMemBufferRef());
  ASSERT_TRUE(static_cast<bool>(obj));
  auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(obj->get());
  ASSERT_NE(elf, nullptr);
  const auto& file = elf->getELFFile();
  std::vector<std::string> needed;
  auto sections = file.sections();
  ASSERT_TRUE(static_cast<bool>(sections));
  for (const auto& sec : *sections) {
    if (sec.sh_type != llvm::ELF::SHT_DYNAMIC) continue;
    auto strtab = file.getLinkAsStrtab(sec);
    auto entries = file.dynamicEntries();
    ASSERT_TRUE(static_cast<bool>(strtab) && static_cast<bool>(entries));
    for (const auto& d : *entries)
      if (d.getTag() == llvm::ELF::DT_NEEDED) needed.push_back(strtab->drop_front(d.getVal()).data());
  }
  ASSERT_FALSE(needed.empty());
  for (const std::string& lib : needed) {
    bool c_runtime = lib.rfind("libc.so", 0) == 0 || lib.rfind("libm.so", 0) == 0 || lib.rfind("libgcc_s.so", 0) == 0 ||
                     lib.rfind("ld-linux", 0) == 0;
    EXPECT_TRUE(c_runtime) << "depends on " << lib;
  }
}

TEST_F(SharedLibraryTest, LoadErrorsNameThePath) {
  try {
    load_shared_library(path_ + ".missing", "exported");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path_ + ".missing"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_shared_library(path_, "not_there"), Error);
  try {
    export_shared_library(library_kernel(), Target::parse("llvm -mtriple=riscv64-linux-gnu"), path_ + ".rv");
    FAIL() << "linked for a triple kiln has no linker for";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot link a shared library for riscv64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln
