#include "core/morse_smale_complex/CancellationHierarchy.h"

#include "base/Timer.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace topogpu::morse_smale_complex::simplicial {

namespace {

constexpr SimplexId kUnknown = -3, kVisiting = -4;

// The position of saddle id among the sorted critical cells, -1 when absent.
SimplexId positionOf(const std::vector<SimplexId>& sorted, SimplexId id) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), id);
  return it == sorted.end() || *it != id ? -1 : SimplexId(it - sorted.begin());
}

// Up to two ends per saddle (by position) from a complex's arcs, -1 where missing.
std::vector<SimplexId> arcEnds(const std::vector<Arc>& arcs,
                               const std::vector<SimplexId>& saddles,
                               std::vector<SimplexId>& arcPosition) {
  std::vector<SimplexId> ends(2 * saddles.size(), -1);
  std::vector<char> filled(saddles.size(), 0);
  arcPosition.resize(arcs.size());
  for (std::size_t i = 0; i < arcs.size(); ++i) {
    const SimplexId p = positionOf(saddles, arcs[i].saddle);
    if (p < 0)
      throw Error("cancellation hierarchy: an arc starts at a cell that is not a "
                  "critical saddle");
    arcPosition[i] = p;
    for (int k = 0; k < arcs[i].multiplicity && filled[std::size_t(p)] < 2; ++k)
      ends[std::size_t(2 * p + filled[std::size_t(p)]++)] = arcs[i].extremum;
  }
  return ends;
}

// Each cancelled extremum's representative: its partners followed to a kept extremum
// (or the outside), with the walked chain resolved at once. A cycle of partners (not
// possible when the pairs follow the elder rule on the complex's arcs) keeps the
// extremum where it closes, counted in cycles.
void representatives(const CancellationHierarchy::Side& side, SimplexId cancelled,
                     std::vector<SimplexId>& rep, SimplexId& cycles) {
  rep.assign(std::size_t(side.extrema), kUnknown);
  for (SimplexId e = 0; e < side.extrema; ++e) {
    const SimplexId p = side.pairOf[std::size_t(e)];
    if (p < 0 || p >= cancelled)
      rep[std::size_t(e)] = e;
  }
  std::vector<SimplexId> chain;
  for (SimplexId i = 0; i < cancelled; ++i) {
    SimplexId x = side.extremum[std::size_t(i)];
    if (rep[std::size_t(x)] != kUnknown)
      continue;
    chain.clear();
    SimplexId result = kOutsidePartner;
    while (true) {
      rep[std::size_t(x)] = kVisiting;
      chain.push_back(x);
      const SimplexId next = side.partner[std::size_t(side.pairOf[std::size_t(x)])];
      if (next == kOutsidePartner)
        break;
      const SimplexId r = rep[std::size_t(next)];
      if (r == kVisiting) {
        ++cycles;
        result = next;
        break;
      }
      if (r != kUnknown) {
        result = r;
        break;
      }
      x = next;
    }
    for (const SimplexId c : chain)
      rep[std::size_t(c)] = result;
  }
}

// The arcs of the kept saddles, their ends sent to the representatives' new indices
// (-1 drops the arc), the arcs of one saddle reaching one extremum merged.
void rerouteArcs(const std::vector<Arc>& arcs, const std::vector<SimplexId>& arcPosition,
                 const std::vector<char>& cancelled, const std::vector<SimplexId>& endOf,
                 std::vector<Arc>& out) {
  out.clear();
  for (std::size_t i = 0; i < arcs.size();) {
    std::size_t end = i;
    while (end < arcs.size() && arcs[end].saddle == arcs[i].saddle)
      ++end;
    if (!cancelled[std::size_t(arcPosition[i])]) {
      const std::size_t first = out.size();
      for (std::size_t k = i; k < end; ++k) {
        const SimplexId e = endOf[std::size_t(arcs[k].extremum)];
        if (e >= 0)
          out.push_back({arcs[k].saddle, e, arcs[k].multiplicity});
      }
      std::sort(out.begin() + std::ptrdiff_t(first), out.end(),
                [](const Arc& a, const Arc& b) { return a.extremum < b.extremum; });
      std::size_t w = first;
      for (std::size_t k = first; k < out.size(); ++k) {
        if (w > first && out[w - 1].extremum == out[k].extremum)
          out[w - 1].multiplicity += out[k].multiplicity;
        else
          out[w++] = out[k];
      }
      out.resize(w);
    }
    i = end;
  }
}

void relabel(const std::vector<ManifoldLabel>& in, const std::vector<SimplexId>& table,
             std::vector<ManifoldLabel>& out) {
  out.resize(in.size());
  tbb::parallel_for(std::size_t(0), in.size(), [&](std::size_t v) {
    const ManifoldLabel l = in[v];
    out[v] = l < 0 ? ManifoldLabel(-1) : ManifoldLabel(table[std::size_t(l)]);
  });
}

} // namespace

void buildHierarchy(const Output& complex, const std::vector<ExtremumPair>& pairs,
                    const std::vector<SaddlePair>& saddlePairs,
                    CancellationHierarchy& hierarchy) {
  hierarchy = CancellationHierarchy();
  const sg::Output& g = complex.gradient;
  const int d = g.dimension;
  hierarchy.dimension = d;
  auto& minima = hierarchy.sides[0];
  auto& maxima = hierarchy.sides[1];
  minima.extrema = minima.criticalExtrema = SimplexId(g.criticalCells[0].size());
  maxima.extrema = SimplexId(complex.maxima.size());
  maxima.criticalExtrema = SimplexId(g.criticalCells[std::size_t(d)].size());
  std::array<std::vector<SimplexId>, 2> ends;
  ends[0] = arcEnds(complex.saddle1Minimum, g.criticalCells[1], hierarchy.arcPosition[0]);
  ends[1] = arcEnds(complex.saddleMaximum, g.criticalCells[std::size_t(d - 1)],
                    hierarchy.arcPosition[1]);
  // The elder rule replayed: pairs in their saddles' filtration order (decreasing for
  // maxima), a union-find whose roots are the extrema not yet paired.
  std::array<std::vector<std::size_t>, 2> order;
  for (std::size_t i = 0; i < pairs.size(); ++i)
    order[pairs[i].maximum ? 1 : 0].push_back(i);
  std::sort(order[0].begin(), order[0].end(), [&](std::size_t x, std::size_t y) {
    return pairs[x].saddleKey < pairs[y].saddleKey;
  });
  std::sort(order[1].begin(), order[1].end(), [&](std::size_t x, std::size_t y) {
    return pairs[y].saddleKey < pairs[x].saddleKey;
  });
  for (int s = 0; s < 2; ++s) {
    auto& side = hierarchy.sides[std::size_t(s)];
    std::vector<SimplexId> parent(std::size_t(side.extrema));
    std::iota(parent.begin(), parent.end(), SimplexId(0));
    auto find = [&](SimplexId x) {
      while (parent[std::size_t(x)] != x)
        x = parent[std::size_t(x)] = parent[std::size_t(parent[std::size_t(x)])];
      return x;
    };
    for (const std::size_t i : order[std::size_t(s)]) {
      const ExtremumPair& pair = pairs[i];
      const SimplexId position =
          positionOf(g.criticalCells[std::size_t(s == 0 ? 1 : d - 1)], pair.saddle);
      if (pair.extremum < 0 || pair.extremum >= side.criticalExtrema || position < 0 ||
          !(pair.persistence >= 0))
        throw Error("cancellation hierarchy: pair " + std::to_string(i) +
                    " names an extremum or saddle the complex does not have");
      const SimplexId a = ends[std::size_t(s)][std::size_t(2 * position)],
                      b = ends[std::size_t(s)][std::size_t(2 * position + 1)];
      const SimplexId ra = a < 0 ? -1 : find(a), rb = b < 0 ? -1 : find(b);
      SimplexId partner = -1;
      if (ra == pair.extremum && rb != ra)
        partner = b < 0 ? (s == 1 ? kOutsidePartner : -1) : b;
      else if (rb == pair.extremum && ra != rb)
        partner = a < 0 ? (s == 1 ? kOutsidePartner : -1) : a;
      if (partner == -1) {
        ++hierarchy.inconsistentPairs;
        continue;
      }
      if (partner >= 0)
        parent[std::size_t(pair.extremum)] = find(partner);
      side.extremum.push_back(pair.extremum);
      side.saddle.push_back(pair.saddle);
      side.partner.push_back(partner);
      side.persistence.push_back(pair.persistence);
      hierarchy.largestPersistence =
          std::max(hierarchy.largestPersistence, pair.persistence);
    }
  }
  for (auto& side : hierarchy.sides) {
    // Increasing persistence, ties in the elder rule's order (the replay's): a pair
    // whose extremum lies in another's component when that one dies has at most its
    // persistence and must be cancelled first, equal values included.
    std::vector<std::size_t> idx(side.extremum.size());
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
      return side.persistence[x] < side.persistence[y];
    });
    auto permute = [&](auto& column) {
      auto copy = column;
      for (std::size_t k = 0; k < idx.size(); ++k)
        column[k] = copy[idx[k]];
    };
    permute(side.extremum);
    permute(side.saddle);
    permute(side.partner);
    permute(side.persistence);
    side.pairOf.assign(std::size_t(side.extrema), -1);
    for (std::size_t k = 0; k < side.extremum.size(); ++k) {
      if (side.pairOf[std::size_t(side.extremum[k])] >= 0)
        throw Error("cancellation hierarchy: an extremum is paired twice");
      side.pairOf[std::size_t(side.extremum[k])] = SimplexId(k);
    }
    side.saddlePosition.resize(side.saddle.size());
  }
  for (int s = 0; s < 2; ++s)
    for (std::size_t k = 0; k < hierarchy.sides[std::size_t(s)].saddle.size(); ++k)
      hierarchy.sides[std::size_t(s)].saddlePosition[k] =
          positionOf(g.criticalCells[std::size_t(s == 0 ? 1 : d - 1)],
                     hierarchy.sides[std::size_t(s)].saddle[k]);
  std::vector<SaddlePair> sorted = saddlePairs;
  std::sort(sorted.begin(), sorted.end(), [](const SaddlePair& x, const SaddlePair& y) {
    return x.persistence != y.persistence ? x.persistence < y.persistence
                                          : x.saddle1 < y.saddle1;
  });
  for (const SaddlePair& p : sorted) {
    const SimplexId p1 = positionOf(g.criticalCells[1], p.saddle1),
                    p2 = d == 3 ? positionOf(g.criticalCells[2], p.saddle2) : -1;
    if (p1 < 0 || p2 < 0 || !(p.persistence >= 0))
      throw Error("cancellation hierarchy: a saddle-saddle pair names cells the complex "
                  "does not have");
    hierarchy.saddlePairs.emplace_back(p1, p2);
    hierarchy.saddlePersistence.push_back(p.persistence);
  }
  hierarchy.connectionPosition.resize(complex.connections.size());
  for (std::size_t i = 0; i < complex.connections.size(); ++i)
    hierarchy.connectionPosition[i] = {
        positionOf(g.criticalCells[1], complex.connections[i].saddle1),
        positionOf(g.criticalCells[2], complex.connections[i].saddle2)};
}

void simplify(const Output& complex, const CancellationHierarchy& hierarchy, double T,
              AscendingSegmentation rule, SimplifiedComplex& answer) {
  if (!(T >= 0))
    throw Error("persistence threshold: must be a number >= 0 (got " + std::to_string(T) +
                ")");
  const Timer timer;
  const sg::Output& g = complex.gradient;
  const int d = g.dimension;
  if (d != hierarchy.dimension ||
      SimplexId(complex.maxima.size()) != hierarchy.sides[1].extrema ||
      complex.connections.size() != hierarchy.connectionPosition.size())
    throw Error("cancellation hierarchy: built from another complex");
  answer.threshold = T;
  answer.rule = rule;
  answer.cancelledPairs = answer.cycles = 0;
  std::array<std::vector<SimplexId>, 2> labelOf, arcEndOf;
  for (int s = 0; s < 2; ++s) {
    const auto& side = hierarchy.sides[std::size_t(s)];
    const SimplexId cancelled =
        SimplexId(std::lower_bound(side.persistence.begin(), side.persistence.end(), T) -
                  side.persistence.begin());
    answer.cancelledPairs += cancelled;
    auto& rep = answer.representative[std::size_t(s)];
    representatives(side, cancelled, rep, answer.cycles);
    auto& index = answer.newIndex[std::size_t(s)];
    auto& kept = answer.kept[std::size_t(s)];
    index.assign(rep.size(), -1);
    kept.clear();
    for (SimplexId e = 0; e < side.extrema; ++e)
      if (rep[std::size_t(e)] == e) {
        index[std::size_t(e)] = SimplexId(kept.size());
        kept.push_back(e);
      }
    auto& saddles = answer.saddleCancelled[std::size_t(s)];
    saddles.assign(g.criticalCells[std::size_t(s == 0 ? 1 : d - 1)].size(), 0);
    for (SimplexId k = 0; k < cancelled; ++k)
      if (rep[std::size_t(side.extremum[std::size_t(k)])] !=
          side.extremum[std::size_t(k)])
        saddles[std::size_t(side.saddlePosition[std::size_t(k)])] = 1;
    // Labels and arc ends per old extremum: the representative's new index; -1 for the
    // outside, and under TTK's rule for a boundary maximum (a path that left).
    labelOf[std::size_t(s)].resize(rep.size());
    arcEndOf[std::size_t(s)].resize(rep.size());
    for (std::size_t e = 0; e < rep.size(); ++e) {
      const SimplexId r = rep[e];
      const SimplexId end = r < 0 ? SimplexId(-1) : index[std::size_t(r)];
      arcEndOf[std::size_t(s)][e] = end;
      labelOf[std::size_t(s)][e] =
          s == 1 && r >= side.criticalExtrema && rule == AscendingSegmentation::Ttk
              ? SimplexId(-1)
              : end;
    }
  }
  // Saddle-saddle pairs below T: both saddles go (3D: side 1's saddles are 2-saddles).
  const std::size_t saddleCancelled =
      std::size_t(std::lower_bound(hierarchy.saddlePersistence.begin(),
                                   hierarchy.saddlePersistence.end(), T) -
                  hierarchy.saddlePersistence.begin());
  for (std::size_t k = 0; k < saddleCancelled; ++k) {
    answer.saddleCancelled[0][std::size_t(hierarchy.saddlePairs[k].first)] = 1;
    answer.saddleCancelled[1][std::size_t(hierarchy.saddlePairs[k].second)] = 1;
  }
  answer.cancelledPairs += SimplexId(saddleCancelled);
  answer.counts = g.counts;
  answer.counts[0] = SimplexId(answer.kept[0].size());
  answer.boundaryMaxima = complex.boundaryMaxima;
  answer.counts[std::size_t(d)] =
      SimplexId(answer.kept[1].size()) - answer.boundaryMaxima;
  for (int s = 0; s < 2; ++s)
    for (const char c : answer.saddleCancelled[std::size_t(s)])
      answer.counts[std::size_t(s == 0 ? 1 : d - 1)] -= c;

  relabel(complex.descendingManifold, labelOf[0], answer.descendingManifold);
  relabel(complex.ascendingManifold, labelOf[1], answer.ascendingManifold);
  relabel(complex.cellAscendingManifold, labelOf[1], answer.cellAscendingManifold);
  morseSmaleLabels(answer.descendingManifold, answer.ascendingManifold,
                   answer.morseSmaleManifold, SimplexId(answer.kept[0].size()),
                   SimplexId(answer.kept[1].size()));

  // In 2D the 1-saddles are both sides' saddles: a saddle cancelled with a maximum is
  // gone from the descending arcs too, and the other way round.
  std::array<std::vector<char>, 2> gone = answer.saddleCancelled;
  if (d == 2)
    for (std::size_t p = 0; p < gone[0].size(); ++p)
      gone[0][p] = gone[1][p] = char(gone[0][p] || gone[1][p]);
  rerouteArcs(complex.saddle1Minimum, hierarchy.arcPosition[0], gone[0], arcEndOf[0],
              answer.saddle1Minimum);
  rerouteArcs(complex.saddleMaximum, hierarchy.arcPosition[1], gone[1], arcEndOf[1],
              answer.saddleMaximum);
  answer.connections.clear();
  answer.keptConnections.clear();
  answer.connectionMultiplicitySum = 0;
  for (std::size_t i = 0; i < complex.connections.size(); ++i) {
    const auto& [p1, p2] = hierarchy.connectionPosition[i];
    if (gone[0][std::size_t(p1)] || (d == 3 && gone[1][std::size_t(p2)]))
      continue;
    answer.connections.push_back(complex.connections[i]);
    answer.keptConnections.push_back(SimplexId(i));
    answer.connectionMultiplicitySum += complex.connections[i].multiplicity;
  }
  answer.report = RunReport();
  answer.report.timings.emplace_back("persistence threshold (cpu)", timer.seconds());
}

double legibleThreshold(const CancellationHierarchy& hierarchy, SimplexId minima,
                        SimplexId maxima) {
  double T = 0;
  const SimplexId limits[2] = {minima, maxima};
  for (int s = 0; s < 2; ++s) {
    const auto& side = hierarchy.sides[std::size_t(s)];
    const auto& p = side.persistence;
    const SimplexId n = SimplexId(p.size());
    const SimplexId left = side.criticalExtrema - n; // never cancelled
    const SimplexId r = std::max<SimplexId>(0, limits[s] - left);
    if (n <= r)
      continue;
    // Cancel the n - r least persistent: the smallest persistence above theirs (the
    // ties cancelled with them), a hair above when there is none.
    const double last = p[std::size_t(n - r - 1)];
    const auto above = std::upper_bound(p.begin(), p.end(), last);
    T = std::max(T, above != p.end()
                        ? *above
                        : std::nextafter(last, std::numeric_limits<double>::infinity()));
  }
  return T;
}

} // namespace topogpu::morse_smale_complex::simplicial
