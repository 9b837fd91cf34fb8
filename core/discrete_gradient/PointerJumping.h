// Roots of the gradient's V-path forests by pointer jumping, on the CPU: the grid's
// cubical complex (core/morse_smale_complex/MorseSmaleComplex.cpp), the simplicial
// complex's segmentations (SimplicialSeparatrices.h) and its Morse-Smale complex
// (core/morse_smale_complex/SimplicialMorseSmaleComplex.h). V-paths of extrema never
// split, so each forest is a tree per extremum and every element finds its root in
// log2(longest path) parallel rounds (Shivashankar and Natarajan), not a walk each.
// The GPU's twin is the jumpKernel in cuda/morse_smale_complex.
#pragma once

#include "base/Types.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <vector>

namespace topogpu::discrete_gradient {

// next[i]: the successor of i on its path (next[i] == i at a root; a negative value is a
// terminal, such as an exit through the boundary, kept as is). On return next[i] is the
// root or terminal i's path ends at. Each round replaces next[i] by next[next[i]], so
// paths halve and a forest of n elements settles within log2(n) + 2 rounds; a cycle
// (which a gradient cannot have) may never settle, so past those rounds it is an Error
// rather than a hang. Abort is checked between rounds.
inline void jumpToRoots(std::vector<SimplexId>& next,
                        const Monitor& monitor = Monitor()) {
  const SimplexId n = SimplexId(next.size());
  std::vector<SimplexId> jump(next.size());
  for (SimplexId reach = 1; reach < 2 * n + 2; reach *= 2) {
    std::atomic<bool> changed{false};
    tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n),
                      [&](const tbb::blocked_range<SimplexId>& r) {
                        bool local = false;
                        for (SimplexId i = r.begin(); i < r.end(); ++i) {
                          const SimplexId p = next[i];
                          const SimplexId q = p >= 0 ? next[p] : p;
                          jump[i] = q;
                          local = local || q != p;
                        }
                        if (local)
                          changed.store(true, std::memory_order_relaxed);
                      });
    next.swap(jump);
    monitor.checkAbort();
    if (!changed)
      return;
  }
  throw Error("internal error: a gradient forest has a cycle");
}

} // namespace topogpu::discrete_gradient
