// Geodesic distance on triangle meshes: the solution of the Eikonal equation
// |grad phi| = 1 / speed from seed vertices, by the solvers of Fu, Jeong, Pan, Kirby and
// Whitaker, "A fast iterative method for solving the Eikonal equation on triangulated
// surfaces" (SIAM J. Sci. Comput. 33(5), 2011; ../shared/seeds/meshfim-...):
//  - FMM: fast marching, the serial baseline (binary heap, one acceptance per vertex);
//  - meshFIM: the fast iterative method, Algorithm 2.1 (an active list swept until every
//    vertex is epsilon-converged), single-threaded;
//  - meshFIM-MT: the active list split among TBB threads;
//  - patchFIM on the GPU (Algorithms 2.2-2.5): patches of about 64 vertices (grown
//    breadth-first, or METIS), internal iterations per active patch in shared memory, a
//    band of values per round and a device-side worklist (cuda/eikonal, Patches.h);
//  - Auto: patchFIM where it wins end to end (SolverChoice.h: a device that fits the
//    mesh, and its partition, device start and transfers below meshFIM-MT's solve),
//    else meshFIM-MT.
// All use the local solver of section 2.2 (LocalSolver.h) on the one-ring triangles, with
// obtuse angles split by virtual edges unfolded from neighbouring triangles (figures
// 2.2/2.4; EikonalMesh.h). The mesh is the explicit triangulation of a triangle surface
// (flat or curved in 3D, boundaries, several components).
#pragma once

#include "base/Types.h"
#include "triangulation/Relations.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace topogpu::eikonal {

enum class Solver { Fmm, Fim, FimMt, Gpu, Auto };
const char* solverName(Solver solver); // "fmm", "fim", "fim-mt", "gpu", "auto"
// "fmm" | "fim" | "fim-mt" | "gpu" | "auto" -> Solver; anything else -> Error naming the
// choices.
Solver parseSolver(const std::string& name);

// How the speed is given. The front moves at `speed` (distance per unit time), so the
// result is the travel time: with speed 1 everywhere, the geodesic distance.
enum class SpeedKind {
  Constant,    // Parameters::speed
  PerVertex,   // speedValues[v]; a triangle's speed is the mean of its three vertices'
  PerTriangle, // speedValues[t], the paper's speed (constant on each triangle)
};

// Bounds that keep a bad request from running forever.
constexpr int kMaxUnfoldingSteps = 64;
// patchFIM: the patch size bounds keep a patch's own vertices within one thread block
// (METIS may exceed the target by a few percent).
constexpr int kMinPatchSize = 4, kMaxPatchSize = 512;
constexpr int kMaxInternalIterations = 1000;

// How the device patchFIM launches its rounds (core/eikonal/EikonalGpu.h): tuning for
// benchmarks and the launch variants of the GPU tests; the defaults decide by the device.
// The front ends read them from the TOPOGPU_PATCHFIM_* variables
// (frontend/EnvironmentKnobs.h). Neither changes a result: every scheme equals the host
// twin bit for bit.
enum class PatchFimLaunchMode { Auto, Rounds, Persistent };
struct PatchFimLaunch {
  // Auto: one cooperative (persistent) launch per chunk of rounds where the device can
  // run it, else two launches per round (Rounds). A forced Persistent the device cannot
  // run is a GPU failure (the fallback to meshFIM-MT, with a warning naming it).
  PatchFimLaunchMode mode = PatchFimLaunchMode::Auto;
  // The persistent kernel's blocks per multiprocessor at most (1 to 64; 0: as many as
  // fit): fewer blocks make the grid barrier cheaper, more run more patches side by side.
  int blocksPerSm = 0;
  // Threads per own vertex of a patch (1, 2, 4 or 8; 0: 4, fewer where a block would
  // pass 1024 threads).
  int lanes = 0;
  // Rounds per persistent launch (1 to kMaxPatchFimChunk): the host checks the abort
  // and the end between launches.
  int chunk = 128;
};
constexpr int kMaxPatchFimBlocksPerSm = 64, kMaxPatchFimLanes = 8,
              kMaxPatchFimChunk = 1 << 20;

struct Parameters {
  // Auto: patchFIM on the GPU where it is expected to win end to end (a device present
  // that fits the mesh, SolverChoice.h's estimate below meshFIM-MT's), else meshFIM-MT
  // (a GPU failure mid-run falls back to meshFIM-MT with a warning).
  Solver solver = Solver::Auto;
  std::vector<SimplexId> seeds; // vertex ids (repeats are ignored); at least one
  SpeedKind speedKind = SpeedKind::Constant;
  double speed = 1.0;                  // SpeedKind::Constant
  const double* speedValues = nullptr; // PerVertex / PerTriangle: one per vertex / cell
  // Vertices farther than this stay unreached (+inf); +inf computes every vertex.
  double stopDistance = std::numeric_limits<double>::infinity();
  // meshFIM's epsilon-convergence tolerance, relative to the mean travel time along an
  // edge (the absolute tolerance is epsilon * mean(edge length / speed)).
  double epsilon = 1e-6;
  // meshFIM: sweeps of the active list (patchFIM: rounds of the active-patch list)
  // before giving up with a warning.
  long long maxIterations = 1000000;
  // patchFIM: vertices per patch (kMinPatchSize..kMaxPatchSize) and the most Jacobi
  // sweeps per active patch and round (1..kMaxInternalIterations); the paper's defaults.
  int patchSize = 64;
  int internalIterations = 7;
  // patchFIM: the band, in mean edge travel times (> 0; +inf: none). A round propagates
  // only values up to the smallest value the previous round left waiting plus the band,
  // so values reach far vertices in about distance order instead of by the fewest hops
  // (whose early guesses each cost corrections downstream): 16-21 local solves per
  // vertex on the 1M-vertex meshes instead of 37-213 without a band, for about
  // distance / (band * mean edge time) rounds.
  double bandWidth = 1.0;
  // patchFIM: METIS k-way patches (when the build has METIS) instead of patches grown
  // breadth-first. BFS is the default: it partitions many times faster than METIS and
  // its compact patches need fewer rounds and local solves (docs/benchmarks.md).
  bool useMetis = false;
  // Split obtuse angles by virtual edges (section 2.2); false solves obtuse triangles
  // through their edges only (for comparisons).
  bool unfoldObtuseAngles = true;
  // Triangles crossed when unfolding the fan of virtual edges of one obtuse angle (1 to
  // kMaxUnfoldingSteps). When the fan is not complete within it (or at a boundary or
  // non-manifold edge) its gaps wider than 90 degrees give their two edge solutions
  // only: their own solution could read a larger value through the obtuse angle, and
  // such non-causal updates let meshFIM fall below FMM.
  int maxUnfoldingSteps = 16;
  // The vertices within this geodesic distance of the seeds start from their exact
  // polyhedral distance (window propagation, ExactStart.h) and are never updated: next
  // to a point source the local solver's linear interpolation along an edge is off by a
  // fixed fraction of the distance, whatever the refinement. Negative (the default):
  // sqrt(mean edge length * sqrt(surface area)) (intrinsic), which grows in edges as the
  // mesh is refined, so the error next to the seeds shrinks with it; 0: none. A uniform
  // speed only (a constant, or an array of one value; otherwise the seeds alone). The
  // propagation stops earlier after an eighth of a window per mesh vertex (at least
  // 32768; many seeds): Result::exactRadius says where.
  double exactStartRadius = -1;
  // The device patchFIM's launch (tuning and tests; see PatchFimLaunch).
  PatchFimLaunch patchFimLaunch;
};

// The relations the solvers read: the one-ring triangles (vertex star), the one-ring
// vertices (which vertices an update may change) and the non-manifold edge count.
constexpr Relations kRequiredRelations = VV | VertexStar | BoundaryVertices;

struct Result {
  std::vector<double> distance;          // per vertex; +inf where unreached
  std::vector<SimplexId> seedIdentifier; // the nearest seed's vertex id; -1 unreached
  Solver solver = Solver::Fmm; // the solver that ran (Auto resolved, fallbacks applied)
  // Sweeps of the active list (meshFIM), accepted vertices (FMM), rounds of the
  // active-patch list (patchFIM).
  long long iterations = 0;
  long long localSolves = 0;       // calls of the triangle solver, virtual ones included
  double localSolvesPerVertex = 0; // the paper's Table 3.4 measure (per mesh vertex)
  SimplexId unreached = 0;         // vertices left at +inf
  SimplexId obtuseAngles = 0;      // obtuse corners of non-degenerate triangles
  SimplexId unfoldedAngles = 0;    // split into angles of at most 90 degrees
  SimplexId degenerateTriangles = 0; // zero area: solved through their edges only
  SimplexId exactVertices = 0;       // started from their exact distance (seeds included)
  double exactRadius = 0;    // the radius they lie within (exactStartRadius or less)
  bool converged = true;     // false when maxIterations stopped meshFIM
  std::int32_t patches = 0;  // patchFIM: the number of patches
  long long patchRounds = 0; // patchFIM: active patches summed over the rounds
  std::string partition;     // patchFIM: "metis" | "bfs"
};

struct Preparation; // Preparation.h: the mesh setup and patches kept between runs

// The device bytes patchFIM needs for a mesh of this size (Auto's fit test): the
// cell-assembly arrays, two copies of the values and labels, the patch lists.
std::size_t patchFimDeviceBytes(SimplexId vertices, SimplexId triangles);

// Distances from parameters.seeds over the triangle mesh `triangulation` whose vertex v
// is at points[3v .. 3v+2]. Throws Error for bad input (not a triangle mesh, no vertex,
// no or out-of-range seeds, non-finite coordinates, a speed that is not finite and > 0,
// parameters out of range), Aborted on abort. Progress runs 0..1; report gets the timings
// ("precondition", "mesh setup", "exact start", then "<solver> (cpu)", or for patchFIM
// "patches (cpu)",
// "device start (wait)" when it waited for the device, "upload (gpu)", "patchfim (gpu)",
// "download (gpu)") and warnings (unreached vertices, degenerate triangles, non-manifold
// edges, more than 1% of the obtuse angles left unsplit, the iteration cap). With
// reuse, the mesh setup and the patches kept there from an earlier run on the same mesh
// (same cells, points, speed and their parameters: fingerprinted) are used again, and
// what is built is kept there ("mesh setup (cached)", "patches (cached)"); the seeds,
// the solver, the stop distance and the exact start radius may change between such
// runs (the exact start is computed every run: it depends on the seeds). Gpu and Auto
// start the device's context on a thread of its own first (DeviceWarmUp.h).
void execute(ExplicitTriangulation& triangulation, const double* points,
             const Parameters& parameters, const Monitor& monitor, Result& result,
             RunReport& report, Preparation* reuse = nullptr);

// The distances in float32 (the filter's default output type); +inf stays +inf. Throws
// Error naming the first reached distance outside float32's normal range (it would
// become +inf or lose its digits, down to 0).
std::vector<float> toFloat32(const std::vector<double>& distance);
// The same into out[0 .. count) (the filter's output array), by all cores.
void toFloat32(const double* distance, std::size_t count, float* out);

} // namespace topogpu::eikonal
