// A warning of a run: a stable code saying which situation it is, beside the text said
// to the user. Code that must recognise a warning (skip one already said, test for a
// fallback) reads the code; the text is for people and may change.
#pragma once

#include <string>

namespace topogpu {

// One code per situation. The names (warningCodeName) are part of the CLI's JSON
// (warning_codes): append new codes, never rename one.
enum class WarningCode {
  // the GPU was requested but no device is usable: CPU ran
  GpuUnavailable,
  // the input does not fit the device memory budget: CPU ran
  GpuMemoryInsufficient,
  // a GPU stage failed (a CUDA error): the CPU reran it
  GpuFailed,
  // a GPU stage ran out of device memory: the CPU reran it
  GpuOutOfMemory,
  // the GPU was requested; this input or algorithm has no GPU path
  NoGpuPath,
  // the GPU declined one dimension's columns: the CPU built them
  RipsDimensionOnCpu,
  // a sparse distance file's 'i i d' lines were ignored
  DiagonalEntriesIgnored,
  // a solver stopped at its iteration cap before converging
  IterationCap,
  // vertices with no finite distance (+inf)
  UnreachedVertices,
  // zero-area triangles, used through their edges only
  DegenerateTriangles,
  // facets shared by more than two cells
  NonManifoldMesh,
  // many obtuse angles could not be split
  ObtuseAnglesNotUnfolded,
  // vertices in no cell
  IsolatedVertices,
  // METIS could not partition: breadth-first patches instead
  MetisFailed,
  // a build without METIS: breadth-first patches instead
  MetisMissing,
  // a distributed run without global ids orders equal values by point coordinates, not by
  // point index
  TiesBrokenByCoordinates,
  // the 2-separatrices exceed their cell limit: port left empty
  Separatrices2TooLarge,
  // GALE's GPU producer could not start: CPU producers
  GaleNoGpuProducer,
  // one part of GALE's GPU producer failed: the CPU does that part
  GaleGpuPartFailed,
  // GALE's GPU producer failed mid-run: CPU producers took over
  GaleGpuProducerFailed,
  // cells other than triangles/tetrahedra were skipped
  MixedCellsIgnored,
  // --drop-zero removed zero-valued vertices and their cells
  ZeroVerticesDropped,
  // constraint points that are not extrema of the input were ignored
  ConstraintIgnored,
  // a kept extremum is no longer one after the simplification
  KeptExtremumLost,
};

// The code's stable name in snake case ("gpu_unavailable").
inline const char* warningCodeName(WarningCode code) {
  switch (code) {
  case WarningCode::GpuUnavailable:
    return "gpu_unavailable";
  case WarningCode::GpuMemoryInsufficient:
    return "gpu_memory_insufficient";
  case WarningCode::GpuFailed:
    return "gpu_failed";
  case WarningCode::GpuOutOfMemory:
    return "gpu_out_of_memory";
  case WarningCode::NoGpuPath:
    return "no_gpu_path";
  case WarningCode::RipsDimensionOnCpu:
    return "rips_dimension_on_cpu";
  case WarningCode::DiagonalEntriesIgnored:
    return "diagonal_entries_ignored";
  case WarningCode::IterationCap:
    return "iteration_cap";
  case WarningCode::UnreachedVertices:
    return "unreached_vertices";
  case WarningCode::DegenerateTriangles:
    return "degenerate_triangles";
  case WarningCode::NonManifoldMesh:
    return "non_manifold_mesh";
  case WarningCode::ObtuseAnglesNotUnfolded:
    return "obtuse_angles_not_unfolded";
  case WarningCode::IsolatedVertices:
    return "isolated_vertices";
  case WarningCode::MetisFailed:
    return "metis_failed";
  case WarningCode::MetisMissing:
    return "metis_missing";
  case WarningCode::TiesBrokenByCoordinates:
    return "ties_broken_by_coordinates";
  case WarningCode::Separatrices2TooLarge:
    return "separatrices2_too_large";
  case WarningCode::GaleNoGpuProducer:
    return "gale_no_gpu_producer";
  case WarningCode::GaleGpuPartFailed:
    return "gale_gpu_part_failed";
  case WarningCode::GaleGpuProducerFailed:
    return "gale_gpu_producer_failed";
  case WarningCode::MixedCellsIgnored:
    return "mixed_cells_ignored";
  case WarningCode::ZeroVerticesDropped:
    return "zero_vertices_dropped";
  case WarningCode::ConstraintIgnored:
    return "constraint_ignored";
  case WarningCode::KeptExtremumLost:
    return "kept_extremum_lost";
  }
  return "?";
}

struct Warning {
  WarningCode code;
  std::string text; // said to the user as it is

  bool operator==(const Warning& other) const {
    return code == other.code && text == other.text;
  }
  bool operator!=(const Warning& other) const { return !(*this == other); }
};

} // namespace topogpu
