#include "ElderRounds.h"

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

void finishElderSweep(std::vector<SimplexId>& parent, const std::vector<SimplexId>& live,
                      const std::vector<SimplexId>& liveEnds,
                      std::vector<SimplexId>& younger) {
  auto find = [&](SimplexId x) {
    while (parent[std::size_t(x)] != x) {
      parent[std::size_t(x)] = parent[std::size_t(parent[std::size_t(x)])];
      x = parent[std::size_t(x)];
    }
    return x;
  };
  for (std::size_t i = 0; i < live.size(); ++i) {
    const SimplexId a = find(liveEnds[2 * i]), b = find(liveEnds[2 * i + 1]);
    if (a == b)
      continue;
    parent[std::size_t(std::max(a, b))] = std::min(a, b);
    younger[std::size_t(live[i])] = std::max(a, b);
  }
}

} // namespace detail

namespace {

// The edges of live for which keep holds, in order, by blocks counted in parallel.
template <typename Keep>
void compact(std::vector<SimplexId>& live, std::vector<SimplexId>& scratch, Keep&& keep) {
  const auto n = SimplexId(live.size());
  const SimplexId blocks = std::max<SimplexId>(1, std::min<SimplexId>(256, n / 16384));
  std::vector<SimplexId> offsets(std::size_t(blocks + 1), 0);
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    SimplexId count = 0;
    for (SimplexId i = n * b / blocks; i < n * (b + 1) / blocks; ++i)
      count += keep(live[std::size_t(i)]) ? 1 : 0;
    offsets[std::size_t(b + 1)] = count;
  });
  for (SimplexId b = 0; b < blocks; ++b)
    offsets[std::size_t(b + 1)] += offsets[std::size_t(b)];
  scratch.resize(std::size_t(offsets.back()));
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    SimplexId* out = scratch.data() + offsets[std::size_t(b)];
    for (SimplexId i = n * b / blocks; i < n * (b + 1) / blocks; ++i)
      if (keep(live[std::size_t(i)]))
        *out++ = live[std::size_t(i)];
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
  std::vector<SimplexId> parent(std::size_t(graph.nodes)), live(std::size_t(graph.edges)),
      scratch;
  forEach(graph.nodes, [&](SimplexId x) { parent[std::size_t(x)] = x; });
  forEach(graph.edges, [&](SimplexId e) { live[std::size_t(e)] = e; });
  if (graph.skip != nullptr)
    compact(live, scratch, [&](SimplexId e) { return graph.skip[e] == 0; });
  std::vector<SimplexId> roots(std::size_t(2 * graph.edges)),
      earliest(std::size_t(graph.nodes), elder::kNoEdge);
  std::vector<char> done(std::size_t(graph.edges), 0);
  const int maxRounds = std::min(schedule.maxRounds, elder::kMaxRounds);
  while (SimplexId(live.size()) > schedule.serialEdges && stats.rounds < maxRounds) {
    const int round = ++stats.rounds;
    const auto n = SimplexId(live.size());
    forEach(n, [&](SimplexId i) {
      elder::propose(round, live[std::size_t(i)], graph.ends, parent.data(), roots.data(),
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
  std::vector<SimplexId> liveEnds(2 * live.size());
  forEach(SimplexId(live.size()), [&](SimplexId i) {
    liveEnds[std::size_t(2 * i)] = graph.ends[2 * live[std::size_t(i)]];
    liveEnds[std::size_t(2 * i + 1)] = graph.ends[2 * live[std::size_t(i)] + 1];
  });
  detail::finishElderSweep(parent, live, liveEnds, younger);
}

} // namespace topogpu::morse_smale_complex
