#include "targets/runtime/cuda.h"

#include <dlfcn.h>

#include "core/error.h"
#include "targets/codegen/cuda/nvrtc.h"

namespace kiln {
namespace {

// The driver API's types, as cuda.h declares them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;
constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;

}  // namespace

// The entry points kiln uses, looked up in libcuda.
struct CudaDevice::Api {
  void* lib = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUcontext context = nullptr;

  template <typename F>
  void bind(F*& fn, const char* name) {
    fn = reinterpret_cast<F*>(dlsym(lib, name));
    if (!fn) KILN_USER_ERROR() << "CUDA: the driver (libcuda) has no " << name;
  }

  std::string message(CUresult r) const {
    const char* s = nullptr;
    if (cuGetErrorString && cuGetErrorString(r, &s) == 0 && s) return s;
    return "error " + std::to_string(r);
  }
  void check(CUresult r, const std::string& what) const {
    if (r != 0) KILN_USER_ERROR() << "CUDA: " << what << " failed: " << message(r);
  }
};

CudaDevice& CudaDevice::get() {
  static CudaDevice* d = new CudaDevice();  // lives as long as the process, as drivers like
  return *d;
}

CudaDevice::CudaDevice() : api_(std::make_unique<Api>()), target_(Target::host()) {
  Api& a = *api_;
  a.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a.lib) KILN_USER_ERROR() << "CUDA: no driver on this machine (libcuda.so.1: " << dlerror() << ")";
  a.bind(a.cuInit, "cuInit");
  a.bind(a.cuGetErrorString, "cuGetErrorString");
  a.bind(a.cuDeviceGet, "cuDeviceGet");
  a.bind(a.cuDeviceGetCount, "cuDeviceGetCount");
  a.bind(a.cuDeviceGetName, "cuDeviceGetName");
  a.bind(a.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  a.bind(a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  a.bind(a.cuCtxSetCurrent, "cuCtxSetCurrent");
  a.bind(a.cuCtxSynchronize, "cuCtxSynchronize");
  a.bind(a.cuModuleLoadData, "cuModuleLoadData");
  a.bind(a.cuModuleUnload, "cuModuleUnload");
  a.bind(a.cuModuleGetFunction, "cuModuleGetFunction");
  a.bind(a.cuMemAlloc, "cuMemAlloc_v2");
  a.bind(a.cuMemFree, "cuMemFree_v2");
  a.bind(a.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  a.bind(a.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  a.bind(a.cuLaunchKernel, "cuLaunchKernel");
  a.bind(a.cuEventCreate, "cuEventCreate");
  a.bind(a.cuEventRecord, "cuEventRecord");
  a.bind(a.cuEventSynchronize, "cuEventSynchronize");
  a.bind(a.cuEventElapsedTime, "cuEventElapsedTime");
  a.bind(a.cuEventDestroy, "cuEventDestroy_v2");
  a.check(a.cuInit(0), "cuInit");
  int count = 0;
  a.check(a.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) KILN_USER_ERROR() << "CUDA: the driver finds no device";
  CUdevice dev = 0;
  a.check(a.cuDeviceGet(&dev, 0), "cuDeviceGet");
  char name[256] = {0};
  a.check(a.cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
  name_ = name;
  int major = 0, minor = 0;
  a.check(a.cuDeviceGetAttribute(&major, kComputeCapabilityMajor, dev), "cuDeviceGetAttribute");
  a.check(a.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, dev), "cuDeviceGetAttribute");
  target_ = Target::parse("cuda -arch=sm_" + std::to_string(major * 10 + minor));
  a.check(a.cuDevicePrimaryCtxRetain(&a.context, dev), "cuDevicePrimaryCtxRetain");
}

void CudaDevice::make_current() const { api_->check(api_->cuCtxSetCurrent(api_->context), "cuCtxSetCurrent"); }

struct CudaModule::Handle {
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;  // per kernel, in launch order
};

CudaModule::CudaModule(GpuModule m, CudaDevice& device) : m_(std::move(m)), device_(device), h_(std::make_unique<Handle>()) {
  if (m_.kind != "cuda") KILN_USER_ERROR() << "module " << m_.name << " is for " << m_.kind << ", not cuda";
  const CudaDevice::Api& a = device_.api();
  device_.make_current();
  const std::string ptx = compile_cuda_to_ptx(m_.source, device_.target().arch(), m_.name + ".cu");
  a.check(a.cuModuleLoadData(&h_->module, ptx.c_str()), "loading module " + m_.name);
  for (const GpuModule::Kernel& k : m_.kernels) {
    CUfunction fn = nullptr;
    a.check(a.cuModuleGetFunction(&fn, h_->module, k.name.c_str()), "kernel " + k.name);
    h_->functions.push_back(fn);
  }
}

CudaModule::~CudaModule() {
  if (h_->module) device_.api().cuModuleUnload(h_->module);
}

double CudaModule::run(const std::vector<NDArray*>& args) {
  const CudaDevice::Api& a = device_.api();
  device_.make_current();
  if (args.size() != m_.params.size())
    KILN_USER_ERROR() << m_.name << " takes " << m_.params.size() << " tensors, not " << args.size();
  std::vector<CUdeviceptr> buffers;
  std::vector<CUevent> events;
  auto release = [&] {
    for (CUdeviceptr b : buffers) a.cuMemFree(b);
    for (CUevent e : events) a.cuEventDestroy(e);
  };
  try {
    for (NDArray* t : args) {
      CUdeviceptr p = 0;
      a.check(a.cuMemAlloc(&p, std::max<size_t>(t->nbytes(), 1)), "cuMemAlloc");
      buffers.push_back(p);
      a.check(a.cuMemcpyHtoD(p, t->data(), t->nbytes()), "copying an argument to the device");
    }
    for (int64_t bytes : m_.scratch_bytes) {
      CUdeviceptr p = 0;
      a.check(a.cuMemAlloc(&p, static_cast<size_t>(std::max<int64_t>(bytes, 1))), "cuMemAlloc");
      buffers.push_back(p);
    }
    std::vector<void*> params;
    for (CUdeviceptr& b : buffers) params.push_back(&b);
    double seconds = 0;
    for (size_t i = 0; i < m_.kernels.size(); ++i) {
      const GpuModule::Kernel& k = m_.kernels[i];
      CUevent start = nullptr, end = nullptr;
      a.check(a.cuEventCreate(&start, 0), "cuEventCreate");
      events.push_back(start);
      a.check(a.cuEventCreate(&end, 0), "cuEventCreate");
      events.push_back(end);
      a.check(a.cuEventRecord(start, nullptr), "cuEventRecord");
      const auto& g = k.launch.grid;
      const auto& b = k.launch.block;
      a.check(a.cuLaunchKernel(h_->functions[i], static_cast<unsigned>(g[0]), static_cast<unsigned>(g[1]),
                               static_cast<unsigned>(g[2]), static_cast<unsigned>(b[0]), static_cast<unsigned>(b[1]),
                               static_cast<unsigned>(b[2]), 0, nullptr, params.data(), nullptr),
              "launching kernel " + k.name);
      a.check(a.cuEventRecord(end, nullptr), "cuEventRecord");
      a.check(a.cuEventSynchronize(end), "kernel " + k.name);
      float ms = 0;
      a.check(a.cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime");
      seconds += ms * 1e-3;
    }
    for (size_t i = 0; i < args.size(); ++i)
      a.check(a.cuMemcpyDtoH(args[i]->data(), buffers[i], args[i]->nbytes()), "copying an argument back");
    release();
    return seconds;
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace kiln
