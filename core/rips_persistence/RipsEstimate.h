// The size of a Rips run before it starts: the simplices of each dimension under the
// threshold and the host memory the run stores, so that a run too large for the memory
// is refused with numbers instead of growing until the machine has none left, and an
// interactive front end can pick a threshold whose run stays short.
//
// The edges under the threshold are counted exactly (one pass over the distances,
// nothing stored); so are the triangles, up to 16384 points when the count is cheap
// (bit rows of lower neighbours, one AND and popcount per word). A k-simplex has one
// largest vertex v, and its other k vertices are among the deg(v) neighbours of v below
// v within the threshold, so the k-simplices number at most sum_v C(deg(v), k): exact
// on a complete graph, an upper bound on a sparser one.
#pragma once

#include "RipsInput.h"
#include "RipsPersistence.h"

#include "base/HostMemory.h"
#include "base/Types.h"

#include <limits>
#include <string>
#include <vector>

namespace topogpu::rips_persistence {

struct Estimate {
  // The threshold the counts are for (<= the enclosing radius) and the enclosing radius
  // (infinite for a sparse input that is no complete graph), in the input's units...
  double threshold = 0;
  double enclosingRadius = 0;
  // ... and as stored (times 2^-RipsInput::scaleExponent, single precision).
  float storedThreshold = 0;
  float storedRadius = 0;
  bool sparse = false; // the sparse-graph path runs
  // Simplices under the threshold per dimension 0..maxDimension + 1: the points, the
  // edges (exact), the triangles (exact when cheap, see above), then upper bounds. The
  // last is the coboundary that the columns of the top dimension enumerate: a measure
  // of the run's work.
  std::vector<double> simplices;
  int exactUpTo = 1; // simplices[0..exactUpTo] are exact counts, the others bounds
  // Per D = 0..maxDimension: the host bytes a run up to dimension D stores at its peak:
  // the binomial table, the union-find, the edges (twice while they are gathered), a
  // point cloud's matrix on the dense path or the adjacency lists on the sparse one,
  // the simplices a dimension keeps for the next (twice while gathered), the
  // dimension-1 columns. Not in it: the input itself, the columns of dimensions >= 2
  // left after clearing and apparent pairs (a few percent of their simplices, counted
  // against the budget as they are made) and the reduction's working columns.
  std::vector<double> bytes;
  // The same with every simplex of dimensions 2..D counted as a column too: what a run
  // needs at most (its reduction's working columns aside). The suggestions of a refusal
  // and largestThreshold fit by it.
  std::vector<double> maxBytes;
};

// The estimate of a run of `parameters` (its threshold, maxDimension and sparse mode) on
// `input`. Error on bad parameters; Aborted when the monitor asks (between blocks of
// rows).
// exactTriangles: count the triangles when cheap (else they are bounded like the
// dimensions above, which is faster).
Estimate estimate(const RipsInput& input, const Parameters& parameters,
                  const Monitor& monitor = Monitor{}, bool exactTriangles = true);

// The largest threshold, at most estimate.threshold, at which a run up to
// parameters.maxDimension needs at most maxBytes of memory (Estimate::maxBytes) and
// has at most maxTopSimplices simplices of dimension maxDimension + 1, to one of 8 to
// 256 steps of the estimate's threshold; 0 when none fits. One pass over the distances
// finds the largest step by the bounds; exact: then a bisection by exact estimates
// (the triangles counted) over the steps above it, a pass each.
double largestThreshold(const RipsInput& input, const Parameters& parameters,
                        const Estimate& estimate, double maxBytes, double maxTopSimplices,
                        const Monitor& monitor = Monitor{}, bool exact = true);

// "2000 points; under the threshold 0.85: 1520232 edges, 6.6e+08 triangles, at most
// 3.2e+11 tetrahedra" (bounds say "at most")
// (dimensions 0..upTo).
std::string describeSimplices(const Estimate& estimate, int upTo);

// "9.98e+09 triangles" (the simplices of dimension k; "at most" when a bound).
std::string simplexCount(const Estimate& estimate, int k);

namespace detail {
// The estimate at the stored `threshold` with the (stored) enclosing radius known;
// `lower` is the stored
// matrix (dense inputs, or a point cloud whose matrix the device computed) or null (a
// point cloud streams its distances, a sparse input reads its edges). exactTriangles:
// count the triangles when cheap (else they are bounded like the dimensions above).
Estimate estimateAt(const RipsInput& input, const std::vector<float>* lower,
                    const Parameters& parameters, float threshold, float enclosingRadius,
                    const Monitor& monitor, bool exactTriangles);

// Error when the estimate of the run exceeds parameters.memoryBudget: the estimate, the
// budget, the largest dimension that fits at this threshold and the largest threshold
// at which this dimension fits. `estimate` may bound the triangles: it is made exact
// (estimateAt again) before a refusal.
void refuseUnlessItFits(const RipsInput& input, const std::vector<float>* lower,
                        const Parameters& parameters, const Estimate& estimate,
                        const Monitor& monitor);
} // namespace detail

} // namespace topogpu::rips_persistence
