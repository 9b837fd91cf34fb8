#include "EnvironmentKnobs.h"

#include "core/common/BackendSelection.h"
#include "core/common/GpuDevice.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace topogpu::frontend {

namespace {

constexpr const char* kBudgetVariable = "TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES";
constexpr const char* kFaultVariable = "TOPOGPU_TEST_GPU_FAULT";

// A count: digits only (no sign, no blanks), within unsigned long long.
std::optional<std::size_t> byteCount(const char* text) {
  if (text == nullptr || *text < '0' || *text > '9')
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0')
    return std::nullopt;
  return std::size_t(value);
}

// An integer in [lo, hi] from the variable `name`; unset or empty: `otherwise`.
int boundedInteger(const char* name, int otherwise, int lo, int hi) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == 0)
    return otherwise;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != 0 || value < lo || value > hi)
    throw Error(std::string(name) + "='" + text + "': expected an integer in [" +
                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return int(value);
}

} // namespace

void applyProcessKnobs() {
  if (const std::optional<std::size_t> bytes = byteCount(std::getenv(kBudgetVariable)))
    setDeviceMemoryBudgetCap(DeviceMemoryBudgetCap{*bytes, kBudgetVariable});
  else
    setDeviceMemoryBudgetCap(std::nullopt);
  const char* fault = std::getenv(kFaultVariable);
  gpu::setInjectedFault(fault != nullptr ? fault : "", kFaultVariable);
}

eikonal::PatchFimLaunch patchFimLaunchFromEnvironment() {
  eikonal::PatchFimLaunch launch;
  const char* mode = std::getenv("TOPOGPU_PATCHFIM_LAUNCH");
  if (mode == nullptr || *mode == 0 || std::strcmp(mode, "auto") == 0)
    launch.mode = eikonal::PatchFimLaunchMode::Auto;
  else if (std::strcmp(mode, "rounds") == 0)
    launch.mode = eikonal::PatchFimLaunchMode::Rounds;
  else if (std::strcmp(mode, "persistent") == 0)
    launch.mode = eikonal::PatchFimLaunchMode::Persistent;
  else
    throw Error(std::string("TOPOGPU_PATCHFIM_LAUNCH='") + mode +
                "': expected rounds, persistent or auto");
  launch.blocksPerSm = boundedInteger("TOPOGPU_PATCHFIM_BLOCKS_PER_SM", 0, 1,
                                      eikonal::kMaxPatchFimBlocksPerSm);
  launch.lanes =
      boundedInteger("TOPOGPU_PATCHFIM_LANES", 0, 1, eikonal::kMaxPatchFimLanes);
  if ((launch.lanes & (launch.lanes - 1)) != 0)
    throw Error("TOPOGPU_PATCHFIM_LANES must be 1, 2, 4 or 8");
  launch.chunk = boundedInteger("TOPOGPU_PATCHFIM_CHUNK", launch.chunk, 1,
                                eikonal::kMaxPatchFimChunk);
  return launch;
}

bool ripsBoundEveryColumnFromEnvironment() {
  return std::getenv("TOPOGPU_RIPS_BOUND_EVERY_COLUMN") != nullptr;
}

std::optional<std::size_t> separatrices2MaxCellsFromEnvironment() {
  const std::optional<std::size_t> cells =
      byteCount(std::getenv("TOPOGPU_SEPARATRICES2_MAX_CELLS"));
  return cells && *cells > 0 ? cells : std::nullopt;
}

std::optional<double> wholeDomainMemoryFromEnvironment() {
  if (const char* forced = std::getenv("TOPOGPU_WHOLE_DOMAIN_MEMORY_BYTES"))
    return std::strtod(forced, nullptr);
  return std::nullopt;
}

} // namespace topogpu::frontend
