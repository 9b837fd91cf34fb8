// `topogpu info`: what this build can do and the GPU it sees.
#include "Commands.h"
#include "Json.h"

#include "core/common/BackendSelection.h"

#include "core/common/GpuDevice.h"

#include <iostream>

namespace topogpu::cli {

int runInfo(const Arguments& args, CommandContext& context) {
  std::string why;
  const bool gpu = gpuAvailable(&why);
  std::string device;
  if (gpu)
    device = gpu::deviceDescription();
  if (context.json) {
    JsonObject out;
    out.add("command", context.command);
    out.add("cuda_build", bool(TOPOGPU_WITH_CUDA));
    out.add("vtk_build", bool(TOPOGPU_WITH_VTK));
    out.add("gpu", gpu);
    out.add(gpu ? "device" : "gpu_unavailable_reason", gpu ? device : why);
    std::cout << out.str() << "\n";
    return 0;
  }
  (void)args;
  std::cout << "TopoGPU cuda-build=" << (TOPOGPU_WITH_CUDA ? "yes" : "no")
            << " vtk-build=" << (TOPOGPU_WITH_VTK ? "yes" : "no")
            << " gpu=" << (gpu ? "yes" : "no (" + why + ")");
  if (gpu)
    std::cout << " device=" << device;
  std::cout << "\n";
  return 0;
}

} // namespace topogpu::cli
