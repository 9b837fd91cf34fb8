// The one place where a Backend request becomes Cpu or Gpu.
#pragma once

#include "base/Types.h"

#include <cstddef>
#include <optional>
#include <string>

namespace topogpu {

// True when this build has CUDA and a device is present; `why` says otherwise.
bool gpuAvailable(std::string* why = nullptr);

// Auto -> Gpu when available and deviceBytes fit in the device memory budget, else Cpu.
// Gpu that cannot run -> Cpu with a warning in report saying why. Sets report.backend.
Backend resolveBackend(Backend requested, std::size_t deviceBytes, RunReport& report);

// A cap on the device memory every run plans with, process-wide like the device itself:
// tests force a small budget with it to exercise the CPU fallback, a user keeps headroom
// for other processes. `source` says who set it; the fallback's warning names it. The
// front ends set it from TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES (frontend/Knobs.h); none
// (the default): no cap.
struct DeviceMemoryBudgetCap {
  std::size_t bytes = 0;
  std::string source;
};
// Not thread-safe against running algorithms: set it between runs.
void setDeviceMemoryBudgetCap(std::optional<DeviceMemoryBudgetCap> cap);

// The device memory an algorithm may plan for, given the device's free bytes: those,
// capped by the cap when one is set.
std::size_t deviceMemoryBudget(std::size_t freeBytes);

// resolveBackend's decision with the device's state given (tests call it with a fake
// budget): whether a device is usable (whyNot says why not), the bytes the run needs
// there and the budget. Same warnings and report.backend as resolveBackend.
Backend chooseBackend(Backend requested, bool deviceUsable, const std::string& whyNot,
                      std::size_t deviceBytes, std::size_t budgetBytes,
                      RunReport& report);

// Parses "auto", "cpu", "gpu" (CLI and tests); throws Error otherwise.
Backend parseBackend(const std::string& name);

} // namespace topogpu
