// Vietoris-Rips persistence barcodes over Z/2 (CPU backend, VTK-free): dimension 0 by
// union-find over the edges in filtration order, dimensions >= 1 by the reduction of the
// implicit coboundary matrix with clearing, apparent pairs (Zhang, Xiao, Wang: Ripser++,
// lemma 7) found in parallel, emergent pairs (Bauer: Ripser) taken without assembly, and
// the other columns reduced in parallel without locks (Morozov and Nigmetov, 2020).
#pragma once

#include "RipsInput.h"

#include "base/Types.h"

#include <cstddef>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace topogpu::rips_persistence {

enum class SparseMode {
  Auto,  // sparse when the threshold keeps under a quarter of the pairs, or sparse input
  Dense, // the full matrix (a sparse input is still read as sparse)
  Sparse // adjacency lists of the edges under the threshold
};

// The parameters' ranges (the CLI's options and the filter's properties take these):
// dimensions up to 64 (simplices of up to 66 vertices; the engine's vertex arrays hold
// 72, and the 63-bit index space runs out first on any input large enough for them),
// threads up to 4096.
constexpr int kMaxDimensionLimit = 64;
constexpr int kMaxThreads = 4096;

struct Parameters {
  int maxDimension = 1; // Ripser's --dim
  // Simplices of diameter <= threshold enter the filtration. Infinity (the default)
  // means the enclosing radius; a larger value is lowered to it (section 3.5 of the
  // Ripser++ paper: the nonzero bars stay the same).
  double threshold = std::numeric_limits<double>::infinity();
  SparseMode sparse = SparseMode::Auto;
  int threads = 0; // 0: all cores
  Backend backend = Backend::Auto;
  // Representative cocycles of the finite bars of dimension >= 1 (ripser.py's
  // do_cocycles): Result::representatives.
  bool cocycles = false;
  // Host bytes the run may store (> 0): a run whose estimate (RipsEstimate.h) is larger
  // is refused before it allocates anything large, and one whose columns outgrow what
  // is left stops with an Error. The front ends pass the machine's available memory;
  // infinity: no limit.
  double memoryBudget = std::numeric_limits<double>::infinity();
  // Test knob: every column of a dense input keeps only its entries up to a bound after
  // its first addition (otherwise only long columns do), so that small inputs exercise
  // the bounded columns and their extensions. Same barcodes either way. The front ends
  // set it from TOPOGPU_RIPS_BOUND_EVERY_COLUMN (frontend/EnvironmentKnobs.h).
  bool boundEveryColumn = false;
};

// [birth, death); death = +inf for an essential class. In the input's units: the
// filtration's single-precision values times 2^RipsInput::scaleExponent (exactly the
// floats when the input needs no scaling).
struct Interval {
  double birth = 0;
  double death = std::numeric_limits<double>::infinity();
};

struct DimensionStats {
  SimplexId simplices = 0;     // simplices of this dimension under the threshold
  SimplexId columns = 0;       // columns left after clearing
  SimplexId pairs = 0;         // persistence pairs (zero-length ones included)
  SimplexId apparentPairs = 0; // found by the apparent pairs lemma
  SimplexId emergentPairs = 0; // found by the emergent pairs lemma during the reduction
  SimplexId essential = 0;
  // Where the columns of this dimension were built and their apparent pairs found:
  // "cpu", or "gpu" (batches > 1 when the device budget split the dimension).
  std::string columnsBackend = "cpu";
  int batches = 0;
  double apparentPercent() const {
    return pairs ? 100.0 * double(apparentPairs) / double(pairs) : 0.0;
  }
};

// The representative cocycle of one finite bar of dimension >= 1: the cochain of its
// reduced coboundary column (Z/2), a sum of `dimension`-simplices. Its coboundary
// vanishes on every simplex of diameter < death (the column's entries are its pivot and
// younger cofacets), and its class is the bar's nonzero class in H^dimension(K_t), birth
// <= t < death.
struct Representative {
  int dimension = 1;
  std::size_t interval = 0;         // index into Result::intervals[dimension]
  std::vector<SimplexId> simplices; // (dimension + 1) vertices per simplex, decreasing
  SimplexId size() const {
    return SimplexId(simplices.size()) / SimplexId(dimension + 1);
  }
};

struct Result {
  std::vector<std::vector<Interval>> intervals; // per dimension 0..maxDimension
  std::vector<DimensionStats> stats;            // per dimension (dimension 0: union-find)
  SimplexId numberOfPoints = 0;
  SimplexId edges = 0;        // edges under the threshold
  double enclosingRadius = 0; // in the input's units, as the intervals
  double threshold = 0;       // the threshold used
  bool sparse = false;        // the sparse path ran
  // With Parameters::cocycles: one per finite bar of dimension >= 1, by dimension, in
  // the order of the intervals.
  std::vector<Representative> representatives;
};

// ---- The hook of the GPU backend (cuda/rips_persistence) into the reduction ----

// A simplex of the filtration: its diameter and combinatorial index (16 bytes, the same
// layout on the host and the device).
struct Simplex {
  float diameter = 0;
  SimplexId index = 0;
};

// The graph a column builder works on: n points, the simplices of diameter <= threshold;
// dense (lower, n(n-1)/2 entries, i > j at i(i-1)/2 + j) or sparse (CSR adjacency, each
// list sorted by neighbour). binomial: C(i, k) at k * (n + 1) + i, k <= maxDimension + 2.
struct RipsGraph {
  SimplexId n = 0;
  float threshold = 0;
  int maxDimension = 0;
  const SimplexId* binomial = nullptr;
  const float* lower = nullptr; // dense
  bool sparse = false;
  std::vector<SimplexId> offsets;   // sparse: n + 1
  std::vector<SimplexId> neighbors; // sparse
  std::vector<float> distances;     // sparse, parallel to neighbors
};

// What a column builder hands the reduction of one dimension. With batches > 1, columns
// are `batches` sorted runs one after the other (the reduction's side joins them). The
// apparent pairs are only counted: the reduction finds a pair again from its pivot's
// vertices where it meets one (as the CPU backend does), so none is stored or copied.
struct PreparedDimension {
  std::vector<Simplex> columns;   // not cleared, not apparent; reverse filtration order
  SimplexId apparentCount = 0;    // the columns paired by the apparent pairs lemma
  std::vector<Simplex> simplices; // every simplex of the dimension, when asked for
  SimplexId simplexCount = 0;     // simplices of the dimension under the threshold
  int batches = 1;
};

// Builds the columns of a dimension and finds their apparent pairs elsewhere (the GPU;
// in the unit tests its host twin). The reduction stays the CPU's.
class ColumnBuilder {
public:
  virtual ~ColumnBuilder() = default;
  // dim 1: `given` holds the columns (the edges dimension 0 did not clear, reverse
  // filtration order). dim >= 2: `facets` holds every simplex of dimension dim-1, or is
  // empty when the builder kept them from the previous call; the pivots of dimension
  // dim-1 are the apparent pairs' (which the builder finds again) and clearedReduced
  // (the reduction's, sorted). keepSimplices: the next call needs this dimension's
  // simplices as facets: the builder keeps them or fills out.simplices. Returns false to
  // decline (the CPU builds this dimension; kept facets are then put into `facets`);
  // throws GpuError on a device failure, Aborted on abort.
  virtual bool prepare(int dim, std::vector<Simplex>& facets,
                       const std::vector<Simplex>* given, bool keepSimplices,
                       const std::vector<SimplexId>& clearedReduced,
                       PreparedDimension& out, RunReport& report) = 0;
};

// The graph outlives the builder it makes.
using ColumnBuilderFactory =
    std::function<std::unique_ptr<ColumnBuilder>(const RipsGraph&, RunReport&)>;

// Error on bad parameters; Aborted when the monitor asks. Backend::Gpu starts the
// device (the CUDA context) on a background thread and meanwhile builds the
// dimensions on the CPU (detail::executeStarting); Auto and Cpu run the CPU backend.
void execute(const RipsInput& input, const Parameters& parameters, const Monitor& monitor,
             Result& result, RunReport& report);

// min over points of the largest distance to any other point (infinite when no point
// reaches every other one, as in a sparse input).
double enclosingRadius(const RipsInput& input);

namespace detail {
// Error on bad parameters or an input that breaks its own invariants.
void validate(const RipsInput& input, const Parameters& parameters);

// execute with the columns built by `factory` (null: the CPU) and, when
// deviceDistances is set, the distances of a point cloud computed by it; no backend
// selection, no fallback (execute does those). Tests run the GPU's host twin with it.
using DistanceFunction =
    std::function<void(const RipsInput&, std::vector<float>&, RunReport&)>;
void executeWith(const RipsInput& input, const Parameters& parameters,
                 const Monitor& monitor, const ColumnBuilderFactory& factory,
                 const DistanceFunction& deviceDistances, Result& result,
                 RunReport& report);

// The device once started (execute does it on a background thread): whether it is
// usable (whyNot says why not), the budget deviceMemoryBudget gives for its free bytes,
// and the seconds the start took (mostly the CUDA context's creation).
struct DeviceStart {
  bool usable = false;
  std::string whyNot;
  std::size_t budgetBytes = 0;
  double seconds = 0;
};

// When a run waits for a device that is still starting rather than have the CPU do the
// work meanwhile. From the CPU's column rate and the context's start-up time measured on
// the benchmark's host (docs/filters/rips-persistence.md), the CPU would take longer than
// the whole start-up from 20M simplices on, so such a dimension waits for the device; a
// smaller one is built
// by the CPU (its reduction is the CPU's either way). A point cloud's distances: two
// parallel CPU passes over n(n-1)/2 entries cost less than the start-up plus the
// matrix's download up to about 2^30 entries (n ~ 46,000, a 4 GiB matrix; estimated,
// not measured).
struct WaitRule {
  SimplexId simplices = 20'000'000;         // estimated simplices of the dimension
  SimplexId distances = SimplexId(1) << 30; // entries of the distance matrix
};

// execute's GPU backend with the device starting elsewhere (execute: a background
// thread; tests: a fake). While `device` is not ready, the point cloud's distances and
// the dimensions go to the CPU unless `wait` says to wait; the first dimension that finds
// it ready (or waits for it) makes its builder with `factory`, which then gets every
// later dimension. The device is waited for at the end in any case. An unusable device
// (absent, or budgetBytes below gpuBaseBytes): the CPU's result with resolveBackend's
// warnings and report.backend "cpu"; a GpuError: the CPU's rerun with runWithFallback's
// warning. Else report.backend is "gpu" (DimensionStats::columnsBackend says where each
// dimension's columns were built). Adds the timing "device start (gpu)".
void executeStarting(const RipsInput& input, const Parameters& parameters,
                     const Monitor& monitor, std::shared_future<DeviceStart> device,
                     const ColumnBuilderFactory& factory,
                     const DistanceFunction& deviceDistances, Result& result,
                     RunReport& report, const WaitRule& wait = {});

// Device bytes a GPU run needs before any dimension (the matrix or the graph, the
// binomial table, one smallest batch): what resolveBackend plans with.
std::size_t gpuBaseBytes(const RipsInput& input, const Parameters& parameters);

// execute's GPU backend (RipsDeviceStart.cpp): executeStarting with the device started
// in the background, its column builder and its point distances.
void executeOnDevice(const RipsInput& input, const Parameters& parameters,
                     const Monitor& monitor, Result& result, RunReport& report);
} // namespace detail

} // namespace topogpu::rips_persistence
