#include "CudaCheck.h"
#include "core/common/GpuDevice.h"

#include <utility>

namespace topogpu::gpu {

void throwCudaError(cudaError_t status, const std::string& what) {
  cudaGetLastError();
  throw GpuError(what + ": " + cudaGetErrorName(status) + " (" +
                     cudaGetErrorString(status) + ")",
                 status == cudaErrorMemoryAllocation);
}

namespace {
// The stage setInjectedFault names (empty: none) and who set it, for the message.
std::string faultStage, faultSource;

// Makes the stage setInjectedFault named fail with a real CUDA out-of-memory error (an
// allocation larger than any device), after the stage's own device memory is allocated,
// so the tests see a failure mid-run.
void injectTestFault(const char* stage) {
  if (faultStage.empty() || faultStage != stage)
    return;
  void* impossible = nullptr;
  const cudaError_t status = cudaMalloc(&impossible, std::size_t(1) << 62);
  if (status == cudaSuccess)
    cudaFree(impossible);
  throwCudaError(status == cudaSuccess ? cudaErrorMemoryAllocation : status,
                 std::string(stage) + " (fault injected by " + faultSource + ")");
}
} // namespace

void setInjectedFault(std::string stage, std::string source) {
  faultStage = std::move(stage);
  faultSource = std::move(source);
}

void stageDone(const char* stage) {
  cudaCheck(cudaGetLastError(), stage);
  // The stages' kernels run on the default stream; copies on streams of their own (the
  // Morse-Smale complex's downloads) go on meanwhile.
  cudaCheck(cudaStreamSynchronize(cudaStreamLegacy), stage);
  injectTestFault(stage);
}

} // namespace topogpu::gpu
