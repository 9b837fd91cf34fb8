// The host memory a front end may give an algorithm (the algorithms take a budget as a
// parameter and never ask the system themselves).
#pragma once

namespace topogpu {

// Bytes this process can still allocate: the least of /proc/meminfo's MemAvailable
// (free memory plus reclaimable caches; else the free pages), what the process's
// address-space and data-segment limits leave (ulimit -v, -d) and what its cgroup's
// memory.max leaves; infinity when none can be read.
double availableHostMemory();

} // namespace topogpu
