#include "RipsDistances.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <limits>

namespace topogpu::rips_persistence::detail {

float storedDistance(const RipsInput& input, SimplexId i, SimplexId j) {
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

std::vector<float> pointDistances(const RipsInput& input, const Monitor& monitor) {
  const SimplexId n = input.numberOfPoints;
  std::vector<float> lower(std::size_t(n) * std::size_t(n - 1) / 2);
  forRowsInBlocks(n, monitor, [&](SimplexId i) {
    for (SimplexId j = 0; j < i; ++j)
      lower[std::size_t(i * (i - 1) / 2 + j)] = pointDistance(input, i, j);
  });
  return lower;
}

// Each row's largest distance, from the lower triangle's rows (row i: its j < i) and
// their transposes, folded per row by the thread that owns it.
template <class Distance>
float enclosingRadiusOf(SimplexId n, const Monitor& monitor, Distance&& distance) {
  // rowMax[i] over j < i, then over j > i from a second pass over the transposes.
  std::vector<float> below(std::size_t(n), 0.0f), above(std::size_t(n), 0.0f);
  forRowsInBlocks(n, monitor.stage(0, 0.5), [&](SimplexId i) {
    float m = 0;
    for (SimplexId j = 0; j < i; ++j)
      m = std::max(m, distance(i, j));
    below[std::size_t(i)] = m;
  });
  // Row i's entries above the diagonal are column i of the rows below: by blocks of
  // columns, each column owned by one thread.
  const Monitor second = monitor.stage(0.5, 1);
  const SimplexId blocks = 64;
  for (SimplexId b = 0; b < blocks; ++b) {
    second.checkAbort();
    tbb::parallel_for(n * b / blocks, n * (b + 1) / blocks, [&](SimplexId i) {
      float m = 0;
      for (SimplexId j = i + 1; j < n; ++j)
        m = std::max(m, distance(j, i));
      above[std::size_t(i)] = m;
    });
    second.report(double(b + 1) / double(blocks));
  }
  float radius = std::numeric_limits<float>::infinity();
  for (SimplexId i = 0; i < n; ++i)
    radius = std::min(radius, std::max(below[std::size_t(i)], above[std::size_t(i)]));
  return radius;
}

float streamedEnclosingRadius(const RipsInput& input, const Monitor& monitor) {
  return enclosingRadiusOf(input.numberOfPoints, monitor, [&](SimplexId i, SimplexId j) {
    return pointDistance(input, i, j);
  });
}

float denseEnclosingRadius(SimplexId n, const std::vector<float>& lower,
                           const Monitor& monitor) {
  return enclosingRadiusOf(n, monitor, [&](SimplexId i, SimplexId j) {
    return lower[std::size_t(i * (i - 1) / 2 + j)];
  });
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
