// patchFIM's data (section 2.5 of Fu et al. 2011): the vertices split into patches of
// about patchSize vertices (grown breadth-first, or METIS k-way when asked for and this
// build has it), and the cell-assembly arrays built once per run:
//  - GEO: per patch vertex, its triangle solves (PatchSolve: upwind vertices by local
//    index, float32 lengths times the slowness; one per virtual triangle of a split
//    obtuse angle's fan);
//  - VAL: the values of a patch's local table (its own vertices, then the halo vertices
//    its solves read), loaded into fast memory per round;
//  - readers (per vertex, the patches that read it) and NBH (per patch, symmetric).
// The host-side patchFIM below runs the rounds on these arrays exactly as the CUDA
// kernel does (same decisions, same arithmetic, same counts), so it is the kernel's
// reference and the CPU-testable half of the GPU solver.
#pragma once

#include "base/Warning.h"
#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/PatchSolve.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::gpu {
// Host memory for the arrays the device uploads: page-locked (cudaMallocHost) in a CUDA
// build with a device, so the upload is one DMA at full bus speed instead of a staged
// copy; the C heap otherwise (cuda/GpuStubs.cpp, or when pinning fails). Below 1 MiB
// only when alwaysPin (small buffers the device reads or writes asynchronously).
// Defined in cuda/eikonal.
void* allocateUploadMemory(std::size_t bytes, bool alwaysPin = false);
void releaseUploadMemory(void* memory) noexcept;

// What the device solver keeps between runs on one set of patch arrays (a Preparation
// holds it, so that a change of seeds uploads only the new start): the patch tables in
// device memory, the per-vertex state, the streams and the page-locked staging.
// Destroying it releases them (cuda/eikonal defines the one kind there is).
class PatchFimResident {
public:
  PatchFimResident() = default;
  PatchFimResident(const PatchFimResident&) = delete;
  PatchFimResident& operator=(const PatchFimResident&) = delete;
  virtual ~PatchFimResident() = default;
};
} // namespace topogpu::gpu

namespace topogpu::eikonal {

// std::vector's allocator for the uploaded arrays (gpu::allocateUploadMemory).
template <typename T, bool kAlwaysPin = false> struct UploadAllocator {
  using value_type = T;
  template <typename U> struct rebind { using other = UploadAllocator<U, kAlwaysPin>; };
  UploadAllocator() = default;
  template <typename U> UploadAllocator(const UploadAllocator<U, kAlwaysPin>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(gpu::allocateUploadMemory(n * sizeof(T), kAlwaysPin));
  }
  void deallocate(T* p, std::size_t) noexcept { gpu::releaseUploadMemory(p); }
  // resize() of an upload array leaves the elements uninitialised (no serial zero fill
  // of ~200 MB): they are all written in parallel before use, so the pages are first
  // touched by the threads that fill them. Pinned vectors are value-initialised.
  template <typename U> void construct(U* p) noexcept {
    if constexpr (kAlwaysPin)
      ::new (static_cast<void*>(p)) U();
    else
      ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args> void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const UploadAllocator<U, kAlwaysPin>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const UploadAllocator<U, kAlwaysPin>&) const noexcept {
    return false;
  }
};
template <typename T> using UploadVector = std::vector<T, UploadAllocator<T>>;
template <typename T> using PinnedVector = std::vector<T, UploadAllocator<T, true>>;

// True when this build links METIS (the BFS partition is used otherwise).
bool hasMetis();

// patchOf[v] for every vertex: patches numbered 0..count-1, none empty. METIS k-way on
// the vertex graph (VV) with ceil(n / patchSize) parts, or, without METIS (or when it
// fails), patches grown breadth-first up to patchSize vertices. method gets "metis" or
// "bfs"; a warning is added when METIS was wanted but unusable. Needs the VV relation.
std::vector<std::int32_t> partitionVertices(const ExplicitTriangulation& tri,
                                            int patchSize, bool useMetis,
                                            std::int32_t& count, std::string& method,
                                            std::vector<Warning>& warnings);

struct PatchArrays {
  std::int32_t patches = 0;
  std::string method;                 // "metis" | "bfs"
  UploadVector<std::int32_t> patchOf; // per vertex
  // Patch p's local table is localVertices[localOffsets[p] .. localOffsets[p+1]); its
  // first ownCount[p] entries are its own vertices, the rest its halo (at most
  // kMaxLocalVertices entries: GEO's local indices are 16-bit).
  std::vector<std::int64_t> localOffsets;
  std::vector<std::int32_t> ownCount;
  UploadVector<std::int32_t> localVertices;
  // Per local slot: the patch owning its vertex (the persistent kernel's halo lookups).
  UploadVector<std::int32_t> slotPatch;
  // GEO: the solves of the local slot s are solves[solveOffsets[s] .. solveOffsets[s+1])
  // (none for halo slots).
  UploadVector<std::int64_t> solveOffsets;
  UploadVector<PatchSolve> solves;
  // The patches that read vertex v (hold it in their halo):
  // readers[readerOffsets[v] .. readerOffsets[v+1]). Only these are activated when v
  // changes (the paper activates a patch's whole NBH).
  UploadVector<std::int32_t> readerOffsets, readers;
  // NBH: patch p's neighbours are neighbors[neighborOffsets[p] .. neighborOffsets[p+1])
  // (symmetric; host-side only, the device activates through readers).
  std::vector<std::int32_t> neighborOffsets, neighbors;
  // Per vertex: 1 when it is in some patch's halo (readers non-empty).
  std::vector<std::uint8_t> border;
  std::int32_t maxOwn = 0, maxLocal = 0; // the kernel's block and shared-memory sizes

  std::size_t bytes() const;       // host size of the arrays above
  std::size_t deviceBytes() const; // what the device solver uploads of them
};

// Builds the arrays for mesh (buildMesh's) with patches of about patchSize vertices.
// With seed flags (one per vertex), the patches are numbered in the order a
// breadth-first search from the seeds reaches them (the partition is unchanged): the
// device uploads them in that order and starts on the first ones while the others are
// still on their way. Nothing computed depends on the numbering, so arrays built for
// other seeds serve as well (a kept Preparation's).
void buildPatchArrays(const detail::Mesh& mesh, int patchSize, bool useMetis,
                      PatchArrays& arrays, std::vector<Warning>& warnings,
                      const std::uint8_t* seed = nullptr);

// The run's settings and state, shared by the host-side and the device patchFIM.
struct PatchFimSettings {
  int internalIterations = 7;
  double epsilon = 0; // absolute convergence tolerance
  double stopDistance = HUGE_VAL;
  long long maxRounds = 1000000;
  // The band: a round propagates values up to the smallest pending value of the
  // previous round plus this (absolute; +inf: no band).
  double band = HUGE_VAL;
  PatchFimLaunch launch; // the device's launch (Parameters::patchFimLaunch)
};

struct PatchFimState {
  // On entry: the fixed vertices' values and labels (detail::Start: the seeds at 0 with
  // their ids, the exact start near them), +inf and -1 elsewhere.
  std::vector<double> value;
  std::vector<SimplexId> label;
  std::vector<std::uint8_t> seed; // 1: fixed (a seed or an exact start), never updated
  long long rounds = 0;           // rounds of the active-patch list
  long long patchRounds = 0;      // active patches summed over the rounds
  long long solves = 0;           // triangle solves
  bool converged = true;          // false when maxRounds stopped it
  std::size_t activeAtCap = 0;    // active patches left at the cap
};

// A run's fixed vertices as a list (detail::fixedStart builds it): the seeds at 0 with
// their own ids and the exact start near them; every other vertex starts at +inf with
// label -1. The device solver uploads this list only, not per-vertex arrays.
struct FixedVertices {
  std::vector<SimplexId> vertex; // increasing, distinct
  std::vector<double> value;     // in the mesh's units
  std::vector<SimplexId> label;
};

// The first active list, in increasing order: the patches holding a fixed vertex and
// those that read one (a patch of fixed vertices only never changes, so its readers
// must start).
std::vector<std::int32_t> initialActivePatches(const PatchArrays& arrays,
                                               const std::vector<SimplexId>& fixed);
// The same from the state's fixed flags.
std::vector<std::int32_t> initialActivePatches(const PatchArrays& arrays,
                                               const PatchFimState& state);

// patchFIM on the host, the device solver's twin (TBB over the active patches; the same
// arithmetic, decisions and counts as the kernel, whatever the order the patches run
// in). Round r (from 1):
//  - every active patch loads its local table from the values at the end of round r-1
//    (Jacobi between patches: the paper's VAL_in / VAL_out);
//  - a local vertex is "dirty" when it changed by more than epsilon in round r-1 (a
//    per-vertex round stamp; the seeds count as changed in round 0);
//  - up to internalIterations Jacobi sweeps over the own vertices, each solving only
//    the triangles that read a dirty vertex (PatchSolve.h: the paper's per-vertex active
//    flags); a vertex that moved in a sweep is dirty for the next one; values only
//    decrease, updates beyond stopDistance are dropped; the patch has converged when a
//    sweep moved no value by more than epsilon;
//  - an own vertex that moved by more than epsilon over the round is stamped r and its
//    readers (PatchArrays::readers) join the next list; an unconverged patch stays.
// Deterministic.
void runPatchFimHost(const PatchArrays& arrays, const PatchFimSettings& settings,
                     const Monitor& monitor, PatchFimState& state);

} // namespace topogpu::eikonal
