#include "BackendSelection.h"

#include "base/HostMemory.h"
#include "core/common/GpuDevice.h"

#include <algorithm>
#include <utility>

namespace topogpu {

// A CUDA-free build links cuda/GpuStubs.cpp, whose deviceAvailable says so.
bool gpuAvailable(std::string* why) {
  return gpu::deviceAvailable(why);
}

namespace {

// Set by the front ends before a run (setDeviceMemoryBudgetCap), read by every run.
std::optional<DeviceMemoryBudgetCap> budgetCap;

} // namespace

void setDeviceMemoryBudgetCap(std::optional<DeviceMemoryBudgetCap> cap) {
  budgetCap = std::move(cap);
}

std::size_t deviceMemoryBudget(std::size_t freeBytes) {
  return budgetCap ? std::min(freeBytes, budgetCap->bytes) : freeBytes;
}

Backend chooseBackend(Backend requested, bool deviceUsable, const std::string& whyNot,
                      std::size_t deviceBytes, std::size_t budgetBytes,
                      RunReport& report) {
  Backend resolved = Backend::Cpu;
  if (requested != Backend::Cpu) {
    if (!deviceUsable) {
      if (requested == Backend::Gpu)
        report.warnings.push_back(
            {WarningCode::GpuUnavailable,
             "GPU requested but " + whyNot + "; running on the CPU"});
    } else if (deviceBytes > budgetBytes) {
      report.warnings.push_back(
          {WarningCode::GpuMemoryInsufficient,
           "input needs about " + mebibytes(double(deviceBytes)) +
               " of GPU memory but only " + mebibytes(double(budgetBytes)) + " are free" +
               (budgetCap ? " (within " + budgetCap->source + ")" : std::string()) +
               "; running on the CPU"});
    } else {
      resolved = Backend::Gpu;
    }
  }
  report.backend = resolved == Backend::Gpu ? "gpu" : "cpu";
  return resolved;
}

Backend resolveBackend(Backend requested, std::size_t deviceBytes, RunReport& report) {
  std::string why;
  const bool usable = requested != Backend::Cpu && gpuAvailable(&why);
  const std::size_t budget = usable ? deviceMemoryBudget(gpu::freeDeviceMemory()) : 0;
  return chooseBackend(requested, usable, why, deviceBytes, budget, report);
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
