// One sweep of the simplification on the CPU (TopologicalSimplification.h), written for
// the minimum sweep; the maximum sweep runs it on the mirrored ranks n-1-r. Every step
// has a unique answer, so the CPU and the GPU (relaxation rounds, level-synchronous
// breadth-first search, radix sorts) give the same keys, distances and order:
//  - key(v) = min over vertex paths from a source to v of the path's highest rank (the
//    minimax rank; a vertex no source reaches keeps key = its rank): a priority flood
//    (flood below);
//  - a vertex with key(v) > rank(v) is flattened: it takes the value of the vertex of
//  rank
//    key(v) (never flattened itself: a path reaching v through it has no higher rank
//    before it), and dist(v) = its hop distance from that vertex inside
//    {u : key(u) == key(v)} (connected: every vertex of a minimax path after that vertex
//    has the same key);
//  - the new rank of v is its position in the order of (key, dist, rank).
#pragma once

#include "base/ScalarArray.h"
#include "base/Types.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace topogpu::topological_simplification::detail {

// The minimax keys and the region distances in one priority flood, linear in the
// edges: the levels are taken in increasing rank; a vertex's key is final when it is
// first reached (later levels are higher), as the current level when its rank is below
// it (it joins the level's region, breadth-first from the level's origin, so its
// distance is the hop count) and as its own rank otherwise (it waits as the origin of
// that level). Ranks are a permutation, so the waiting origins are a flag per rank read
// by one forward scan.
template <typename Triangulation>
void flood(const Triangulation& tri, const SimplexId* rank, const SimplexId* vertexOfRank,
           const char* source, std::vector<SimplexId>& key, std::vector<SimplexId>& dist,
           const Monitor& monitor) {
  const SimplexId n = SimplexId(key.size());
  std::vector<char> waiting(std::size_t(n), 0), seen(std::size_t(n), 0);
  for (SimplexId v = 0; v < n; ++v) {
    key[std::size_t(v)] = rank[v]; // unreached vertices keep their rank
    dist[std::size_t(v)] = 0;
    if (source[v]) {
      seen[std::size_t(v)] = 1;
      waiting[std::size_t(rank[v])] = 1;
    }
  }
  std::vector<SimplexId> queue;
  for (SimplexId level = 0; level < n; ++level) {
    if (!waiting[std::size_t(level)])
      continue;
    if ((level & 0xfffff) == 0)
      monitor.checkAbort();
    queue.assign(1, vertexOfRank[level]);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const SimplexId x = queue[head];
      const int degree = tri.getVertexNeighborNumber(x);
      for (int i = 0; i < degree; ++i) {
        const SimplexId u = tri.getVertexNeighbor(x, i);
        if (seen[std::size_t(u)])
          continue;
        seen[std::size_t(u)] = 1;
        if (rank[u] < level) {
          key[std::size_t(u)] = level;
          dist[std::size_t(u)] = dist[std::size_t(x)] + 1;
          queue.push_back(u);
        } else {
          waiting[std::size_t(rank[u])] = 1;
        }
      }
    }
  }
}

// One sweep: rank (a permutation of 0..n-1) -> newRank; the flattened vertices take
// their origin's value in values (the input's type, changed in place); flattened[v] is
// set for them. Returns how many were flattened.
template <typename Triangulation>
SimplexId sweep(const Triangulation& tri, const SimplexId* rank, const char* source,
                const ScalarArrayView& values, void* valuesOut, SimplexId* newRank,
                char* flattened, const Monitor& monitor) {
  const SimplexId n = values.size;
  std::vector<SimplexId> vertexOfRank(static_cast<std::size_t>(n)),
      key(static_cast<std::size_t>(n)), dist(static_cast<std::size_t>(n));
  tbb::parallel_for(SimplexId(0), n,
                    [&](SimplexId v) { vertexOfRank[std::size_t(rank[v])] = v; });
  flood(tri, rank, vertexOfRank.data(), source, key, dist, monitor);
  monitor.checkAbort();
  // The order of (key, dist, rank): a vertex that keeps its key has (rank, 0, rank), so
  // only the flattened ones are sorted, each group of key t placed right after the
  // vertex of rank t.
  std::vector<SimplexId> moved;
  for (SimplexId v = 0; v < n; ++v)
    if (key[std::size_t(v)] != rank[v])
      moved.push_back(v);
  tbb::parallel_sort(moved.begin(), moved.end(), [&](SimplexId a, SimplexId b) {
    const auto ka = key[std::size_t(a)], kb = key[std::size_t(b)];
    if (ka != kb)
      return ka < kb;
    const auto da = dist[std::size_t(a)], db = dist[std::size_t(b)];
    if (da != db)
      return da < db;
    return rank[a] < rank[b];
  });
  SimplexId position = 0;
  std::size_t next = 0;
  for (SimplexId t = 0; t < n; ++t) {
    const SimplexId v = vertexOfRank[std::size_t(t)];
    if (key[std::size_t(v)] != t)
      continue; // flattened: placed with its key's group
    newRank[v] = position++;
    for (; next < moved.size() && key[std::size_t(moved[next])] == t; ++next)
      newRank[moved[next]] = position++;
  }
  SimplexId count = 0;
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    auto* out = static_cast<ValueT*>(valuesOut);
    for (SimplexId v = 0; v < n; ++v) {
      if (key[std::size_t(v)] == rank[v])
        continue;
      out[v] = out[vertexOfRank[std::size_t(key[std::size_t(v)])]];
      flattened[v] = 1;
      ++count;
    }
  });
  return count;
}

// Vertices with an empty lower link (minima: lower = true) or, away from the boundary,
// an empty upper link (maxima).
template <typename Triangulation>
std::vector<char> extremumFlags(const Triangulation& tri, const SimplexId* rank,
                                const char* boundary, SimplexId n, bool lower) {
  std::vector<char> flags(std::size_t(n), 0);
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n),
                    [&](const tbb::blocked_range<SimplexId>& r) {
                      for (SimplexId v = r.begin(); v < r.end(); ++v) {
                        if (!lower && boundary[v])
                          continue;
                        const int degree = tri.getVertexNeighborNumber(v);
                        bool extremum = true;
                        for (int i = 0; i < degree && extremum; ++i) {
                          const SimplexId u = tri.getVertexNeighbor(v, i);
                          extremum = lower ? rank[u] > rank[v] : rank[u] < rank[v];
                        }
                        flags[std::size_t(v)] = extremum ? 1 : 0;
                      }
                    });
  return flags;
}

} // namespace topogpu::topological_simplification::detail
