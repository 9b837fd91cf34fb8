// Vietoris-Rips persistence barcodes over Z/2 (CPU backend, VTK-free): dimension 0 by
// union-find over the edges in filtration order, dimensions >= 1 by the reduction of the
// implicit coboundary matrix with clearing, apparent pairs (Zhang, Xiao, Wang: Ripser++,
// lemma 7) found in parallel, emergent pairs (Bauer: Ripser) taken without assembly, and
// the other columns reduced in parallel without locks (Morozov and Nigmetov, 2020).
#pragma once

#include "RipsInput.h"

#include "core/common/Types.h"

#include <cstddef>
#include <limits>
#include <vector>

namespace topogpu::rips_persistence {

enum class SparseMode {
  Auto,  // sparse when the threshold keeps under a quarter of the pairs, or sparse input
  Dense, // the full matrix (a sparse input is still read as sparse)
  Sparse // adjacency lists of the edges under the threshold
};

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
};

// [birth, death); death = +inf for an essential class.
struct Interval {
  float birth = 0;
  float death = std::numeric_limits<float>::infinity();
};

struct DimensionStats {
  SimplexId simplices = 0;     // simplices of this dimension under the threshold
  SimplexId columns = 0;       // columns left after clearing
  SimplexId pairs = 0;         // persistence pairs (zero-length ones included)
  SimplexId apparentPairs = 0; // found by the apparent pairs lemma
  SimplexId emergentPairs = 0; // found by the emergent pairs lemma during the reduction
  SimplexId essential = 0;
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
  SimplexId edges = 0; // edges under the threshold
  float enclosingRadius = 0;
  float threshold = 0; // the threshold used
  bool sparse = false; // the sparse path ran
  // With Parameters::cocycles: one per finite bar of dimension >= 1, by dimension, in
  // the order of the intervals.
  std::vector<Representative> representatives;
};

// Error on bad parameters; Aborted when the monitor asks.
void execute(const RipsInput& input, const Parameters& parameters, const Monitor& monitor,
             Result& result, RunReport& report);

// min over points of the largest distance to any other point (infinite when no point
// reaches every other one, as in a sparse input).
float enclosingRadius(const RipsInput& input);

} // namespace topogpu::rips_persistence
