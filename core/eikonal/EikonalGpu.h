// patchFIM on the device (CUDA-free header; a CUDA-free build links cuda/GpuStubs.cpp).
#pragma once

#include "core/eikonal/Patches.h"

#include <memory>

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
// settings.launch.mode forces one). Either way the host reads the list's length and
// checks the Monitor only between batches (16 rounds, or a chunk of
// settings.launch.chunk, 128 by default).
//
// The start is the list `fixed` (every other vertex at +inf, label -1): the run
// uploads it and derives the per-vertex state on the device. `resident` keeps the
// patch tables on the device, the per-vertex state, the streams and the page-locked
// staging between runs on the same `arrays` (a Preparation's): empty, or made for other
// arrays or launch settings, it is (re)made and the tables uploaded (staged, the first
// rounds starting meanwhile); otherwise only the start goes up. On return out.value and
// out.label hold the result (resized to the vertices) and out's counts the run's
// (rounds, patchRounds, solves, converged, activeAtCap); out.seed is not used. Records
// report.peakDeviceBytes and the stages "upload (gpu)", "patchfim (gpu)", "download
// (gpu)". Throws GpuError on a CUDA failure or a forced launch scheme the device cannot
// run (the caller falls back to meshFIM-MT), Aborted on abort (the core's validate has
// checked settings.launch); `resident` may then hold nothing usable (the caller drops
// it).
void solvePatchFim(const eikonal::PatchArrays& arrays,
                   const eikonal::PatchFimSettings& settings,
                   const eikonal::FixedVertices& fixed, const Monitor& monitor,
                   eikonal::PatchFimState& out, RunReport& report,
                   std::unique_ptr<PatchFimResident>& resident);

// Device states (PatchFimResident) alive in this process: tests check that a kept one is
// released with its patches.
int livePatchFimResidents();

} // namespace topogpu::gpu
