// The device runtime of a build without CUDA (cuda/common implements it with CUDA).
#include "core/common/GpuDevice.h"
#include "core/common/NoCuda.h"
#include "core/common/VertexOrderGpu.h"

namespace topogpu::gpu {

bool deviceAvailable(std::string* why) {
  if (why)
    *why = kNoCudaReason;
  return false;
}

std::size_t freeDeviceMemory() {
  return 0;
}

std::string deviceDescription() {
  return "no CUDA device (CUDA-free build)";
}

std::size_t deviceMemoryInUse() {
  return 0;
}

void startDeviceContext() {}

// No GPU stage runs here, so there is nothing to fail.
void setInjectedFault(std::string, std::string) {}

void computeVertexOrder(const ScalarArrayView&, SimplexId*, const Monitor&) {
  throwNoCuda("vertex order");
}

} // namespace topogpu::gpu
