// The extremum-saddle pairs of a Morse-Smale complex (the Discrete Morse Sandwich's types
// 0 and d-1, core/persistence_diagram) by the elder rule in parallel rounds, on all CPU
// cores (here) and on the GPU (cuda/morse_smale_complex/ElderRoundsGpu.cu, the same
// per-edge steps below; the persistence diagram's device pipeline runs them where it made
// the saddles' path ends).
//
// The input is an extremum graph: nodes (extrema) numbered from the oldest, edges
// (saddles) in the order the sweep meets them, each joining the two nodes its paths
// reach. The serial sweep is Kruskal's union-find: an edge joining two components kills
// the younger one's root. In a round, every component takes its earliest edge to another
// component, and merges along it into that component when the other's root is older;
// the edge kills its root. That is the sweep's kill: when the sweep meets the edge, the
// component's side of it is within the component (no earlier edge leaves it) and holds
// its root, and the other side holds a root at least as old as the other component's.
// Both hold for every component and each of its outgoing edges after a round too:
// components merge along chains of earliest edges that get earlier towards the oldest
// root, so a later edge leaving a member sees the whole chain joined. An edge whose ends
// share a component is one the sweep skips. The earliest remaining edge always merges,
// and rounds run while they pay: after a bounded number of them, the edges left finish
// in the serial sweep, which gives the same kills whatever rounds came before.
#pragma once

#include "base/Types.h"

#include <limits>
#include <vector>

namespace topogpu::morse_smale_complex {

struct ElderGraph {
  SimplexId nodes = 0;
  SimplexId edges = 0;
  const SimplexId* ends = nullptr; // 2 per edge: its two nodes
  // Optional, 1 per edge: edges the sweep does not visit (the 2D dual skips the
  // 1-saddles the first sweep paired).
  const char* skip = nullptr;
};

// How the rounds hand over to the serial sweep: after maxRounds rounds, or once fewer
// than serialEdges edges are left (the pairs do not depend on it).
struct ElderSchedule {
  int maxRounds = 48;
  SimplexId serialEdges = 4096;
};

struct ElderStats {
  int rounds = 0;
  SimplexId serialEdges = 0; // edges left to the serial sweep
};

// younger[e]: the node edge e kills (the younger root of the two components it joins),
// -1 when e joins a component to itself or is skipped. Throws Error for an end that is
// not a node.
void elderPairs(const ElderGraph& graph, const ElderSchedule& schedule,
                std::vector<SimplexId>& younger, ElderStats& stats);

namespace elder {

constexpr SimplexId kNoEdge = std::numeric_limits<SimplexId>::max();

TOPOGPU_HD void atomicMinimum(SimplexId* at, SimplexId value) {
#if defined(__CUDA_ARCH__)
  atomicMin(reinterpret_cast<long long*>(at), static_cast<long long>(value));
#else
  SimplexId seen = __atomic_load_n(at, __ATOMIC_RELAXED);
  while (value < seen &&
         !__atomic_compare_exchange_n(at, &seen, value, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
#endif
}

TOPOGPU_HD SimplexId load(const SimplexId* at) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const volatile SimplexId*>(at);
#else
  return __atomic_load_n(at, __ATOMIC_RELAXED);
#endif
}

TOPOGPU_HD void store(SimplexId* at, SimplexId value) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile SimplexId*>(at) = value;
#else
  __atomic_store_n(at, value, __ATOMIC_RELAXED);
#endif
}

// The maxima's sweep is the elder rule on the dual graph, walked from the top: its edge k
// is saddle saddles - 1 - k, and its node for the maximum at position p is maxima - p, so
// that node 0 is "outside" (position maxima), older than every maximum. Both maps are
// their own inverses.
TOPOGPU_HD SimplexId dualEdge(SimplexId k, SimplexId saddles) {
  return saddles - 1 - k;
}
TOPOGPU_HD SimplexId dualNode(SimplexId position, SimplexId maxima) {
  return maxima - position;
}

// A proposal: edge e in round r (from 1), so that a smaller key is a later round or an
// earlier edge, and no pass has to clear the previous round's.
constexpr int kEdgeBits = 40;
constexpr int kMaxRounds = (1 << 22) - 1;
TOPOGPU_HD SimplexId proposalKey(int round, SimplexId e) {
  return (SimplexId(kMaxRounds - round) << kEdgeBits) | e;
}

// The root of x, halving the path on the way (a node only ever moves up towards its
// root, so concurrent walks see ancestors).
TOPOGPU_HD SimplexId rootOf(SimplexId x, SimplexId* parent) {
  for (;;) {
    const SimplexId up = load(parent + x), next = load(parent + up);
    if (next == up)
      return up;
    store(parent + x, next);
    x = next;
  }
}

// Step 1, per live edge e: the roots of its ends into roots[2e..2e+1], and e proposed
// to both when they differ.
TOPOGPU_HD void propose(int round, SimplexId e, const SimplexId* ends, SimplexId* parent,
                        SimplexId* roots, SimplexId* earliest) {
  const SimplexId a = rootOf(ends[2 * e], parent), b = rootOf(ends[2 * e + 1], parent);
  roots[2 * e] = a;
  roots[2 * e + 1] = b;
  if (a != b) {
    atomicMinimum(earliest + a, proposalKey(round, e));
    atomicMinimum(earliest + b, proposalKey(round, e));
  }
}

// Step 2, per live edge e: whether it is done. A component whose earliest edge is e
// merges along it when the root on the other side is older, and e kills its root; a
// component takes one merge per round, so no two edges link the same root.
TOPOGPU_HD bool settle(int round, SimplexId e, const SimplexId* roots,
                       const SimplexId* earliest, SimplexId* parent, SimplexId* younger) {
  const SimplexId a = roots[2 * e], b = roots[2 * e + 1];
  if (a == b)
    return true;
  const SimplexId young = a > b ? a : b, old = a > b ? b : a;
  if (load(earliest + young) != proposalKey(round, e))
    return false;
  store(parent + young, old);
  younger[e] = young;
  return true;
}

} // namespace elder

namespace detail {

// A live edge for the serial sweep: its id and its two ends (equal ends join nothing, as
// for a skipped edge).
struct LiveEdge {
  SimplexId id = 0;
  SimplexId a = 0;
  SimplexId b = 0;
};

// The serial sweep over the count live edges, in order, from the rounds' forest parent:
// edge(i) gives the i-th. Kruskal's union-find, the younger root always joining the
// older.
template <typename Edge>
void finishElderSweep(SimplexId* parent, SimplexId count, Edge&& edge,
                      SimplexId* younger) {
  auto find = [&](SimplexId x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  for (SimplexId i = 0; i < count; ++i) {
    const LiveEdge e = edge(i);
    const SimplexId a = find(e.a), b = find(e.b);
    if (a == b)
      continue;
    parent[a > b ? a : b] = a > b ? b : a;
    younger[e.id] = a > b ? a : b;
  }
}

// Throws Error when an end of graph is not a node.
void checkElderGraph(const ElderGraph& graph);

} // namespace detail

} // namespace topogpu::morse_smale_complex
