// A vertex order given with the values (ScalarArrayView::order, TTK's `<field>_Order`):
// taken as it is instead of the sort, its checks' messages, its restriction to a part of
// the domain against a brute force, and the front ends' cache telling two orders of the
// same values apart.
#include "core/common/GivenVertexOrder.h"
#include "core/common/VertexOrder.h"
#include "frontend/VertexOrderCache.h"

#include "UnitHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace topogpu {
namespace {

// Values with few levels and the ranks of (value, a random tie-break): not the order
// by (value, index).
struct Tied {
  std::vector<float> values;
  std::vector<SimplexId> ranks;
};

Tied tiedField(std::mt19937& rng, SimplexId n, int levels) {
  Tied t;
  t.values = test::randomLevels<float>(rng, std::size_t(n), levels);
  std::vector<SimplexId> tieBreak(static_cast<std::size_t>(n));
  std::iota(tieBreak.begin(), tieBreak.end(), SimplexId(0));
  std::shuffle(tieBreak.begin(), tieBreak.end(), rng);
  std::vector<SimplexId> byRank(static_cast<std::size_t>(n));
  std::iota(byRank.begin(), byRank.end(), SimplexId(0));
  std::sort(byRank.begin(), byRank.end(), [&](SimplexId a, SimplexId b) {
    return t.values[a] != t.values[b] ? t.values[a] < t.values[b]
                                      : tieBreak[a] < tieBreak[b];
  });
  t.ranks.resize(std::size_t(n));
  for (SimplexId r = 0; r < n; ++r)
    t.ranks[byRank[r]] = r;
  return t;
}

ScalarArrayView withOrder(const Tied& t, const std::vector<SimplexId>& ranks) {
  ScalarArrayView view = viewOf(t.values);
  view.order = ranks.data();
  return view;
}

TEST(GivenVertexOrder, TakenInsteadOfTheSort) {
  std::mt19937 rng(1);
  const Tied t = tiedField(rng, 5000, 3);
  std::vector<SimplexId> order(t.ranks.size(), -1);
  computeVertexOrderCpu(withOrder(t, t.ranks), order.data());
  EXPECT_EQ(order, t.ranks);
  std::vector<SimplexId> sorted(t.ranks.size(), -1);
  computeVertexOrderCpu(viewOf(t.values), sorted.data());
  EXPECT_NE(sorted, t.ranks) << "the test's order must differ from the sorted one";
  RunReport report;
  std::vector<SimplexId> viaBackend(t.ranks.size(), -1);
  computeVertexOrder(withOrder(t, t.ranks), viaBackend.data(), Backend::Cpu, report);
  EXPECT_EQ(viaBackend, t.ranks);
  const VertexOrderView view =
      vertexOrderOf({}, withOrder(t, t.ranks), Monitor{}, report);
  EXPECT_TRUE(std::equal(t.ranks.begin(), t.ranks.end(), view.data()));
  EXPECT_EQ(report.timings.back().first, "vertex order (given)");
}

TEST(GivenVertexOrder, ChecksNameTheProblem) {
  std::mt19937 rng(2);
  const Tied t = tiedField(rng, 200, 3);
  EXPECT_NO_THROW(checkGivenVertexOrder(withOrder(t, t.ranks), "o", "f"));
  const auto vertexOfRank = [&](SimplexId r) {
    return SimplexId(std::find(t.ranks.begin(), t.ranks.end(), r) - t.ranks.begin());
  };
  std::vector<SimplexId> twice = t.ranks;
  twice[vertexOfRank(7)] = 8;
  test::expectError([&] { checkGivenVertexOrder(withOrder(t, twice), "E_Order", "E"); },
                    "E_Order is not a permutation: rank 8 appears twice");
  std::vector<SimplexId> outside = t.ranks;
  outside[3] = -1;
  test::expectError([&] { checkGivenVertexOrder(withOrder(t, outside), "E_Order", "E"); },
                    "rank -1 at vertex 3 is outside 0..199");
  // the lowest and the highest vertex swapped: values decrease along the ranks
  std::vector<SimplexId> against = t.ranks;
  std::swap(against[vertexOfRank(0)], against[vertexOfRank(199)]);
  test::expectError([&] { checkGivenVertexOrder(withOrder(t, against), "E_Order", "E"); },
                    "E_Order is not consistent with E");
  // ties may be broken either way
  std::vector<SimplexId> otherTies(t.ranks.size());
  computeVertexOrderCpu(viewOf(t.values), otherTies.data());
  EXPECT_NO_THROW(checkGivenVertexOrder(withOrder(t, otherTies), "o", "f"));
}

TEST(GivenVertexOrder, RestrictionKeepsTheRelativeOrder) {
  std::mt19937 rng(3);
  const Tied t = tiedField(rng, 3000, 4);
  std::vector<SimplexId> kept;
  for (SimplexId v = 0; v < SimplexId(t.ranks.size()); ++v)
    if (rng() % 3 != 0)
      kept.push_back(v);
  const std::vector<SimplexId> rank = restrictVertexOrder(t.ranks.data(), kept);
  ASSERT_EQ(rank.size(), kept.size());
  // brute force: a kept vertex's new rank counts the kept vertices ranked below it
  std::vector<SimplexId> keptRanks;
  for (const SimplexId v : kept)
    keptRanks.push_back(t.ranks[v]);
  std::sort(keptRanks.begin(), keptRanks.end());
  for (std::size_t i = 0; i < kept.size(); ++i)
    EXPECT_EQ(rank[i],
              std::lower_bound(keptRanks.begin(), keptRanks.end(), t.ranks[kept[i]]) -
                  keptRanks.begin())
        << "kept vertex " << i;
}

TEST(GivenVertexOrder, CacheTellsOrdersApart) {
  std::mt19937 rng(4);
  const Tied t = tiedField(rng, 4000, 3);
  std::vector<SimplexId> sorted(t.ranks.size());
  computeVertexOrderCpu(viewOf(t.values), sorted.data());
  frontend::VertexOrderCache cache;
  bool reused = false;
  EXPECT_EQ(*cache.orderOf(viewOf(t.values), Monitor{}, reused), sorted);
  EXPECT_EQ(*cache.orderOf(withOrder(t, t.ranks), Monitor{}, reused), t.ranks);
  EXPECT_FALSE(reused);
  EXPECT_EQ(*cache.orderOf(withOrder(t, t.ranks), Monitor{}, reused), t.ranks);
  EXPECT_TRUE(reused);
  // the same buffer holding another order is another field
  std::vector<SimplexId> changed = t.ranks;
  const ScalarArrayView view = withOrder(t, changed);
  EXPECT_EQ(*cache.orderOf(view, Monitor{}, reused), t.ranks);
  changed.assign(sorted.begin(), sorted.end());
  EXPECT_EQ(*cache.orderOf(view, Monitor{}, reused), sorted);
  EXPECT_FALSE(reused);
}

} // namespace
} // namespace topogpu
