// patchFIM on the device (CUDA-free header; a CUDA-free build links cuda/GpuStubs.cpp).
#pragma once

#include "core/eikonal/Patches.h"

namespace topogpu::gpu {

// Algorithms 2.2-2.5 of Fu et al. 2011 on the device, round for round the host-side
// runPatchFimHost (Patches.h: dirty-only solves, announcements on convergence, the band):
// one thread block per active patch, its local table in shared memory, up to
// settings.internalIterations Jacobi sweeps (1-4 threads per own vertex, the shared
// LocalSolver.h solve in double precision with FMA contraction off, combined as
// PatchSolve.h's updateFromPatch does, so the arithmetic is the host's), patch
// convergence by a block reduction, and the next active list built on the device. The
// rounds run either in one cooperative (persistent) launch per chunk of rounds, one
// grid-wide barrier per round and the end detected on the device, or as two launches
// per round (the fallback where cooperative launch is unavailable;
// TOPOGPU_PATCHFIM_LAUNCH=rounds|persistent forces one). Either way the host reads the
// list's length and checks the Monitor only between batches (16 rounds, or a chunk of
// 128; TOPOGPU_PATCHFIM_CHUNK). state holds the initial values/labels/seeds on entry and
// the result on return (rounds, patchRounds, solves, converged, activeAtCap). Records
// report.peakDeviceBytes. Throws GpuError on a CUDA failure or a forced launch scheme the
// device cannot run (the caller falls back to meshFIM-MT), Aborted on abort, Error on a
// malformed TOPOGPU_PATCHFIM_* variable.
void solvePatchFim(const eikonal::PatchArrays& arrays,
                   const eikonal::PatchFimSettings& settings, const Monitor& monitor,
                   eikonal::PatchFimState& state, RunReport& report);

} // namespace topogpu::gpu
