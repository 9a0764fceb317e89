#include "targets/runtime/opencl.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "core/error.h"

namespace kiln {
namespace {

[[noreturn]] void fail(const std::string& what, cl_int err) {
  KILN_USER_ERROR() << "OpenCL: " << what << " failed (error " << err << ")";
}

void check(cl_int err, const std::string& what) {
  if (err != CL_SUCCESS) fail(what, err);
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace

struct OpenclDevice::Handles {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};

OpenclDevice& OpenclDevice::get() {
  static OpenclDevice* d = new OpenclDevice();  // lives as long as the process: drivers dislike teardown at exit
  return *d;
}

OpenclDevice::OpenclDevice() : h_(std::make_unique<Handles>()) {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0)
    KILN_USER_ERROR() << "OpenCL: no platform (is an OpenCL driver such as pocl-opencl-icd installed?)";
  std::vector<cl_platform_id> platforms(n);
  check(clGetPlatformIDs(n, platforms.data(), nullptr), "clGetPlatformIDs");
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &h_->device, &nd) == CL_SUCCESS && nd > 0) {
      h_->platform = p;
      break;
    }
  }
  if (!h_->platform) KILN_USER_ERROR() << "OpenCL: no device on any of the " << n << " platforms";
  size_t pn = 0;
  clGetPlatformInfo(h_->platform, CL_PLATFORM_NAME, 0, nullptr, &pn);
  std::string platform_name(pn, '\0');
  clGetPlatformInfo(h_->platform, CL_PLATFORM_NAME, pn, platform_name.data(), nullptr);
  while (!platform_name.empty() && platform_name.back() == '\0') platform_name.pop_back();
  name_ = platform_name + ": " + device_string(h_->device, CL_DEVICE_NAME);
  clGetDeviceInfo(h_->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_work_group_, &max_work_group_, nullptr);
  cl_ulong local = 0;
  clGetDeviceInfo(h_->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
  local_mem_ = local;
  cl_int err = CL_SUCCESS;
  h_->context = clCreateContext(nullptr, 1, &h_->device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  h_->queue = clCreateCommandQueue(h_->context, h_->device, CL_QUEUE_PROFILING_ENABLE, &err);
  check(err, "clCreateCommandQueue");
}

OpenclDevice::~OpenclDevice() {
  if (h_->queue) clReleaseCommandQueue(h_->queue);
  if (h_->context) clReleaseContext(h_->context);
}

Target OpenclDevice::target() const {
  return Target::parse("opencl -max-threads-per-block=" + std::to_string(max_work_group_) +
                       " -max-shared-memory-per-block=" + std::to_string(local_mem_));
}

struct OpenclProgram::Handle {
  cl_program program = nullptr;
};

OpenclProgram::OpenclProgram(OpenclDevice& device, const std::string& source)
    : device_(device), h_(std::make_unique<Handle>()) {
  OpenclDevice::Handles& d = device.handles();
  const char* text = source.c_str();
  const size_t len = source.size();
  cl_int err = CL_SUCCESS;
  h_->program = clCreateProgramWithSource(d.context, 1, &text, &len, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(h_->program, 1, &d.device, "-cl-std=CL1.2", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(h_->program, d.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(h_->program, d.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    clReleaseProgram(h_->program);
    h_->program = nullptr;
    KILN_USER_ERROR() << "OpenCL: the program does not build (error " << err << "):\n" << log;
  }
}

OpenclProgram::~OpenclProgram() {
  if (h_->program) clReleaseProgram(h_->program);
}

double OpenclProgram::run(const std::string& name, const std::vector<NDArray*>& args, std::array<size_t, 3> global,
                          std::array<size_t, 3> local) {
  return run({OpenclLaunch{name, global, local}}, args);
}

double OpenclProgram::run(const std::vector<OpenclLaunch>& launches, const std::vector<NDArray*>& args,
                          const std::vector<size_t>& scratch_bytes) {
  OpenclDevice::Handles& d = device_.handles();
  cl_int err = CL_SUCCESS;
  std::vector<cl_mem> buffers;
  std::vector<cl_kernel> kernels;
  auto release = [&] {
    for (cl_mem b : buffers) clReleaseMemObject(b);
    for (cl_kernel k : kernels) clReleaseKernel(k);
  };
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      NDArray& a = *args[i];
      cl_mem b = clCreateBuffer(d.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, std::max<size_t>(a.nbytes(), 1),
                                a.data(), &err);
      if (err != CL_SUCCESS) fail("argument " + std::to_string(i) + ": clCreateBuffer", err);
      buffers.push_back(b);
    }
    for (size_t bytes : scratch_bytes) {
      cl_mem b = clCreateBuffer(d.context, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 1), nullptr, &err);
      if (err != CL_SUCCESS) fail("a scratch buffer of " + std::to_string(bytes) + " bytes: clCreateBuffer", err);
      buffers.push_back(b);
    }
    double seconds = 0;
    for (const OpenclLaunch& l : launches) {
      const std::string& name = l.kernel;
      cl_kernel k = clCreateKernel(h_->program, name.c_str(), &err);
      if (err != CL_SUCCESS) fail("kernel " + name + ": clCreateKernel", err);
      kernels.push_back(k);
      for (size_t i = 0; i < buffers.size(); ++i)
        check(clSetKernelArg(k, static_cast<cl_uint>(i), sizeof(cl_mem), &buffers[i]),
              "kernel " + name + ": clSetKernelArg");
      cl_event done = nullptr;
      err = clEnqueueNDRangeKernel(d.queue, k, 3, nullptr, l.global.data(), l.local.data(), 0, nullptr, &done);
      if (err != CL_SUCCESS) fail("kernel " + name + ": clEnqueueNDRangeKernel", err);
      check(clWaitForEvents(1, &done), "kernel " + name + ": clWaitForEvents");
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
      clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      clReleaseEvent(done);
      seconds += static_cast<double>(end - start) * 1e-9;
    }
    for (size_t i = 0; i < args.size(); ++i)
      check(clEnqueueReadBuffer(d.queue, buffers[i], CL_TRUE, 0, args[i]->nbytes(), args[i]->data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer of argument " + std::to_string(i));
    release();
    return seconds;
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace kiln
