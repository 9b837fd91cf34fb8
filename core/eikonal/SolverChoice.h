// What `auto` runs: patchFIM on the GPU only where it wins end to end, counting what a
// GPU run costs beyond meshFIM-MT's (the patch partition unless cached, the device's
// start unless warm, the upload, rounds and download) against meshFIM-MT's solve. The
// mesh's reading, triangulation and setup (the obtuse angles' fans included) and the
// exact start near the seeds are common to both and left out. A model of times
// measured on the GPU hosts (16 cores, H100/H200): estimateAutoCosts is a pure function,
// so its choices are tested without a device.
#pragma once

#include "base/Types.h"

namespace topogpu::eikonal {

struct AutoInputs {
  SimplexId vertices = 0;
  int cpuThreads = 1;        // meshFIM-MT's threads
  bool patchesReady = false; // the patches of this mesh are built (a kept Preparation)
  // Later runs expected to reuse the patches built now: the partition's cost is shared
  // among them and this one (0 for a one-off run such as the CLI's).
  int reruns = 0;
  double deviceReadyIn = 0; // seconds until the device takes work (0: warm)
};

// The reruns execute expects when the mesh setup was already kept (the caller reruns on
// this mesh, as a filter does when the seeds change): patchFIM's partition then pays for
// itself over a few updates.
constexpr int kExpectedReruns = 3;

struct AutoCosts {
  double cpu = 0; // meshFIM-MT's solve, seconds
  double gpu = 0; // patchFIM's partition, device wait, upload, rounds and download
};

AutoCosts estimateAutoCosts(const AutoInputs& inputs);

// True when patchFIM's estimate is below meshFIM-MT's.
inline bool autoPrefersGpu(const AutoInputs& inputs) {
  const AutoCosts costs = estimateAutoCosts(inputs);
  return costs.gpu < costs.cpu;
}

} // namespace topogpu::eikonal
