// What execute builds from a mesh alone, kept for the next run on the same mesh (the
// filter's reruns when only the seeds changed): the mesh setup (edge lengths, virtual
// edges), the exact start's memory, and patchFIM's patches with their cell-assembly
// arrays and their copy on the device. Each is keyed on a fingerprint of everything it
// is built from, so a changed mesh, point, speed or parameter rebuilds it and a stale
// one is never used.
#pragma once

#include "core/eikonal/Eikonal.h"
#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/ExactStart.h"
#include "core/eikonal/Patches.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace topogpu::eikonal {

struct Preparation {
  // The mesh setup of the mesh whose fingerprint is meshKey (valid when hasMesh).
  bool hasMesh = false;
  std::uint64_t meshKey = 0;
  detail::Mesh mesh;
  // The exact start's per-vertex memory on that mesh (ExactStart.h).
  detail::ExactWorkspace exact;
  // The patches built on that mesh with the settings fingerprinted by patchKey.
  bool hasPatches = false;
  std::uint64_t patchKey = 0;
  PatchArrays patches;
  // What the device solver keeps of those patches (their tables uploaded, its state),
  // released with them; empty until a run on the device.
  std::unique_ptr<gpu::PatchFimResident> device;

  void clear() { *this = Preparation(); }
  std::size_t bytes() const; // host memory held
};

// Fingerprint of what buildMesh reads: the connectivity (the triangulation's cells), the
// points, the speed (kind, constant or values) and the unfolding parameters. A new
// Parameters field that buildMesh reads belongs here. Parallel (fixed blocks, so the
// same on any thread count).
std::uint64_t meshFingerprint(const ExplicitTriangulation& triangulation,
                              const double* points, const Parameters& parameters);

// Fingerprint of what buildPatchArrays reads besides the mesh: the patch size and the
// partition method.
std::uint64_t patchFingerprint(std::uint64_t meshKey, const Parameters& parameters);

} // namespace topogpu::eikonal
