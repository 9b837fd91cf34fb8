// patchFIM's launch configuration (PatchFimLaunch.cuh).
#include "PatchFimLaunch.cuh"

#include "PatchFimKernels.cuh"
#include "cuda/common/CudaCheck.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

namespace topogpu::gpu::patchfim {

Launch configureLaunch(const eikonal::PatchArrays& arrays,
                       const eikonal::PatchFimLaunch& knobs) {
  Launch l;
  l.mode = knobs.mode;
  const std::int32_t np = arrays.patches;
  l.sharedBytes = std::size_t(arrays.maxLocal) * (sizeof(double) + sizeof(SimplexId) + 1);
  int device = 0, sharedOptIn = 0, sms = 0, cooperative = 0;
  cudaCheck(cudaGetDevice(&device), "patchFIM: device");
  cudaCheck(cudaDeviceGetAttribute(&sharedOptIn, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                   device),
            "patchFIM: shared memory size");
  cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
            "patchFIM: multiprocessors");
  cudaCheck(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
            "patchFIM: cooperative launch");
  // The kernels' own __shared__ counters take 16 bytes besides the dynamic part.
  if (l.sharedBytes + 64 > std::size_t(sharedOptIn))
    throw GpuError("patchFIM: a patch reads " + std::to_string(arrays.maxLocal) +
                       " vertices, more than the shared memory of a block holds",
                   false);
  setRoundSharedMemory(l.sharedBytes);
  // knobs.blocksPerSm caps the persistent kernel's blocks per multiprocessor
  // (benchmarks: fewer blocks make grid.sync cheaper, more run more patches side by
  // side).
  l.capPerSm = knobs.blocksPerSm;
  // Blocks resident at once with `lanes` threads per own vertex, for the kernel that
  // will run (the rounds' grid-stride loop, or the cooperative grid, which must be
  // resident as a whole).
  const auto threadsFor = [&](int lanes) {
    return std::max(32, int((arrays.maxOwn * (long long)lanes + 31) / 32 * 32));
  };
  const auto residentBlocks = [&](int lanes, bool persistentKernelRuns) {
    int perSm = roundBlocksPerSm(persistentKernelRuns, threadsFor(lanes), l.sharedBytes);
    if (persistentKernelRuns && l.capPerSm > 0)
      perSm = std::min(perSm, l.capPerSm);
    return (long long)perSm * sms;
  };
  // Threads per own vertex (see patchRound): 4, or fewer when a block would exceed
  // 1024 threads. Only the active patches need blocks, and they are a band around the
  // front, far fewer than all patches: 4 lanes halve the rounds' time on the 1M-vertex
  // meshes (docs/filters/geodesic-distance.md). knobs.lanes = 1|2|4|8 forces it
  // (benchmarks; the core's validate checks the value).
  l.forcedLanes = knobs.lanes;
  l.lanes = l.forcedLanes;
  if (l.lanes == 0) {
    l.lanes = 4;
    while (l.lanes > 1 && threadsFor(l.lanes) > 1024)
      l.lanes /= 2;
  }
  l.threads = threadsFor(l.lanes);
  if (l.threads > 1024)
    throw GpuError("patchFIM: a patch has " + std::to_string(arrays.maxOwn) +
                       " vertices, more than a thread block holds",
                   false);
  l.grid =
      unsigned(std::min<long long>(np, std::max(1LL, residentBlocks(l.lanes, false))));
  l.persistentGrid =
      cooperative != 0 ? unsigned(std::min<long long>(np, residentBlocks(l.lanes, true)))
                       : 0u;
  const bool persistentPossible = l.persistentGrid > 0;
  if (l.mode == LaunchMode::Persistent && !persistentPossible)
    throw GpuError(std::string("patchFIM: the persistent launch is forced, but ") +
                       (cooperative == 0 ? "the device has no cooperative launch"
                                         : "a block of the persistent kernel does not "
                                           "fit on a multiprocessor"),
                   false);
  l.persistent = l.mode != LaunchMode::Rounds && persistentPossible;
  return l;
}

} // namespace topogpu::gpu::patchfim
