#include "BackendSelection.h"

#if TOPOGPU_WITH_CUDA
#include "cuda/common/GpuDevice.h"
#endif

namespace topogpu {

bool gpuAvailable(std::string* why) {
#if TOPOGPU_WITH_CUDA
  return gpu::deviceAvailable(why);
#else
  if (why)
    *why = "this build of TopoGPU has no CUDA support";
  return false;
#endif
}

Backend resolveBackend(Backend requested, std::size_t deviceBytes, RunReport& report) {
  Backend resolved = Backend::Cpu;
  if (requested != Backend::Cpu) {
    std::string why;
    if (!gpuAvailable(&why)) {
      if (requested == Backend::Gpu)
        report.warnings.push_back("GPU requested but " + why + "; running on the CPU");
    } else {
#if TOPOGPU_WITH_CUDA
      const std::size_t freeBytes = gpu::freeDeviceMemory();
      if (deviceBytes > freeBytes) {
        report.warnings.push_back(
            "input needs about " + std::to_string(deviceBytes >> 20) +
            " MiB of GPU memory but only " + std::to_string(freeBytes >> 20) +
            " MiB are free; running on the CPU");
      } else {
        resolved = Backend::Gpu;
      }
#else
      (void)deviceBytes;
#endif
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
