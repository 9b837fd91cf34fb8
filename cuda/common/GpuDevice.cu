#include "core/common/GpuDevice.h"

#include <cuda_runtime.h>

namespace topogpu::gpu {

bool deviceAvailable(std::string* why) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why)
      *why = status != cudaSuccess ? std::string("no CUDA device is usable (") +
                                         cudaGetErrorString(status) + ")"
                                   : std::string("no CUDA device is present");
    cudaGetLastError(); // clear the sticky error so later calls are not confused
    return false;
  }
  return true;
}

std::size_t freeDeviceMemory() {
  std::size_t freeBytes = 0, totalBytes = 0;
  if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess)
    return 0;
  return freeBytes;
}

std::size_t deviceMemoryInUse() {
  std::size_t freeBytes = 0, totalBytes = 0;
  if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess)
    return 0;
  return totalBytes - freeBytes;
}

void startDeviceContext() {
  if (deviceAvailable(nullptr))
    cudaFree(nullptr); // creates the primary context
  cudaGetLastError();
}

std::string deviceDescription() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
    return "unknown device";
  return std::string(prop.name) + ", " + std::to_string(prop.totalGlobalMem >> 30) +
         " GiB, sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
}

} // namespace topogpu::gpu
