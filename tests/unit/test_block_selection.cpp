// base/BlockSelection.h against a plain serial loop: the selected indices in order, for
// sizes around the block boundaries, block sizes that do not divide them, and several
// counts in one pass.
#include "base/BlockSelection.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

namespace topogpu {
namespace {

std::vector<std::uint8_t> randomBytes(SimplexId n, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
  for (auto& b : bytes)
    b = std::uint8_t(random() % 5);
  return bytes;
}

TEST(BlockSelection, IndicesInOrder) {
  for (const SimplexId n : {0, 1, 7, 63, 64, 65, 1000, 4097, 100003}) {
    for (const SimplexId blockSize : {1, 3, 64, 1000, 1 << 16}) {
      const std::vector<std::uint8_t> bytes = randomBytes(n, unsigned(n + blockSize));
      std::vector<SimplexId> expected;
      for (SimplexId i = 0; i < n; ++i)
        if (bytes[std::size_t(i)] == 2)
          expected.push_back(i);
      const std::vector<SimplexId> got = selectIndices(
          n, [&](SimplexId i) { return bytes[std::size_t(i)] == 2; }, blockSize);
      EXPECT_EQ(got, expected) << "n " << n << ", blocks of " << blockSize;
    }
  }
}

TEST(BlockSelection, SeveralCountsInOnePass) {
  const SimplexId n = 54321;
  const std::vector<std::uint8_t> bytes = randomBytes(n, 5);
  using Counts = std::array<SimplexId, 5>;
  const BlockSelection<Counts> selection(n, 777, [&](SimplexId first, SimplexId last) {
    Counts c{};
    for (SimplexId i = first; i < last; ++i)
      ++c[bytes[std::size_t(i)]];
    return c;
  });
  std::array<std::vector<SimplexId>, 5> lists, expected;
  for (std::size_t k = 0; k < 5; ++k)
    lists[k].assign(std::size_t(selection.total()[k]), -1);
  selection.write([&](SimplexId first, SimplexId last, Counts at) {
    for (SimplexId i = first; i < last; ++i) {
      const std::size_t k = bytes[std::size_t(i)];
      lists[k][std::size_t(at[k]++)] = i;
    }
  });
  for (SimplexId i = 0; i < n; ++i)
    expected[bytes[std::size_t(i)]].push_back(i);
  for (std::size_t k = 0; k < 5; ++k)
    EXPECT_EQ(lists[k], expected[k]) << "value " << k;
}

} // namespace
} // namespace topogpu
