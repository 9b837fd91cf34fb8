// The host memory a front end may give an algorithm (the algorithms take a budget as a
// parameter and never ask the system themselves).
#pragma once

#include <string>

namespace topogpu {

// Bytes this process can still allocate: the least of /proc/meminfo's MemAvailable
// (free memory plus reclaimable caches; else the free pages), what the process's
// address-space and data-segment limits leave (ulimit -v, -d) and what its cgroup's
// memory.max leaves; infinity when none can be read.
double availableHostMemory();

// Bytes in a MiB (the unit of the filters' MemoryBudget and the CLI's *_mib fields).
inline constexpr double kMiB = 1024.0 * 1024.0;

// "3.5 GiB", "120.0 MiB", "2.0 KiB".
std::string byteSize(double bytes);

// Always in MiB, one decimal, so that small inputs do not read as "0 MiB": "0.1 MiB",
// "2048.0 MiB" (messages that compare two sizes).
std::string mebibytes(double bytes);

// Throws Error when an estimate exceeds the budget (bytes; infinity: unlimited), before
// anything is allocated, so that the run is refused rather than killed by the system:
// "<what> would need about <estimate> of host memory, more than the memory budget of
// <budget>; <advice>".
void refuseOverHostMemoryBudget(double estimate, double budget, const std::string& what,
                                const std::string& advice);

} // namespace topogpu
