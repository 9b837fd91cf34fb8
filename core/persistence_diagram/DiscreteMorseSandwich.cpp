#include "DiscreteMorseSandwich.h"

#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <iterator>
#include <string>

namespace topogpu::persistence_diagram {

namespace {

// A union-find whose roots are the oldest node of their component: merging keeps the
// older root (the elder rule), so no rank is kept; path halving bounds the walks.
struct ElderForest {
  std::vector<SimplexId> parent;
  explicit ElderForest(SimplexId n) : parent(std::size_t(n)) {
    for (SimplexId i = 0; i < n; ++i)
      parent[std::size_t(i)] = i;
  }
  SimplexId find(SimplexId x) {
    while (parent[std::size_t(x)] != x) {
      parent[std::size_t(x)] = parent[std::size_t(parent[std::size_t(x)])];
      x = parent[std::size_t(x)];
    }
    return x;
  }
};

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

// Type 0: the 1-saddles in filtration order; a saddle joining two components pairs with
// the younger root (the later minimum).
void minimumSaddlePairs(const SandwichInput& in, SandwichResult& out) {
  const SimplexId n1 = in.counts[1];
  ElderForest forest(in.counts[0]);
  for (SimplexId s = 0; s < n1; ++s) {
    const SimplexId a = forest.find(in.saddle1Minima[std::size_t(2 * s)]),
                    b = forest.find(in.saddle1Minima[std::size_t(2 * s + 1)]);
    if (a == b)
      continue;
    const SimplexId younger = std::max(a, b), older = std::min(a, b);
    forest.parent[std::size_t(younger)] = older;
    out.pairs.push_back({0, younger, s});
    out.paired[0][std::size_t(younger)] = 1;
    out.paired[1][std::size_t(s)] = 1;
  }
}

// Type d-1: the (d-1)-saddles left, in reverse filtration order; the maxima sweep from
// the top, so the older of two maxima is the later one, and "outside" (node nMax) is
// older than all.
void saddleMaximumPairs(const SandwichInput& in, SandwichResult& out) {
  const int d = in.dimension;
  const SimplexId nSaddles = in.counts[std::size_t(d - 1)],
                  nMax = in.counts[std::size_t(d)];
  ElderForest forest(nMax + 1);
  auto node = [&](SimplexId end) { return end == kOutside ? nMax : end; };
  std::vector<char>& pairedSaddles = out.paired[std::size_t(d - 1)];
  for (SimplexId s = nSaddles - 1; s >= 0; --s) {
    if (pairedSaddles[std::size_t(s)])
      continue; // 2D: already a 1-saddle of a (minimum, 1-saddle) pair
    const SimplexId a = forest.find(node(in.saddleMaxima[std::size_t(2 * s)])),
                    b = forest.find(node(in.saddleMaxima[std::size_t(2 * s + 1)]));
    if (a == b)
      continue;
    const SimplexId younger = std::min(a, b), older = std::max(a, b);
    forest.parent[std::size_t(younger)] = older;
    out.pairs.push_back({d - 1, s, younger});
    out.paired[std::size_t(d)][std::size_t(younger)] = 1;
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
                       SandwichResult& result) {
  result = SandwichResult();
  const int d = input.dimension;
  if (d != 2 && d != 3)
    throw Error("persistence pairs need a 2D or 3D complex, got dimension " +
                std::to_string(d));
  for (int k = 0; k <= d; ++k)
    result.paired[std::size_t(k)].assign(std::size_t(input.counts[std::size_t(k)]), 0);
  checkEnds(input.saddle1Minima, input.counts[1], input.counts[0], false,
            "1-saddle to minimum");
  checkEnds(input.saddleMaxima, input.counts[std::size_t(d - 1)],
            input.counts[std::size_t(d)], true, "saddle to maximum");
  // In 3D the two union-finds touch disjoint cells (minima and 1-saddles, 2-saddles and
  // maxima) and run side by side; in 2D the dual skips the 1-saddles paired first.
  if (d == 3) {
    SandwichResult top;
    top.paired[2].swap(result.paired[2]);
    top.paired[3].swap(result.paired[3]);
    tbb::parallel_invoke([&] { minimumSaddlePairs(input, result); },
                         [&] { saddleMaximumPairs(input, top); });
    result.paired[2].swap(top.paired[2]);
    result.paired[3].swap(top.paired[3]);
    result.pairs.insert(result.pairs.end(), top.pairs.begin(), top.pairs.end());
  } else {
    minimumSaddlePairs(input, result);
    saddleMaximumPairs(input, result);
  }
  monitor.checkAbort();
  if (d == 3 && input.hasBoundary)
    saddleSaddlePairs(input, monitor, result);
}

} // namespace topogpu::persistence_diagram
