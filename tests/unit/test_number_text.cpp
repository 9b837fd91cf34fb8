// base/NumberText.h against printf itself: writeG17 must write every double exactly as
// "%.17g" does (the CLI's diagram and curve files were written with snprintf and must
// not change by a byte), writeInteger as "%lld".
#include "base/NumberText.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topogpu {
namespace {

std::string printfG17(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string g17(double x) {
  char text[kNumberTextSize];
  return std::string(text, writeG17(text, x));
}

TEST(NumberText, G17IsPrintfsOnSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.1,
                                1.0 / 3.0,
                                255.0,
                                -32768.0,
                                65535.5,
                                1e15,
                                1e16 - 2,
                                1e16,
                                1e16 + 2,
                                9007199254740992.0,
                                9007199254740993.0,
                                1e17,
                                -1e17,
                                1e21,
                                1e22,
                                1e-5,
                                1e-4,
                                123456789012345678.0,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::epsilon(),
                                double(std::numeric_limits<float>::max()),
                                double(std::numeric_limits<float>::min()),
                                inf,
                                -inf};
  for (int e = -30; e <= 30; ++e)
    for (const double m : {1.0, 9.5, 0.999999999999999, 1.00000000000000011}) {
      values.push_back(m * std::pow(10.0, e));
      values.push_back(-m * std::pow(10.0, e));
    }
  for (const double x : values)
    EXPECT_EQ(g17(x), printfG17(x)) << "bits of x: " << std::hexfloat << x;
}

TEST(NumberText, G17IsPrintfsOnRandomDoubles) {
  std::mt19937_64 rng(17);
  for (int i = 0; i < 300000; ++i) {
    // Random bit patterns (every exponent), floats widened, small integers and their
    // halves (the fields' values and persistence), random decimals.
    std::uint64_t bits = rng();
    double x = 0;
    std::memcpy(&x, &bits, sizeof x);
    if (std::isnan(x))
      continue; // NaN is refused before a diagram is written
    const float f = float(std::ldexp(double(rng() % 1000000), int(rng() % 80) - 40));
    const double small = double(std::int64_t(rng() % 2000001) - 1000000);
    const double decimal = double(rng() % 1000000007) / double(rng() % 999983 + 1);
    for (const double y : {x, double(f), small, small / 2, small / 1024, decimal})
      ASSERT_EQ(g17(y), printfG17(y)) << std::hexfloat << y;
  }
}

TEST(NumberText, IntegersArePrintfs) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 100000; ++i) {
    const auto x = std::int64_t(rng()) >> (rng() % 64);
    char ours[kNumberTextSize], theirs[32];
    std::snprintf(theirs, sizeof theirs, "%" PRId64, x);
    EXPECT_EQ(std::string(ours, writeInteger(ours, x)), theirs);
  }
  char text[kNumberTextSize];
  EXPECT_EQ(
      std::string(text, writeInteger(text, std::numeric_limits<std::int64_t>::min())),
      "-9223372036854775808");
}

} // namespace
} // namespace topogpu
