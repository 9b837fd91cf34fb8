#include "ElderRounds.h"

#include "base/BlockSelection.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <string>

namespace topogpu::morse_smale_complex {

namespace detail {

void checkElderGraph(const ElderGraph& graph) {
  if (graph.edges >= (SimplexId(1) << elder::kEdgeBits))
    throw Error("persistence pairs: " + std::to_string(graph.edges) +
                " saddles are more than the pairing's rounds can number (2^40)");
  const SimplexId bad = tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, 2 * graph.edges), SimplexId(-1),
      [&](const tbb::blocked_range<SimplexId>& r, SimplexId found) {
        for (SimplexId i = r.begin(); i < r.end() && found < 0; ++i)
          if (graph.ends[i] < 0 || graph.ends[i] >= graph.nodes)
            found = i;
        return found;
      },
      [](SimplexId a, SimplexId b) { return a >= 0 ? a : b; });
  if (bad >= 0)
    throw Error("persistence pairs: saddle " + std::to_string(bad / 2) +
                " reaches extremum " + std::to_string(graph.ends[bad]) +
                ", not one of the " + std::to_string(graph.nodes) + " extrema");
}

} // namespace detail

namespace {

// The edges of live for which keep holds, in order.
template <typename Keep>
void compact(std::vector<SimplexId>& live, std::vector<SimplexId>& scratch, Keep&& keep) {
  const BlockSelection<SimplexId> selection(
      SimplexId(live.size()), 16384, [&](SimplexId first, SimplexId last) {
        return SimplexId(std::count_if(live.begin() + first, live.begin() + last, keep));
      });
  scratch.resize(std::size_t(selection.total()));
  selection.write([&](SimplexId first, SimplexId last, SimplexId at) {
    std::copy_if(live.begin() + first, live.begin() + last, scratch.begin() + at, keep);
  });
  live.swap(scratch);
}

template <typename Body> void forEach(SimplexId n, Body&& body) {
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n, 4096),
                    [&](const tbb::blocked_range<SimplexId>& r) {
                      for (SimplexId i = r.begin(); i < r.end(); ++i)
                        body(i);
                    });
}

} // namespace

void elderPairs(const ElderGraph& graph, const ElderSchedule& schedule,
                std::vector<SimplexId>& younger, ElderStats& stats) {
  stats = ElderStats();
  detail::checkElderGraph(graph);
  younger.assign(std::size_t(graph.edges), -1);
  std::vector<SimplexId> parent(std::size_t(graph.nodes));
  forEach(graph.nodes, [&](SimplexId x) { parent[std::size_t(x)] = x; });
  const SimplexId* ends = graph.ends;
  const int maxRounds = std::min(schedule.maxRounds, elder::kMaxRounds);
  if (maxRounds <= 0 || graph.edges <= schedule.serialEdges) {
    // The sweep alone, over every edge: no live list, no round state.
    stats.serialEdges = graph.edges;
    if (graph.skip != nullptr)
      stats.serialEdges -= SimplexId(std::count_if(graph.skip, graph.skip + graph.edges,
                                                   [](char k) { return k != 0; }));
    detail::finishElderSweep(
        parent.data(), graph.edges,
        [&](SimplexId e) {
          return graph.skip != nullptr && graph.skip[e] != 0
                     ? detail::LiveEdge{e, 0, 0}
                     : detail::LiveEdge{e, ends[2 * e], ends[2 * e + 1]};
        },
        younger.data());
    return;
  }
  std::vector<SimplexId> live(std::size_t(graph.edges)), scratch;
  forEach(graph.edges, [&](SimplexId e) { live[std::size_t(e)] = e; });
  if (graph.skip != nullptr)
    compact(live, scratch, [&](SimplexId e) { return graph.skip[e] == 0; });
  std::vector<SimplexId> roots(std::size_t(2 * graph.edges)),
      earliest(std::size_t(graph.nodes), elder::kNoEdge);
  std::vector<char> done(std::size_t(graph.edges), 0);
  while (SimplexId(live.size()) > schedule.serialEdges && stats.rounds < maxRounds) {
    const int round = ++stats.rounds;
    const auto n = SimplexId(live.size());
    forEach(n, [&](SimplexId i) {
      elder::propose(round, live[std::size_t(i)], ends, parent.data(), roots.data(),
                     earliest.data());
    });
    forEach(n, [&](SimplexId i) {
      const SimplexId e = live[std::size_t(i)];
      done[std::size_t(e)] = elder::settle(round, e, roots.data(), earliest.data(),
                                           parent.data(), younger.data());
    });
    compact(live, scratch, [&](SimplexId e) { return done[std::size_t(e)] == 0; });
  }
  stats.serialEdges = SimplexId(live.size());
  detail::finishElderSweep(
      parent.data(), stats.serialEdges,
      [&](SimplexId i) {
        const SimplexId e = live[std::size_t(i)];
        return detail::LiveEdge{e, ends[2 * e], ends[2 * e + 1]};
      },
      younger.data());
}

} // namespace topogpu::morse_smale_complex
