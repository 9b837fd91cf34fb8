// Roots of the gradient's V-path forests by pointer jumping, on the CPU: the grid's
// cubical complex (core/morse_smale_complex/MorseSmaleComplex.cpp), the simplicial
// complex's segmentations (SimplicialSeparatrices.h) and its Morse-Smale complex
// (core/morse_smale_complex/SimplicialMorseSmaleComplex.h). V-paths of extrema never
// split, so each forest is a tree per extremum and every element finds its root in
// log2(longest path) parallel rounds on the GPU (Shivashankar and Natarajan: the
// jumpKernel in cuda/morse_smale_complex); the CPU twin below compresses paths instead.
#pragma once

#include "base/Types.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <vector>

namespace topogpu::discrete_gradient {

// An element of next whose successor no walk has read yet (walkToRoots).
constexpr SimplexId kUnwalked = std::numeric_limits<SimplexId>::max();

namespace detail {

// Walks the path from startOf(i) for each i < m and writes its end into every element
// it passed; an element holding kUnwalked gets successor(element) first.
template <typename StartOf, typename Successor>
void compressPaths(std::vector<SimplexId>& next, SimplexId m, StartOf&& startOf,
                   Successor&& successor, const Monitor& monitor) {
  const SimplexId n = SimplexId(next.size());
  SimplexId* const step = next.data();
  std::atomic<bool> cycle{false};
  const SimplexId blocks = std::max<SimplexId>(1, std::min<SimplexId>(64, m / 65536));
  for (SimplexId b = 0; b < blocks && !cycle; ++b) {
    tbb::parallel_for(tbb::blocked_range<SimplexId>(m * b / blocks, m * (b + 1) / blocks),
                      [&](const tbb::blocked_range<SimplexId>& r) {
                        std::vector<SimplexId> path;
                        for (SimplexId i = r.begin(); i < r.end(); ++i) {
                          path.clear();
                          SimplexId at = startOf(i), end = at;
                          for (;;) {
                            SimplexId s = __atomic_load_n(step + at, __ATOMIC_RELAXED);
                            if (s == kUnwalked) {
                              s = successor(at);
                              __atomic_store_n(step + at, s, __ATOMIC_RELAXED);
                            }
                            if (s < 0 || s == at) {
                              end = s < 0 ? s : at;
                              break;
                            }
                            if (SimplexId(path.size()) > n) {
                              cycle = true;
                              return;
                            }
                            path.push_back(at);
                            at = s;
                          }
                          for (const SimplexId q : path)
                            __atomic_store_n(step + q, end, __ATOMIC_RELAXED);
                        }
                      });
    monitor.checkAbort();
  }
  if (cycle)
    throw Error("internal error: a gradient forest has a cycle");
}

} // namespace detail

// next[i]: the successor of i on its path (next[i] == i at a root; a negative value is a
// terminal, such as an exit through the boundary, kept as is). On return next[i] is the
// root or terminal i's path ends at. On the CPU each element follows its path and writes
// the end into every element it passed (path compression in place), so a later walk
// through them stops after one step: O(n) work in all, where rounds of pointer jumping
// (the GPU's) read every element log2(longest path) times, at random, and need a second
// array. Concurrent walks only ever replace a successor by a later element of the same
// path, so any interleaving gives the same ends. A cycle (which a gradient cannot have)
// is an Error rather than a hang. Abort is checked between blocks.
inline void jumpToRoots(std::vector<SimplexId>& next,
                        const Monitor& monitor = Monitor()) {
  detail::compressPaths(
      next, SimplexId(next.size()), [](SimplexId i) { return i; },
      [](SimplexId i) { return i; }, monitor); // every successor is known
}

// jumpToRoots for the paths from starts only: an element no walk has passed holds
// kUnwalked, and a walk reads its successor (successor(i)) when it passes it; on return
// every element of those paths holds its end, the others kUnwalked. The work follows
// the paths walked, not the forest (the persistence pairs need the ends of the saddles'
// paths only). Concurrent walks store either a successor or an end, both on the path.
template <typename Successor>
void walkToRoots(std::vector<SimplexId>& next, const std::vector<SimplexId>& starts,
                 Successor&& successor, const Monitor& monitor = Monitor()) {
  detail::compressPaths(
      next, SimplexId(starts.size()), [&](SimplexId i) { return starts[std::size_t(i)]; },
      successor, monitor);
}

} // namespace topogpu::discrete_gradient
