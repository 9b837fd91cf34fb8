#include "DiscreteMorseSandwich.h"

#include "core/common/Fallback.h"
#include "core/morse_smale_complex/ElderRoundsGpu.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <iterator>
#include <string>

namespace topogpu::persistence_diagram {

namespace elder = morse_smale_complex::elder;

namespace {

void checkEnds(const std::vector<SimplexId>& ends, SimplexId saddles, SimplexId extrema,
               bool outsideAllowed, const char* what) {
  if (SimplexId(ends.size()) != 2 * saddles)
    throw Error(std::string("persistence pairs: ") + what + ": " +
                std::to_string(ends.size()) + " path ends for " +
                std::to_string(saddles) + " saddles (2 each expected)");
  for (const SimplexId e : ends)
    if (e >= extrema || (e < 0 && !(outsideAllowed && e == kOutside)))
      throw Error(std::string("persistence pairs: ") + what + ": a path end (" +
                  std::to_string(e) + ") is not one of the " + std::to_string(extrema) +
                  " extrema");
}

// Kills found elsewhere (the device): one per saddle, each -1 or a node in [low, high].
void checkKills(const std::vector<SimplexId>& kills, SimplexId saddles, SimplexId low,
                SimplexId high, const char* what) {
  if (SimplexId(kills.size()) != saddles)
    throw Error(std::string("persistence pairs: the ") + what + "' sweep has " +
                std::to_string(kills.size()) + " kills for " + std::to_string(saddles) +
                " saddles");
  for (const SimplexId k : kills)
    if (k != -1 && (k < low || k > high))
      throw Error(std::string("persistence pairs: the ") + what + "' sweep kills node " +
                  std::to_string(k) + ", not one of its extrema");
}

// One sweep of the elder rule (core/morse_smale_complex/ElderRounds.h) where options say,
// the GPU's failure falling back to the CPU with a warning in out.report.
void sweep(const ElderGraph& graph, const PairingOptions& options, const char* what,
           std::vector<SimplexId>& younger, ElderStats& stats, SandwichResult& out) {
  RunReport report;
  runWithFallback(
      options.backend, std::string("elder rule (") + what + ")", report,
      [&] { gpu::elderPairs(graph, options.gpu, younger, stats); },
      [&] { morse_smale_complex::elderPairs(graph, options.cpu, younger, stats); });
  out.report.backend = report.backend;
  for (auto& w : report.warnings)
    out.report.warnings.push_back(std::move(w));
}

// Type 0: the 1-saddles in filtration order; a saddle joining two components pairs with
// the younger root (the later minimum).
void minimumSaddlePairs(const SandwichInput& in, const PairingOptions& options,
                        SandwichResult& out) {
  const SimplexId n1 = in.counts[1];
  std::vector<SimplexId> swept;
  if (!in.killsGiven())
    sweep(ElderGraph{in.counts[0], n1, in.saddle1Minima.data(), nullptr}, options,
          "minima", swept, out.elder[0], out);
  const std::vector<SimplexId>& younger = in.killsGiven() ? *in.minimumKills : swept;
  for (SimplexId s = 0; s < n1; ++s) {
    const SimplexId m = younger[std::size_t(s)];
    if (m < 0)
      continue;
    out.pairs.push_back({0, m, s});
    out.paired[0][std::size_t(m)] = 1;
    out.paired[1][std::size_t(s)] = 1;
  }
}

// Type d-1: the (d-1)-saddles left, in reverse filtration order; the maxima sweep from
// the top, so the older of two maxima is the later one, and "outside" is older than
// all (elder::dualEdge, elder::dualNode).
void saddleMaximumPairs(const SandwichInput& in, const PairingOptions& options,
                        SandwichResult& out) {
  const int d = in.dimension;
  const SimplexId nSaddles = in.counts[std::size_t(d - 1)],
                  nMax = in.counts[std::size_t(d)];
  std::vector<char>& pairedSaddles = out.paired[std::size_t(d - 1)];
  std::vector<SimplexId> swept;
  if (!in.killsGiven()) {
    std::vector<SimplexId> ends(std::size_t(2 * nSaddles));
    std::vector<char> skip(static_cast<std::size_t>(nSaddles));
    tbb::parallel_for(SimplexId(0), nSaddles, [&](SimplexId k) {
      const SimplexId s = elder::dualEdge(k, nSaddles);
      for (int i = 0; i < 2; ++i) {
        const SimplexId end = in.saddleMaxima[std::size_t(2 * s + i)];
        ends[std::size_t(2 * k + i)] =
            elder::dualNode(end == kOutside ? nMax : end, nMax);
      }
      skip[std::size_t(k)] = pairedSaddles[std::size_t(s)]; // 2D: paired first
    });
    sweep(ElderGraph{nMax + 1, nSaddles, ends.data(), skip.data()}, options, "maxima",
          swept, out.elder[1], out);
  }
  const std::vector<SimplexId>& younger = in.killsGiven() ? *in.maximumKills : swept;
  for (SimplexId k = 0; k < nSaddles; ++k) {
    const SimplexId node = younger[std::size_t(k)];
    if (node < 0)
      continue;
    const SimplexId s = elder::dualEdge(k, nSaddles),
                    maximum = elder::dualNode(node, nMax);
    out.pairs.push_back({d - 1, s, maximum});
    out.paired[std::size_t(d)][std::size_t(maximum)] = 1;
    pairedSaddles[std::size_t(s)] = 1;
  }
}

// Type 1 (3D): the standard column reduction of the boundary restricted to the saddles
// left, columns in filtration order, each one's pivot its latest row.
void saddleSaddlePairs(const SandwichInput& in, const Monitor& monitor,
                       SandwichResult& out) {
  const SimplexId n1 = in.counts[1], n2 = in.counts[2];
  std::vector<std::vector<SimplexId>> column(static_cast<std::size_t>(n2));
  for (const auto& [c, r] : in.boundary) {
    if (c < 0 || c >= n2 || r < 0 || r >= n1)
      throw Error("persistence pairs: a saddle connection (" + std::to_string(r) + ", " +
                  std::to_string(c) + ") is not between critical saddles");
    if (out.paired[2][std::size_t(c)] || out.paired[1][std::size_t(r)])
      continue; // clearing and compression
    column[std::size_t(c)].push_back(r);
  }
  std::vector<SimplexId> pivotOwner(std::size_t(n1), -1), sum;
  for (SimplexId j = 0; j < n2; ++j) {
    if ((j & 1023) == 0)
      monitor.checkAbort();
    std::vector<SimplexId>& col = column[std::size_t(j)];
    if (col.empty())
      continue;
    std::sort(col.begin(), col.end());
    while (!col.empty() && pivotOwner[std::size_t(col.back())] >= 0) {
      const std::vector<SimplexId>& other =
          column[std::size_t(pivotOwner[std::size_t(col.back())])];
      sum.clear();
      std::set_symmetric_difference(col.begin(), col.end(), other.begin(), other.end(),
                                    std::back_inserter(sum));
      col.swap(sum);
    }
    if (col.empty())
      continue; // creates an H2 class that no maximum kills: essential
    pivotOwner[std::size_t(col.back())] = j;
    out.pairs.push_back({1, col.back(), j});
    out.paired[1][std::size_t(col.back())] = 1;
    out.paired[2][std::size_t(j)] = 1;
  }
}

} // namespace

void pairCriticalCells(const SandwichInput& input, const Monitor& monitor,
                       SandwichResult& result, const PairingOptions& options) {
  result = SandwichResult();
  const int d = input.dimension;
  if (d != 2 && d != 3)
    throw Error("persistence pairs need a 2D or 3D complex, got dimension " +
                std::to_string(d));
  for (int k = 0; k <= d; ++k)
    result.paired[std::size_t(k)].assign(std::size_t(input.counts[std::size_t(k)]), 0);
  if (input.killsGiven()) {
    if (input.minimumKills == nullptr || input.maximumKills == nullptr)
      throw Error("persistence pairs: the extremum pairs' kills are missing");
    checkKills(*input.minimumKills, input.counts[1], 0, input.counts[0] - 1, "minima");
    checkKills(*input.maximumKills, input.counts[std::size_t(d - 1)], 1,
               input.counts[std::size_t(d)], "maxima");
    result.report.backend = "gpu";
  } else {
    checkEnds(input.saddle1Minima, input.counts[1], input.counts[0], false,
              "1-saddle to minimum");
    checkEnds(input.saddleMaxima, input.counts[std::size_t(d - 1)],
              input.counts[std::size_t(d)], true, "saddle to maximum");
  }
  if (d == 3) {
    // The two sweeps touch disjoint cells (minima and 1-saddles, 2-saddles and maxima)
    // and run side by side (on the device, their transfers and host parts overlap).
    SandwichResult top;
    top.paired[2].swap(result.paired[2]);
    top.paired[3].swap(result.paired[3]);
    const auto minima = [&] { minimumSaddlePairs(input, options, result); };
    const auto maxima = [&] { saddleMaximumPairs(input, options, top); };
    tbb::parallel_invoke(minima, maxima);
    result.paired[2].swap(top.paired[2]);
    result.paired[3].swap(top.paired[3]);
    result.pairs.insert(result.pairs.end(), top.pairs.begin(), top.pairs.end());
    result.elder[1] = top.elder[1];
    for (Warning& w : top.report.warnings)
      result.report.warnings.push_back(std::move(w));
    if (top.report.backend == "cpu")
      result.report.backend = "cpu";
  } else { // the dual skips the 1-saddles the minima's sweep paired
    minimumSaddlePairs(input, options, result);
    saddleMaximumPairs(input, options, result);
  }
  monitor.checkAbort();
  if (d == 3 && input.hasBoundary)
    saddleSaddlePairs(input, monitor, result);
}

} // namespace topogpu::persistence_diagram
