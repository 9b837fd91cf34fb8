// The distances of a Rips input as the filtration sees them (single precision), one rule
// for every stage that reads them: the enclosing radius, the edges, the matrix, the
// estimate of a run's size and the filter's cocycle edges.
#pragma once

#include "RipsInput.h"

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

// The threshold a run uses: the requested one, lowered to the enclosing radius (above
// it the complex is a cone: nothing nonzero is born or dies).
inline float runThreshold(double requested, float enclosingRadius) {
  const float t = requested >= double(std::numeric_limits<float>::max())
                      ? std::numeric_limits<float>::infinity()
                      : float(requested);
  return std::min(t, enclosingRadius);
}

// The distance of points i != j of any input (a sparse input: infinite when no edge).
float inputDistance(const RipsInput& input, SimplexId i, SimplexId j);

// A point cloud's lower-triangular matrix (entry of i > j at i(i-1)/2 + j).
std::vector<float> pointDistances(const RipsInput& input);

// The enclosing radius of a point cloud without storing its matrix.
float streamedEnclosingRadius(const RipsInput& input);
float denseEnclosingRadius(SimplexId n, const std::vector<float>& lower);
// Infinite unless some point has an edge to every other one.
float sparseEnclosingRadius(SimplexId n, const std::vector<SparseEdge>& edges);

} // namespace topogpu::rips_persistence::detail
