// patchFIM on the device (CUDA-free header; a CUDA-free build links cuda/GpuStubs.cpp).
#pragma once

#include "core/eikonal/Patches.h"

namespace topogpu::gpu {

// Algorithms 2.2-2.5 of Fu et al. 2011 on the device, round for round the host-side
// runPatchFimHost (Patches.h: dirty-only solves, announcements on convergence, the band):
// one thread block per active patch, its local table in shared memory, up to
// settings.internalIterations Jacobi sweeps (one thread per own vertex, the shared
// PatchSolve.h update in double precision with FMA contraction off, so the arithmetic is
// the host's), patch convergence by a block reduction, and the next active list built on
// the device (no host round trip per round; its length is read every 8 rounds). state
// holds the initial values/labels/seeds on entry and the result on return (rounds,
// patchRounds, solves, converged, activeAtCap). Records report.peakDeviceBytes. Throws
// GpuError on a CUDA failure (the caller falls back to meshFIM-MT), Aborted on abort
// (checked every 8 rounds).
void solvePatchFim(const eikonal::PatchArrays& arrays,
                   const eikonal::PatchFimSettings& settings, const Monitor& monitor,
                   eikonal::PatchFimState& state, RunReport& report);

} // namespace topogpu::gpu
