// core/morse_smale_complex/MorseSmaleLabels.h against a std::map numbering of the label
// pairs present (TTK's MorseSmaleManifold, written here again without the table or the
// sort): both of its strategies, on runs of equal pairs, with labels missing (-1) or
// not, and with the label counts given or read off the labels.
#include "core/morse_smale_complex/MorseSmaleLabels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace topogpu::morse_smale_complex {
namespace {

std::vector<SimplexId> mapNumbering(const std::vector<ManifoldLabel>& descending,
                                    const std::vector<ManifoldLabel>& ascending) {
  // A missing label sorts first, as one pair shared by every such vertex.
  auto pairOf = [&](std::size_t v) {
    return descending[v] < 0 || ascending[v] < 0
               ? std::pair<long long, long long>(-1, -1)
               : std::pair<long long, long long>(descending[v], ascending[v]);
  };
  std::map<std::pair<long long, long long>, SimplexId> ids;
  for (std::size_t v = 0; v < descending.size(); ++v)
    ids[pairOf(v)] = 0;
  SimplexId next = 0;
  for (auto& entry : ids)
    entry.second = next++;
  std::vector<SimplexId> labels(descending.size());
  for (std::size_t v = 0; v < descending.size(); ++v)
    labels[v] = ids[pairOf(v)];
  return labels;
}

TEST(MorseSmaleLabels, TableAndSortMatchAMapNumbering) {
  std::mt19937 random(7);
  // (minima, maxima): products below and above the table's size.
  for (const auto& [minima, maxima] : std::vector<std::pair<int, int>>{
           {1, 1}, {3, 5}, {40, 70}, {2000, 1500}, {100000, 3}, {3, 100000}}) {
    for (const bool missing : {false, true}) {
      const std::size_t n = 200000;
      std::vector<ManifoldLabel> descending(n), ascending(n);
      // Runs of one pair, as neighbouring vertices mostly have, of 1 to 40 vertices.
      for (std::size_t v = 0; v < n;) {
        const ManifoldLabel d = ManifoldLabel(random() % unsigned(minima)),
                            a = ManifoldLabel(random() % unsigned(maxima));
        for (std::size_t end = std::min(n, v + 1 + random() % 40); v < end; ++v) {
          descending[v] = d;
          ascending[v] = a;
          if (missing && random() % 50 == 0)
            (random() % 2 ? descending : ascending)[v] = -1;
        }
      }
      const std::vector<SimplexId> expected = mapNumbering(descending, ascending);
      EXPECT_EQ(morseSmaleLabels(descending, ascending), expected)
          << minima << " x " << maxima << (missing ? ", labels missing" : "");
      std::vector<SimplexId> given{1, 2, 3}; // overwritten
      morseSmaleLabels(descending, ascending, given, minima, maxima);
      EXPECT_EQ(given, expected) << minima << " x " << maxima << ", counts given";
    }
  }
}

TEST(MorseSmaleLabels, ShorterInputAndEmpty) {
  const std::vector<ManifoldLabel> descending{0, 1, 1, 0}, ascending{2, 0, 2};
  EXPECT_EQ(morseSmaleLabels(descending, ascending), (std::vector<SimplexId>{0, 1, 2}));
  EXPECT_TRUE(morseSmaleLabels({}, {}).empty());
}

} // namespace
} // namespace topogpu::morse_smale_complex
