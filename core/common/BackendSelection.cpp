#include "BackendSelection.h"

#include "cuda/common/GpuDevice.h"

namespace topogpu {

// A CUDA-free build links cuda/GpuStubs.cpp, whose deviceAvailable says so.
bool gpuAvailable(std::string* why) {
  return gpu::deviceAvailable(why);
}

Backend resolveBackend(Backend requested, std::size_t deviceBytes, RunReport& report) {
  Backend resolved = Backend::Cpu;
  if (requested != Backend::Cpu) {
    std::string why;
    if (!gpuAvailable(&why)) {
      if (requested == Backend::Gpu)
        report.warnings.push_back("GPU requested but " + why + "; running on the CPU");
    } else {
      const std::size_t freeBytes = gpu::freeDeviceMemory();
      if (deviceBytes > freeBytes) {
        report.warnings.push_back(
            "input needs about " + std::to_string(deviceBytes >> 20) +
            " MiB of GPU memory but only " + std::to_string(freeBytes >> 20) +
            " MiB are free; running on the CPU");
      } else {
        resolved = Backend::Gpu;
      }
    }
  }
  report.backend = resolved == Backend::Gpu ? "gpu" : "cpu";
  return resolved;
}

Backend parseBackend(const std::string& name) {
  if (name == "auto")
    return Backend::Auto;
  if (name == "cpu")
    return Backend::Cpu;
  if (name == "gpu")
    return Backend::Gpu;
  throw Error("unknown backend '" + name + "' (expected auto, cpu or gpu)");
}

} // namespace topogpu
