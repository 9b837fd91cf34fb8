// The one place where a Backend request becomes Cpu or Gpu.
#pragma once

#include "Types.h"

#include <cstddef>
#include <string>

namespace topogpu {

// True when this build has CUDA and a device is present; `why` says otherwise.
bool gpuAvailable(std::string* why = nullptr);

// Auto -> Gpu when available and deviceBytes fit in free device memory, else Cpu.
// Gpu that cannot run -> Cpu with a warning in report saying why. Sets report.backend.
Backend resolveBackend(Backend requested, std::size_t deviceBytes, RunReport& report);

// Parses "auto", "cpu", "gpu" (CLI and tests); throws Error otherwise.
Backend parseBackend(const std::string& name);

} // namespace topogpu
