#pragma once

// What every module's CUDA-free stub (the <Module>GpuStub.cpp compiled when CUDA is off)
// does: the device is absent, so resolveBackend picks the CPU, and a direct call of a
// gpu:: entry point throws GpuError, which runWithFallback turns into the CPU run.
#include "base/Types.h"

#include <string>

namespace topogpu::gpu {

inline constexpr const char* kNoCudaReason = "this build of TopoGPU has no CUDA support";

[[noreturn]] inline void throwNoCuda(const char* entry) {
  throw GpuError(std::string(entry) + ": " + kNoCudaReason, false);
}

} // namespace topogpu::gpu
