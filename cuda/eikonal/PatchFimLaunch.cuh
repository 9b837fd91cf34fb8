// How patchFIM's rounds are launched for a patch table on this device: the settings'
// launch knobs (eikonal::PatchFimLaunch), then what follows from them, the device and
// the table (threads per own vertex, blocks, shared memory, the persistent kernel or
// two launches per round).
#pragma once

#include "core/eikonal/Patches.h"

#include <cstddef>

namespace topogpu::gpu::patchfim {

using LaunchMode = eikonal::PatchFimLaunchMode;

struct Launch {
  LaunchMode mode = LaunchMode::Auto;
  int capPerSm = 0, forcedLanes = 0;
  std::size_t sharedBytes = 0;
  int lanes = 1, threads = 32;
  unsigned grid = 1, persistentGrid = 0;
  bool persistent = false;
  bool operator==(const Launch& o) const {
    return mode == o.mode && capPerSm == o.capPerSm && forcedLanes == o.forcedLanes &&
           sharedBytes == o.sharedBytes && lanes == o.lanes && threads == o.threads &&
           grid == o.grid && persistentGrid == o.persistentGrid &&
           persistent == o.persistent;
  }
};

// Sets the round kernels' shared memory for the table. Throws GpuError when a patch
// does not fit a block (its local table the shared memory, its own vertices the
// threads) or when a forced persistent launch cannot run on this device.
Launch configureLaunch(const eikonal::PatchArrays& arrays,
                       const eikonal::PatchFimLaunch& knobs);

} // namespace topogpu::gpu::patchfim
