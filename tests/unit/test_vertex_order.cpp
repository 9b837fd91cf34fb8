// computeVertexOrderCpu against std::stable_sort: the stable sort of the indices by value
// alone is, by definition, the order by (value, index).
#include "core/common/VertexOrder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

namespace topogpu {
namespace {

// Checks order against the brute-force reference on values.
template <typename T> void checkOrder(const std::vector<T>& values, const char* what) {
  SCOPED_TRACE(what);
  const SimplexId n = SimplexId(values.size());
  std::vector<SimplexId> order(n, -1);
  computeVertexOrderCpu({values.data(), scalarTypeOf<T>(), n}, order.data());

  // A permutation of 0..n-1.
  std::vector<char> hit(n, 0);
  for (SimplexId v = 0; v < n; ++v) {
    ASSERT_GE(order[v], 0) << "vertex " << v;
    ASSERT_LT(order[v], n) << "vertex " << v;
    ASSERT_FALSE(hit[order[v]]) << "rank " << order[v] << " given twice";
    hit[order[v]] = 1;
  }
  // The rank of each vertex is its position in the stable sort by value.
  std::vector<SimplexId> sorted(n);
  std::iota(sorted.begin(), sorted.end(), SimplexId(0));
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](SimplexId a, SimplexId b) { return values[a] < values[b]; });
  int failures = 0;
  for (SimplexId rank = 0; rank < n && failures < 10; ++rank) {
    if (order[sorted[rank]] != rank) {
      ADD_FAILURE() << "vertex " << sorted[rank] << " (value " << +values[sorted[rank]]
                    << ") has rank " << order[sorted[rank]] << ", expected " << rank;
      ++failures;
    }
  }
}

template <typename T>
std::vector<T> randomValues(std::mt19937_64& rng, SimplexId n, bool narrow) {
  std::vector<T> values(n);
  for (T& x : values) {
    if constexpr (std::is_floating_point_v<T>) {
      std::uniform_real_distribution<double> d(-1000.0, 1000.0);
      x = narrow ? T(std::floor(d(rng) / 200.0)) : T(d(rng));
    } else {
      // full range (both signs, the extremes) or a handful of values (ties)
      const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
      if (narrow) {
        x = T(rng() % 5);
      } else {
        const std::uint64_t r = rng();
        x = r % 17 == 0 ? lo : r % 17 == 1 ? hi : T(r >> 7);
      }
    }
  }
  return values;
}

template <typename T> class VertexOrderTyped : public ::testing::Test {};
using AllTypes =
    ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                     std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(VertexOrderTyped, AllTypes);

TYPED_TEST(VertexOrderTyped, MatchesStableSort) {
  std::mt19937_64 rng(2024);
  // Sizes around TBB's grain sizes and a larger one, so the parallel sort really splits.
  for (SimplexId n : {1, 2, 3, 17, 1000, 100000}) {
    checkOrder(randomValues<TypeParam>(rng, n, false), "wide values");
    checkOrder(randomValues<TypeParam>(rng, n, true), "few distinct values");
  }
  checkOrder(std::vector<TypeParam>(5000, TypeParam(3)), "constant");
  std::vector<TypeParam> descending(3000);
  for (std::size_t i = 0; i < descending.size(); ++i)
    descending[i] = TypeParam(100 - int(i % 100));
  checkOrder(descending, "descending saw");
}

TEST(VertexOrder, MassiveTiesUInt8) {
  // A real-data-like case: 256 values over a million vertices, long runs of equal values.
  std::mt19937_64 rng(5);
  std::vector<std::uint8_t> values(1 << 20);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = (i / 4096) % 3 == 0 ? 0 : std::uint8_t(rng() % 256);
  checkOrder(values, "uint8 ties");
}

TEST(VertexOrder, SignedZerosTie) {
  // -0.0 == +0.0: they tie and fall back to the index, whatever the sign bit says.
  const std::vector<double> d = {0.0, -0.0, 1.0, -0.0, 0.0, -1.0, -0.0};
  checkOrder(d, "double zeros");
  std::vector<SimplexId> order(d.size());
  computeVertexOrderCpu({d.data(), ScalarType::Float64, SimplexId(d.size())},
                        order.data());
  EXPECT_EQ(order, (std::vector<SimplexId>{1, 2, 6, 3, 4, 0, 5}));

  const std::vector<float> f = {-0.0f, 0.0f, -0.0f, 0.0f};
  std::vector<SimplexId> forder(f.size());
  computeVertexOrderCpu({f.data(), ScalarType::Float32, SimplexId(f.size())},
                        forder.data());
  EXPECT_EQ(forder, (std::vector<SimplexId>{0, 1, 2, 3}));

  std::mt19937_64 rng(9);
  std::vector<float> many(50000);
  for (float& x : many)
    x = rng() % 2 ? 0.0f : -0.0f;
  checkOrder(many, "many signed zeros");
}

TEST(VertexOrder, ExtremeFloats) {
  const std::vector<double> d = {std::numeric_limits<double>::max(),
                                 std::numeric_limits<double>::lowest(),
                                 std::numeric_limits<double>::denorm_min(),
                                 -std::numeric_limits<double>::denorm_min(),
                                 0.0,
                                 std::numeric_limits<double>::min(),
                                 -0.0};
  checkOrder(d, "extremes");
}

} // namespace
} // namespace topogpu
