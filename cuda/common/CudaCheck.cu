#include "CudaCheck.h"

#include <cstdlib>
#include <cstring>

namespace topogpu::gpu {

void throwCudaError(cudaError_t status, const std::string& what) {
  cudaGetLastError();
  throw GpuError(what + ": " + cudaGetErrorName(status) + " (" +
                     cudaGetErrorString(status) + ")",
                 status == cudaErrorMemoryAllocation);
}

namespace {
// Test hook, read here only: TOPOGPU_TEST_GPU_FAULT=<stage> makes that stage fail with
// a real CUDA out-of-memory error (an allocation larger than any device), after the
// stage's own device memory is allocated, so the tests see a failure mid-run.
void injectTestFault(const char* stage) {
  const char* fault = std::getenv("TOPOGPU_TEST_GPU_FAULT");
  if (fault == nullptr || std::strcmp(fault, stage) != 0)
    return;
  void* impossible = nullptr;
  const cudaError_t status = cudaMalloc(&impossible, std::size_t(1) << 62);
  if (status == cudaSuccess)
    cudaFree(impossible);
  throwCudaError(status == cudaSuccess ? cudaErrorMemoryAllocation : status,
                 std::string(stage) + " (fault injected by TOPOGPU_TEST_GPU_FAULT)");
}
} // namespace

void stageDone(const char* stage) {
  cudaCheck(cudaGetLastError(), stage);
  // The stages' kernels run on the default stream; copies on streams of their own (the
  // Morse-Smale complex's downloads) go on meanwhile.
  cudaCheck(cudaStreamSynchronize(cudaStreamLegacy), stage);
  injectTestFault(stage);
}

} // namespace topogpu::gpu
