// patchFIM's data (section 2.5 of Fu et al. 2011): the vertices split into patches of
// about patchSize vertices (METIS k-way when this build has it, else BFS-grown patches),
// and the cell-assembly arrays built once per run:
//  - GEO: per patch vertex, its triangle solves (PatchSolve: upwind vertices by local
//    index, lengths, slowness; two per split obtuse angle);
//  - VAL: the values of a patch's local table (its own vertices, then the halo vertices
//    its solves read), loaded into fast memory per round;
//  - NBH: per patch, the patches it reads from or that read from it (symmetric).
// The host-side patchFIM below runs Algorithms 2.2-2.5 on these arrays exactly as the
// CUDA kernel does (same rounds, same Jacobi order, same arithmetic), so it is the
// kernel's reference and the CPU-testable half of the GPU solver.
#pragma once

#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/PatchSolve.h"

#include <cstdint>
#include <string>
#include <vector>

namespace topogpu::eikonal {

// True when this build links METIS (the BFS partition is used otherwise).
bool hasMetis();

// patchOf[v] for every vertex: patches numbered 0..count-1, none empty. METIS k-way on
// the vertex graph (VV) with ceil(n / patchSize) parts, or, without METIS (or when it
// fails), patches grown breadth-first up to patchSize vertices. method gets "metis" or
// "bfs"; a warning is added when METIS was wanted but unusable. Needs the VV relation.
std::vector<std::int32_t> partitionVertices(const ExplicitTriangulation& tri,
                                            int patchSize, bool useMetis,
                                            std::int32_t& count, std::string& method,
                                            std::vector<std::string>& warnings);

struct PatchArrays {
  std::int32_t patches = 0;
  std::string method;                // "metis" | "bfs"
  std::vector<std::int32_t> patchOf; // per vertex
  // Patch p's local table is localVertices[localOffsets[p] .. localOffsets[p+1]); its
  // first ownCount[p] entries are its own vertices, the rest its halo.
  std::vector<std::int64_t> localOffsets;
  std::vector<std::int32_t> ownCount;
  std::vector<SimplexId> localVertices;
  // GEO: the solves of the local slot s are solves[solveOffsets[s] .. solveOffsets[s+1])
  // (none for halo slots).
  std::vector<std::int64_t> solveOffsets;
  std::vector<PatchSolve> solves;
  // NBH: patch p's neighbours are neighbors[neighborOffsets[p] .. neighborOffsets[p+1]).
  std::vector<std::int32_t> neighborOffsets, neighbors;
  // Per vertex: 1 when it is in some patch's halo (only such a vertex's change can
  // change another patch, so only these re-activate the NBH).
  std::vector<std::uint8_t> border;
  std::int32_t maxOwn = 0, maxLocal = 0; // the kernel's block and shared-memory sizes

  std::size_t bytes() const; // host (= device) size of the arrays above
};

// Builds the arrays for mesh (buildMesh's) with patches of about patchSize vertices.
void buildPatchArrays(const detail::Mesh& mesh, int patchSize, bool useMetis,
                      PatchArrays& arrays, std::vector<std::string>& warnings);

// The run's settings and state, shared by the host-side and the device patchFIM.
struct PatchFimSettings {
  int internalIterations = 7;
  double epsilon = 0; // absolute convergence tolerance
  double stopDistance = HUGE_VAL;
  long long maxRounds = 1000000;
};

struct PatchFimState {
  std::vector<double> value;      // per vertex: 0 at seeds, +inf elsewhere on entry
  std::vector<SimplexId> label;   // the seed's id at seeds, -1 elsewhere on entry
  std::vector<std::uint8_t> seed; // 1: a seed (never updated)
  long long rounds = 0;           // rounds of the active-patch list
  long long solves = 0;           // triangle solves
  bool converged = true;          // false when maxRounds stopped it
  std::size_t activeAtCap = 0;    // active patches left at the cap
};

// The first active list: the patches holding a seed and their neighbours (a patch of
// seeds only never changes, so its neighbours must start).
std::vector<std::int32_t> initialActivePatches(const PatchArrays& arrays,
                                               const PatchFimState& state);

// patchFIM on the host (TBB over the active patches): each round, every active patch
// loads its local table from the values of the previous round, runs up to
// internalIterations Jacobi sweeps over its own vertices (values only decrease, updates
// beyond stopDistance are dropped), converged when its last sweep moved no value by more
// than epsilon; the next list holds the unconverged patches and the neighbours of those
// whose border values (PatchArrays::border) moved by more than epsilon over the round.
// Deterministic.
void runPatchFimHost(const PatchArrays& arrays, const PatchFimSettings& settings,
                     const Monitor& monitor, PatchFimState& state);

} // namespace topogpu::eikonal
