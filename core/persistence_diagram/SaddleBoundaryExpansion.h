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
// In parallel, as the lock-free reduction of Morozov and Nigmetov ("Towards lockfree
// persistent homology", 2020): every 2-saddle expands at once; an edge's owner is
// claimed by compare-and-swap, an earlier 2-saddle taking an edge from a later one,
// which then goes on from its published boundary. Each boundary only ever adds earlier
// ones, so the final owners are the unique pivots of the reduced boundary: the pairs
// are the serial expansion's.
#pragma once

#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/morse_smale_complex/LocalIndex.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/persistence_diagram/DiscreteMorseSandwich.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
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
  // Appends the chain's edges to kept, leaving the chain as it is.
  void collect(std::vector<SimplexId>& kept) {
    for (const Entry& e : heap_)
      if (parity_[std::size_t(e.slot)] == 1) {
        parity_[std::size_t(e.slot)] = 2; // an edge may have several heap entries
        kept.push_back(e.edge);
      }
    for (const Entry& e : heap_)
      parity_[std::size_t(e.slot)] &= 1;
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
  // Per 1-saddle position: the 2-saddle position owning it; per 2-saddle: its boundary
  // as last published (the snapshots live to the end: another thread may read one).
  std::vector<std::atomic<SimplexId>> owner(criticalEdges.size());
  std::vector<std::atomic<const std::vector<SimplexId>*>> stored(saddles2.size());
  tbb::parallel_for(std::size_t(0), owner.size(), [&](std::size_t p) {
    owner[p].store(-1, std::memory_order_relaxed);
  });
  tbb::parallel_for(std::size_t(0), stored.size(), [&](std::size_t j) {
    stored[j].store(nullptr, std::memory_order_relaxed);
  });
  using Snapshots = std::vector<std::unique_ptr<std::vector<SimplexId>>>;
  tbb::enumerable_thread_specific<Snapshots> snapshots;
  tbb::enumerable_thread_specific<detail::EdgeChain> chains;
  auto freeSaddle = [&](SimplexId j, SimplexId tau) {
    const SimplexId p = positionOf(tau);
    if (p < 0)
      throw Error("internal error: the boundary expansion of 2-saddle " +
                  std::to_string(saddles2[std::size_t(j)]) + " stopped at edge " +
                  std::to_string(tau) + ", which is not a 1-saddle");
    if (result.paired[1][std::size_t(p)])
      throw Error("internal error: the boundary expansion of 2-saddle " +
                  std::to_string(saddles2[std::size_t(j)]) + " reached 1-saddle " +
                  std::to_string(tau) + ", paired with a minimum");
    return p;
  };
  auto add = [&](detail::EdgeChain& chain, const std::vector<SimplexId>& edges) {
    for (const SimplexId e : edges)
      chain.toggle(e, keyOf);
  };
  // Reduces 2-saddle j's chain until it vanishes (an essential 2-cycle) or j owns its
  // youngest edge; returns the later 2-saddle it took that edge from, else -1.
  auto reduce = [&](SimplexId j, detail::EdgeChain& chain, Snapshots& own) {
    for (stepAlongGradient(chain); !chain.empty(); stepAlongGradient(chain)) {
      const SimplexId p = freeSaddle(j, chain.youngest());
      SimplexId o = owner[std::size_t(p)].load(std::memory_order_acquire);
      if (o >= 0 && o < j) {
        add(chain, *stored[std::size_t(o)].load(std::memory_order_acquire));
        continue;
      }
      own.push_back(std::make_unique<std::vector<SimplexId>>());
      chain.collect(*own.back());
      stored[std::size_t(j)].store(own.back().get(), std::memory_order_release);
      if (owner[std::size_t(p)].compare_exchange_strong(o, j,
                                                        std::memory_order_acq_rel)) {
        chain.drain(nullptr);
        return o;
      }
      // another 2-saddle claimed the edge meanwhile: look again
    }
    chain.drain(nullptr);
    return SimplexId(-1);
  };
  std::vector<SimplexId> left; // the 2-saddles not cleared
  for (std::size_t j = 0; j < saddles2.size(); ++j)
    if (!result.paired[2][j])
      left.push_back(SimplexId(j));
  // Batches in filtration order: earlier boundaries are mostly final when later ones
  // read them, and abort is checked between batches. The claims need no barrier, so
  // batches are large: each one waits for its longest expansion.
  constexpr std::size_t kBatch = 1 << 16;
  for (std::size_t begin = 0; begin < left.size(); begin += kBatch) {
    monitor.checkAbort();
    const std::size_t end = std::min(left.size(), begin + kBatch);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, end, 64),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        detail::EdgeChain& chain = chains.local();
                        Snapshots& own = snapshots.local();
                        for (std::size_t i = r.begin(); i < r.end(); ++i) {
                          toggleTriangle(chain, saddles2[std::size_t(left[i])]);
                          // a 2-saddle displaced goes on from its published boundary
                          for (SimplexId j = reduce(left[i], chain, own); j >= 0;
                               j = reduce(j, chain, own))
                            add(chain,
                                *stored[std::size_t(j)].load(std::memory_order_acquire));
                        }
                      });
  }
  // The pairs in 2-saddle order, as the serial expansion lists them.
  std::vector<SimplexId> pivot(saddles2.size(), -1);
  for (std::size_t p = 0; p < owner.size(); ++p) {
    const SimplexId j = owner[p].load(std::memory_order_relaxed);
    if (j >= 0)
      pivot[std::size_t(j)] = SimplexId(p);
  }
  for (const SimplexId j : left)
    if (pivot[std::size_t(j)] >= 0) {
      result.pairs.push_back({1, pivot[std::size_t(j)], j});
      result.paired[1][std::size_t(pivot[std::size_t(j)])] = 1;
      result.paired[2][std::size_t(j)] = 1;
    }
}

} // namespace topogpu::persistence_diagram
