// The graphs the CPU engine walks, adapters over the device's views (RipsDeviceLogic.h,
// which says what a graph gives) that keep the CPU's speed-ups: the complete graph of a
// dense distance matrix with a square copy for one-load lookups and per-vertex lists by
// distance for bounded columns, and the adjacency lists of a sparse one with a cursor
// per list for the candidates' distances.
#pragma once

#include "RipsDeviceLogic.h"
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

// The complete graph of a dense matrix (the device's view, device::DenseDistances, with
// the CPU's speed-ups): every vertex is a cofacet candidate.
class DenseGraph {
public:
  // Up to kFullBytes the matrix is also kept square: a lookup is then one load without
  // branches, and the candidates w of one vertex v are consecutive (row v).
  static constexpr std::size_t kFullBytes = std::size_t(64) << 20;
  DenseGraph(SimplexId n, const float* lower) : matrix_{n, lower} {
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
  SimplexId n() const { return matrix_.n; }
  // Callers pass the candidate first: row b, consecutive over candidates a.
  float distance(SimplexId a, SimplexId b) const {
    if (!full_.empty())
      return full_[std::size_t(b * matrix_.n + a)];
    return matrix_.distance(a, b);
  }
  // f(w, -1, 0) for the candidate new vertices w > floor, decreasing; f returns false
  // to stop.
  template <class F>
  void forEachCandidate(const SimplexId* v, int count, SimplexId floor, F&& f) const {
    matrix_.forEachCandidate(v, count, floor, f);
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

  // Up to kNearBytes, each vertex's others sorted by distance (built on first use): the
  // candidates within a bound of a simplex are a prefix of one of its vertices' lists.
  static constexpr std::size_t kNearBytes = std::size_t(64) << 20;
  bool hasNear() const {
    return std::size_t(n()) * std::size_t(n()) * sizeof(Near) <= kNearBytes;
  }
  // f(w, j, d) for every vertex w (maybe in the simplex) at distance d <= bound of v_j,
  // in no particular order; the others' distances are the caller's to check.
  template <class F>
  void candidatesWithin(const SimplexId* v, int count, float bound, F&& f) const {
    std::call_once(nearBuilt_, [this] { buildNear(); });
    const std::size_t row = std::size_t(n() - 1);
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
    const std::size_t row = std::size_t(n() - 1);
    near_.resize(std::size_t(n()) * row);
    // Isolated: this thread, inside call_once, must not pick up another column's task
    // while it waits (that one could call call_once again).
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(SimplexId(0), n(), [&](SimplexId v) {
        Near* list = near_.data() + std::size_t(v) * row;
        std::size_t k = 0;
        for (SimplexId w = 0; w < n(); ++w) {
          if (w != v)
            list[k++] = Near{distance(w, v), std::uint32_t(w)};
        }
        std::sort(list, list + row,
                  [](const Near& a, const Near& b) { return a.d < b.d; });
      });
    });
  }

  device::DenseDistances matrix_;
  std::vector<float> full_;
  mutable std::once_flag nearBuilt_;
  mutable std::vector<Near> near_;
};

// The edges under the threshold as adjacency lists sorted by neighbour (the device's
// CSR view, device::SparseDistances, over lists this graph owns): candidates are the
// neighbours of the simplex's vertex of smallest degree.
class SparseGraph {
public:
  SparseGraph(SimplexId n, std::vector<SimplexId> offsets,
              std::vector<SimplexId> neighbors, std::vector<float> distances)
      : offsets_(std::move(offsets)), neighbors_(std::move(neighbors)),
        distances_(std::move(distances)), lists_{n, offsets_.data(), neighbors_.data(),
                                                 distances_.data()} {}
  SparseGraph(const SparseGraph&) = delete;
  SparseGraph& operator=(const SparseGraph&) = delete;
  float distance(SimplexId a, SimplexId b) const { return lists_.distance(a, b); }
  // f(w, j, d) for the neighbours w > floor (decreasing) of the simplex's vertex v_j of
  // smallest degree, at distance d; f returns false to stop.
  template <class F>
  void forEachCandidate(const SimplexId* v, int count, SimplexId floor, F&& f) const {
    lists_.forEachCandidate(v, count, floor, f);
  }
  // The distances of candidates (asked for in decreasing order) to a simplex's vertices:
  // one cursor per vertex walks its list down, instead of a binary search per lookup.
  class Rows {
  public:
    Rows(const SparseGraph& graph, const SimplexId* v, int count)
        : neighbors_(graph.neighbors_.data()), distances_(graph.distances_.data()) {
      for (int j = 0; j < count; ++j) {
        begin_[j] = neighbors_ + graph.offsets_[std::size_t(v[j])];
        end_[j] = neighbors_ + graph.offsets_[std::size_t(v[j]) + 1];
      }
    }
    float operator()(int j, SimplexId c) {
      const SimplexId* b = begin_[j];
      const SimplexId* e = end_[j];
      while (e != b && *(e - 1) > c)
        --e;
      end_[j] = e;
      return e != b && *(e - 1) == c ? distances_[e - 1 - neighbors_] : kInfinity;
    }

  private:
    const SimplexId* neighbors_;
    const float* distances_;
    std::array<const SimplexId*, kMaxVertices> begin_, end_; // NOLINT: first count set
  };
  Rows rows(const SimplexId* v, int count) const { return Rows(*this, v, count); }

  // No lists by distance: a sparse input's long columns are mostly essential classes
  // (its threshold is below the enclosing radius), which a bound would not shorten.
  bool hasNear() const { return false; }
  template <class F> void candidatesWithin(const SimplexId*, int, float, F&&) const {}

private:
  std::vector<SimplexId> offsets_, neighbors_;
  std::vector<float> distances_;
  device::SparseDistances lists_;
};

} // namespace topogpu::rips_persistence::detail
