// The graphs the CPU engine walks: the complete graph of a dense distance matrix (with a
// square copy for one-load lookups and per-vertex lists by distance for bounded
// columns) and the adjacency lists of a sparse one. Each gives the distance of two
// vertices, the candidate new vertices of a simplex's cofacets in decreasing order, and
// the distances of those candidates to the simplex's vertices (rows).
#pragma once

#include "RipsFiltration.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace topogpu::rips_persistence::detail {

// The complete graph of a dense matrix: every vertex is a cofacet candidate.
// candidates() calls f(w, j, d): d is w's distance to vertex j of the simplex when the
// graph knows it already (j >= 0), which saves that lookup.
class DenseGraph {
public:
  // Up to kFullBytes the matrix is also kept square: a lookup is then one load without
  // branches, and the candidates w of one vertex v are consecutive (row v).
  static constexpr std::size_t kFullBytes = std::size_t(64) << 20;
  DenseGraph(SimplexId n, const float* lower) : n_(n), lower_(lower) {
    if (std::size_t(n) * std::size_t(n) * sizeof(float) > kFullBytes)
      return;
    full_.assign(std::size_t(n) * std::size_t(n), 0.0f);
    for (SimplexId a = 1; a < n; ++a) {
      for (SimplexId b = 0; b < a; ++b) {
        const float d = lower[a * (a - 1) / 2 + b];
        full_[std::size_t(a * n + b)] = d;
        full_[std::size_t(b * n + a)] = d;
      }
    }
  }
  // Callers pass the candidate first: row b, consecutive over candidates a.
  float distance(SimplexId a, SimplexId b) const {
    if (!full_.empty())
      return full_[std::size_t(b * n_ + a)];
    if (a == b)
      return 0;
    if (a < b)
      std::swap(a, b);
    return lower_[a * (a - 1) / 2 + b];
  }
  // The distances of candidates (asked for in decreasing order) to a simplex's vertices.
  class Rows {
  public:
    Rows(const DenseGraph& graph, const SimplexId* v) : graph_(graph), v_(v) {}
    float operator()(int j, SimplexId c) { return graph_.distance(c, v_[j]); }

  private:
    const DenseGraph& graph_;
    const SimplexId* v_;
  };
  Rows rows(const SimplexId* v, int) const { return Rows(*this, v); }

  // f(w) for the candidate new vertices w > floor, decreasing; f returns false to stop.
  template <class F>
  void candidates(const SimplexId*, int, SimplexId floor, F&& f) const {
    for (SimplexId w = n_ - 1; w > floor; --w) {
      if (!f(w, -1, 0.0f))
        return;
    }
  }

  // Up to kNearBytes, each vertex's others sorted by distance (built on first use): the
  // candidates within a bound of a simplex are a prefix of one of its vertices' lists.
  static constexpr std::size_t kNearBytes = std::size_t(64) << 20;
  bool hasNear() const {
    return std::size_t(n_) * std::size_t(n_) * sizeof(Near) <= kNearBytes;
  }
  // f(w, j, d) for every vertex w (maybe in the simplex) at distance d <= bound of v_j,
  // in no particular order; the others' distances are the caller's to check.
  template <class F>
  void candidatesWithin(const SimplexId* v, int count, float bound, F&& f) const {
    std::call_once(nearBuilt_, [this] { buildNear(); });
    const std::size_t row = std::size_t(n_ - 1);
    const Near* best = nullptr;
    std::size_t size = 0;
    int jbest = 0;
    for (int j = 0; j < count; ++j) {
      const Near* list = near_.data() + std::size_t(v[j]) * row;
      const std::size_t k =
          std::size_t(std::upper_bound(list, list + row, bound,
                                       [](float b, const Near& x) { return b < x.d; }) -
                      list);
      if (best == nullptr || k < size) {
        best = list;
        size = k;
        jbest = j;
      }
    }
    for (std::size_t k = 0; k < size; ++k)
      f(SimplexId(best[k].w), jbest, best[k].d);
  }

private:
  struct Near {
    float d;
    std::uint32_t w;
  };
  void buildNear() const {
    const std::size_t row = std::size_t(n_ - 1);
    near_.resize(std::size_t(n_) * row);
    // Isolated: this thread, inside call_once, must not pick up another column's task
    // while it waits (that one could call call_once again).
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(SimplexId(0), n_, [&](SimplexId v) {
        Near* list = near_.data() + std::size_t(v) * row;
        std::size_t k = 0;
        for (SimplexId w = 0; w < n_; ++w) {
          if (w != v)
            list[k++] = Near{distance(w, v), std::uint32_t(w)};
        }
        std::sort(list, list + row,
                  [](const Near& a, const Near& b) { return a.d < b.d; });
      });
    });
  }

  SimplexId n_;
  const float* lower_;
  std::vector<float> full_;
  mutable std::once_flag nearBuilt_;
  mutable std::vector<Near> near_;
};

// The edges under the threshold as sorted adjacency lists: candidates are the
// neighbours of the simplex's vertex of smallest degree.
class SparseGraph {
public:
  using Neighbor = std::pair<SimplexId, float>;
  explicit SparseGraph(std::vector<std::vector<Neighbor>> adjacency)
      : adjacency_(std::move(adjacency)) {}
  float distance(SimplexId a, SimplexId b) const {
    if (a == b)
      return 0;
    const auto* list = &adjacency_[a];
    if (adjacency_[b].size() < list->size()) {
      list = &adjacency_[b];
      b = a;
    }
    const auto it =
        std::lower_bound(list->begin(), list->end(), b,
                         [](const Neighbor& x, SimplexId key) { return x.first < key; });
    return it != list->end() && it->first == b ? it->second : kInfinity;
  }
  // The distances of candidates (asked for in decreasing order) to a simplex's vertices:
  // one cursor per vertex walks its list down, instead of a binary search per lookup.
  class Rows {
  public:
    Rows(const SparseGraph& graph, const SimplexId* v, int count) {
      for (int j = 0; j < count; ++j) {
        const auto& list = graph.adjacency_[std::size_t(v[j])];
        begin_[j] = list.data();
        end_[j] = list.data() + list.size();
      }
    }
    float operator()(int j, SimplexId c) {
      const Neighbor* b = begin_[j];
      const Neighbor* e = end_[j];
      while (e != b && (e - 1)->first > c)
        --e;
      end_[j] = e;
      return e != b && (e - 1)->first == c ? (e - 1)->second : kInfinity;
    }

  private:
    std::array<const Neighbor*, kMaxVertices> begin_, end_; // NOLINT: first count set
  };
  Rows rows(const SimplexId* v, int count) const { return Rows(*this, v, count); }

  // No lists by distance: a sparse input's long columns are mostly essential classes
  // (its threshold is below the enclosing radius), which a bound would not shorten.
  bool hasNear() const { return false; }
  template <class F> void candidatesWithin(const SimplexId*, int, float, F&&) const {}

  template <class F>
  void candidates(const SimplexId* vertices, int count, SimplexId floor, F&& f) const {
    int jmin = 0;
    for (int j = 1; j < count; ++j) {
      if (adjacency_[vertices[j]].size() < adjacency_[vertices[jmin]].size())
        jmin = j;
    }
    const std::vector<Neighbor>& smallest = adjacency_[vertices[jmin]];
    for (auto it = smallest.rbegin(); it != smallest.rend() && it->first > floor; ++it) {
      if (!f(it->first, jmin, it->second))
        return;
    }
  }

private:
  std::vector<std::vector<Neighbor>> adjacency_;
};

} // namespace topogpu::rips_persistence::detail
