// The filters' MemoryBudget property: the host memory a run may use, in MiB, 0 for the
// memory available when the run starts (the core modules take it in bytes).
#pragma once

#include "base/HostMemory.h"
#include "base/Types.h"

#include <sstream>

namespace topogpu::vtk {

// Bytes for the core's memoryBudget; Error naming the property for a negative or NaN
// value.
inline double memoryBudgetBytes(double mebibytes) {
  if (!(mebibytes >= 0)) {
    std::ostringstream text;
    text << "Memory Budget must be >= 0 MiB (0: the available memory), got " << mebibytes;
    throw Error(text.str());
  }
  return mebibytes > 0 ? mebibytes * kMiB : availableHostMemory();
}

} // namespace topogpu::vtk
