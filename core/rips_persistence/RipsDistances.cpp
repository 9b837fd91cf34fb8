#include "RipsDistances.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <limits>

namespace topogpu::rips_persistence::detail {

float inputDistance(const RipsInput& input, SimplexId i, SimplexId j) {
  if (i == j)
    return 0;
  if (i < j)
    std::swap(i, j);
  if (input.format == InputFormat::PointCloud)
    return pointDistance(input, i, j);
  if (input.format != InputFormat::Sparse)
    return input.lowerDistances[std::size_t(i * (i - 1) / 2 + j)];
  // The reader stores each edge once, larger index first, sorted.
  const auto it = std::lower_bound(
      input.edges.begin(), input.edges.end(), std::make_pair(i, j),
      [](const SparseEdge& e, const std::pair<SimplexId, SimplexId>& key) {
        return std::make_pair(e.i, e.j) < key;
      });
  return it != input.edges.end() && it->i == i && it->j == j
             ? it->distance
             : std::numeric_limits<float>::infinity();
}

std::vector<float> pointDistances(const RipsInput& input) {
  const SimplexId n = input.numberOfPoints;
  std::vector<float> lower(std::size_t(n) * std::size_t(n - 1) / 2);
  tbb::parallel_for(SimplexId(1), n, [&](SimplexId i) {
    for (SimplexId j = 0; j < i; ++j)
      lower[std::size_t(i * (i - 1) / 2 + j)] = pointDistance(input, i, j);
  });
  return lower;
}

float streamedEnclosingRadius(const RipsInput& input) {
  const SimplexId n = input.numberOfPoints;
  std::vector<float> rowMax(std::size_t(n), 0.0f);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId i) {
    float m = 0;
    for (SimplexId j = 0; j < n; ++j) {
      if (j != i)
        m = std::max(m, pointDistance(input, i, j));
    }
    rowMax[std::size_t(i)] = m;
  });
  return *std::min_element(rowMax.begin(), rowMax.end());
}

float denseEnclosingRadius(SimplexId n, const std::vector<float>& lower) {
  std::vector<float> rowMax(std::size_t(n), 0.0f);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId i) {
    float m = 0;
    for (SimplexId j = 0; j < i; ++j)
      m = std::max(m, lower[std::size_t(i * (i - 1) / 2 + j)]);
    for (SimplexId j = i + 1; j < n; ++j)
      m = std::max(m, lower[std::size_t(j * (j - 1) / 2 + i)]);
    rowMax[std::size_t(i)] = m;
  });
  return *std::min_element(rowMax.begin(), rowMax.end());
}

float sparseEnclosingRadius(SimplexId n, const std::vector<SparseEdge>& edges) {
  std::vector<SimplexId> degree(std::size_t(n), 0);
  std::vector<float> rowMax(std::size_t(n), 0.0f);
  for (const auto& e : edges) {
    for (const SimplexId v : {e.i, e.j}) {
      ++degree[std::size_t(v)];
      rowMax[std::size_t(v)] = std::max(rowMax[std::size_t(v)], e.distance);
    }
  }
  float radius = std::numeric_limits<float>::infinity();
  for (SimplexId v = 0; v < n; ++v) {
    if (degree[std::size_t(v)] == n - 1)
      radius = std::min(radius, rowMax[std::size_t(v)]);
  }
  return radius;
}

} // namespace topogpu::rips_persistence::detail
