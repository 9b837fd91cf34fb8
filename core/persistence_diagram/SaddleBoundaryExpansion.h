// The (1-saddle, 2-saddle) pairs of a simplicial complex by the Discrete Morse
// Sandwich's boundary expansion (Guillou, Vidal and Tierny 2023, TTK's
// eliminateBoundariesSandwich), without the saddle connections: each 2-saddle left after
// the other pairings (clearing), in filtration order, expands its boundary over Z/2
// until the youngest edge is a critical edge no earlier 2-saddle owns:
//  - the youngest edge paired with a triangle by the gradient: that triangle's boundary
//    is added (the V-path step: the edge leaves the chain);
//  - a critical edge owned by an earlier 2-saddle: that saddle's final boundary is added
//    (the reduction's column addition);
//  - otherwise the edge is the 2-saddle's partner.
// This is the column reduction of the Morse boundary (DiscreteMorseSandwich.cpp) read off
// the gradient's own cells: it touches only the part of a wall that the reduction needs,
// where the saddle connections walk every wall whole.
// In parallel: the steps before a 2-saddle's chain first stops at a critical edge read
// the gradient only, so every 2-saddle of a batch takes them at once; the rest (owners,
// pairs) follows in filtration order, from where each chain stopped. The pairs are the
// serial expansion's.
#pragma once

#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/LocalIndex.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/persistence_diagram/DiscreteMorseSandwich.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::persistence_diagram {

namespace detail {

// A chain of edges over Z/2: a parity per edge met (a local index: memory follows the
// chain, not the complex) and a max-heap of its edges by filtration key whose entries
// for edges toggled out are dropped when they surface.
class EdgeChain {
public:
  using Key = std::array<SimplexId, 4>;

  template <typename KeyOf> void toggle(SimplexId e, KeyOf&& keyOf) {
    bool inserted = false;
    const SimplexId slot = index_.insert(e, inserted);
    if (inserted)
      parity_.push_back(0);
    parity_[std::size_t(slot)] ^= 1;
    if (parity_[std::size_t(slot)]) {
      ++size_;
      heap_.push_back({keyOf(e), e, slot});
      std::push_heap(heap_.begin(), heap_.end());
    } else {
      --size_;
    }
  }
  bool empty() const { return size_ == 0; }
  // The youngest edge (the chain must not be empty).
  SimplexId youngest() {
    while (!parity_[std::size_t(heap_.front().slot)]) {
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.pop_back();
    }
    return heap_.front().edge;
  }
  // Empties the chain, appending its edges to kept when given.
  void drain(std::vector<SimplexId>* kept) {
    if (kept)
      for (const Entry& e : heap_)
        if (parity_[std::size_t(e.slot)]) {
          parity_[std::size_t(e.slot)] = 0;
          kept->push_back(e.edge);
        }
    heap_.clear();
    parity_.clear();
    index_.clear();
    size_ = 0;
  }

private:
  struct Entry {
    Key key;
    SimplexId edge, slot;
    bool operator<(const Entry& o) const { return key < o.key; }
  };
  morse_smale_complex::LocalIndex index_;
  std::vector<char> parity_;
  std::vector<Entry> heap_;
  SimplexId size_ = 0;
};

} // namespace detail

// saddles2: the critical triangles by filtration position; saddle1Position: the position
// of each critical edge, in the gradient's ascending list. Appends the type-1 pairs to
// result and marks their cells paired.
template <typename Triangulation>
void expandSaddleBoundaries(const Triangulation& tri,
                            const discrete_gradient::simplicial::Output& g,
                            const SimplexId* rank, const std::vector<SimplexId>& saddles2,
                            const std::vector<SimplexId>& saddle1Position,
                            const Monitor& monitor, SandwichResult& result) {
  namespace sg = discrete_gradient::simplicial;
  const std::vector<SimplexId>& criticalEdges = g.criticalCells[1];
  auto positionOf = [&](SimplexId e) {
    const auto it = std::lower_bound(criticalEdges.begin(), criticalEdges.end(), e);
    return it != criticalEdges.end() && *it == e
               ? saddle1Position[std::size_t(it - criticalEdges.begin())]
               : SimplexId(-1);
  };
  auto keyOf = [&](SimplexId e) {
    return morse_smale_complex::simplicial::detail::keyOf(tri, 1, e, rank);
  };
  auto toggleTriangle = [&](detail::EdgeChain& chain, SimplexId t) {
    for (int k = 0; k < 3; ++k)
      chain.toggle(tri.getTriangleEdge(t, k), keyOf);
  };
  // The gradient's steps: until the youngest edge is critical (or the chain is empty).
  auto stepAlongGradient = [&](detail::EdgeChain& chain) {
    while (!chain.empty()) {
      const SimplexId t = sg::getPairedCell(tri, g, 1, chain.youngest(), false);
      if (t < 0)
        return;
      toggleTriangle(chain, t);
    }
  };
  // Per 1-saddle position: the 2-saddle position owning it; per 2-saddle: its boundary.
  std::vector<SimplexId> owner(criticalEdges.size(), -1);
  std::vector<std::vector<SimplexId>> stored(saddles2.size());
  std::vector<SimplexId> left; // the 2-saddles not cleared
  for (std::size_t j = 0; j < saddles2.size(); ++j)
    if (!result.paired[2][j])
      left.push_back(SimplexId(j));
  tbb::enumerable_thread_specific<detail::EdgeChain> chains;
  detail::EdgeChain chain;
  constexpr std::size_t kBatch = 1 << 14; // bounds the chains kept between the phases
  // Per 2-saddle of a batch: its chain where the gradient's steps stopped, and the
  // youngest edge there (-1: the chain vanished).
  std::vector<std::vector<SimplexId>> started;
  std::vector<SimplexId> stopped;
  auto pair = [&](std::size_t j, SimplexId p) {
    owner[std::size_t(p)] = SimplexId(j);
    result.pairs.push_back({1, p, SimplexId(j)});
    result.paired[1][std::size_t(p)] = 1;
    result.paired[2][j] = 1;
  };
  auto freeSaddle = [&](std::size_t j, SimplexId tau) {
    const SimplexId p = positionOf(tau);
    if (p < 0)
      throw Error("internal error: the boundary expansion of 2-saddle " +
                  std::to_string(saddles2[j]) + " stopped at edge " +
                  std::to_string(tau) + ", which is not a 1-saddle");
    if (owner[std::size_t(p)] < 0 && result.paired[1][std::size_t(p)])
      throw Error("internal error: the boundary expansion of 2-saddle " +
                  std::to_string(saddles2[j]) + " reached 1-saddle " +
                  std::to_string(tau) + ", paired with a minimum");
    return p;
  };
  for (std::size_t begin = 0; begin < left.size(); begin += kBatch) {
    monitor.checkAbort();
    const std::size_t end = std::min(left.size(), begin + kBatch);
    started.assign(end - begin, {});
    stopped.assign(end - begin, -1);
    tbb::parallel_for(begin, end, [&](std::size_t i) {
      detail::EdgeChain& local = chains.local();
      toggleTriangle(local, saddles2[std::size_t(left[i])]);
      stepAlongGradient(local);
      if (!local.empty())
        stopped[i - begin] = local.youngest();
      local.drain(&started[i - begin]);
    });
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t j = std::size_t(left[i]);
      if (stopped[i - begin] < 0)
        continue; // a boundary that vanished: an essential 2-cycle
      // Mostly the edge where the chain stopped is free: the pair, with that chain.
      SimplexId p = freeSaddle(j, stopped[i - begin]);
      if (owner[std::size_t(p)] < 0) {
        stored[j].swap(started[i - begin]);
        pair(j, p);
        continue;
      }
      for (const SimplexId e : started[i - begin])
        chain.toggle(e, keyOf);
      std::vector<SimplexId>().swap(started[i - begin]);
      for (; !chain.empty(); stepAlongGradient(chain)) {
        p = freeSaddle(j, chain.youngest());
        if (owner[std::size_t(p)] >= 0) {
          for (const SimplexId e : stored[std::size_t(owner[std::size_t(p)])])
            chain.toggle(e, keyOf);
          continue;
        }
        chain.drain(&stored[j]);
        pair(j, p);
      }
      chain.drain(nullptr); // a boundary that vanished: an essential 2-cycle
    }
  }
}

} // namespace topogpu::persistence_diagram
