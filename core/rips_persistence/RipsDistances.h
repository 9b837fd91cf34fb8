// The distances of a Rips input as the filtration sees them (single precision), one rule
// for every stage that reads them: the enclosing radius, the edges, the matrix, the
// estimate of a run's size and the filter's cocycle edges.
#pragma once

#include "RipsInput.h"

#include "base/Types.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace topogpu::rips_persistence::detail {

// Euclidean distance in double, rounded once to single precision (the one rule, used
// both when the matrix is stored and when it is streamed).
inline float pointDistance(const RipsInput& input, SimplexId i, SimplexId j) {
  const int dim = input.pointDimension;
  const double* a = &input.points[std::size_t(i) * std::size_t(dim)];
  const double* b = &input.points[std::size_t(j) * std::size_t(dim)];
  double sum = 0;
  for (int k = 0; k < dim; ++k)
    sum += (a[k] - b[k]) * (a[k] - b[k]);
  return float(std::sqrt(sum));
}

// The threshold a run uses, stored like the distances: the requested one (in the
// input's units), lowered to the enclosing radius (above it the complex is a cone:
// nothing nonzero is born or dies).
inline float runThreshold(const RipsInput& input, double requested,
                          float enclosingRadius) {
  const double scaled = std::ldexp(requested, -input.scaleExponent);
  const float t = scaled >= double(std::numeric_limits<float>::max())
                      ? std::numeric_limits<float>::infinity()
                      : float(scaled);
  return std::min(t, enclosingRadius);
}

// The stored distance of points i and j of any input (times 2^-scaleExponent; a sparse
// input: infinite when no edge).
float storedDistance(const RipsInput& input, SimplexId i, SimplexId j);

// f(i) for the rows i = 1..n-1 of a lower-triangular pass (row i has i entries), in
// parallel, by 64 blocks of about equal work; between blocks the calling thread checks
// the monitor and reports the fraction done.
template <class F> void forRowsInBlocks(SimplexId n, const Monitor& monitor, F&& f) {
  const double total = double(n) * double(n - 1) / 2;
  SimplexId first = 1;
  for (int block = 1; block <= 64 && first < n; ++block) {
    monitor.checkAbort();
    SimplexId last =
        block == 64
            ? n
            : std::min<SimplexId>(n, SimplexId(std::sqrt(2 * total * block / 64)) + 1);
    last = std::max(last, first + 1);
    tbb::parallel_for(first, last, f);
    first = last;
    monitor.report(double(block) / 64);
  }
  monitor.checkAbort();
}

// A point cloud's lower-triangular matrix (entry of i > j at i(i-1)/2 + j).
std::vector<float> pointDistances(const RipsInput& input, const Monitor& monitor);

// The enclosing radius of a point cloud without storing its matrix.
float streamedEnclosingRadius(const RipsInput& input, const Monitor& monitor);
float denseEnclosingRadius(SimplexId n, const std::vector<float>& lower,
                           const Monitor& monitor);
// Infinite unless some point has an edge to every other one.
float sparseEnclosingRadius(SimplexId n, const std::vector<SparseEdge>& edges);

} // namespace topogpu::rips_persistence::detail
