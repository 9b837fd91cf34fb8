// The size estimate of a Rips run (core/rips_persistence/RipsEstimate.h) and the memory
// budget it enforces, against oracles written here: the edges and the cliques of every
// size under the threshold counted by brute force on tiny clouds, and the refusal's
// suggestions checked by running them.
#include "UnitHelpers.h"

#include "core/rips_persistence/RipsEstimate.h"
#include "core/rips_persistence/RipsInput.h"
#include "core/rips_persistence/RipsPersistence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace topogpu;
using namespace topogpu::rips_persistence;

namespace {

// Full matrix of float distances (the core's rounding: double sums, one rounding).
std::vector<std::vector<float>> distancesOf(const std::vector<double>& points, int dim) {
  const int n = int(points.size()) / dim;
  std::vector<std::vector<float>> d(static_cast<std::size_t>(n),
                                    std::vector<float>(static_cast<std::size_t>(n)));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < dim; ++k) {
        const double x =
            points[std::size_t(i * dim + k)] - points[std::size_t(j * dim + k)];
        s += x * x;
      }
      d[std::size_t(i)][std::size_t(j)] = float(std::sqrt(s));
    }
  return d;
}

// The simplices with `size` vertices whose edges are all <= t (cliques), by recursion.
long cliques(const std::vector<std::vector<float>>& d, float t, int size) {
  const int n = int(d.size());
  long count = 0;
  std::vector<int> chosen;
  const std::function<void(int)> grow = [&](int from) {
    if (int(chosen.size()) == size) {
      ++count;
      return;
    }
    for (int v = from; v < n; ++v) {
      bool ok = true;
      for (const int u : chosen)
        ok = ok && d[std::size_t(u)][std::size_t(v)] <= t;
      if (!ok)
        continue;
      chosen.push_back(v);
      grow(v + 1);
      chosen.pop_back();
    }
  };
  grow(0);
  return count;
}

float enclosingRadiusOf(const std::vector<std::vector<float>>& d) {
  float best = INFINITY;
  for (const auto& row : d)
    best = std::min(best, *std::max_element(row.begin(), row.end()));
  return best;
}

Parameters parametersOf(int maxDim, double threshold = INFINITY,
                        double budget = INFINITY) {
  Parameters p;
  p.maxDimension = maxDim;
  p.threshold = threshold;
  p.memoryBudget = budget;
  return p;
}

std::vector<double> randomCloud(std::mt19937& rng, int n, int dim, bool ties) {
  std::vector<double> points(std::size_t(n * dim));
  for (double& x : points)
    x = ties ? double(rng() % 4) : std::uniform_real_distribution<double>(0, 1)(rng);
  return points;
}

double binomial(int n, int k) {
  double c = 1;
  for (int j = 0; j < k; ++j)
    c = c * (n - j) / (j + 1);
  return c;
}

// The number after `key` in a message ("... threshold of at most 0.25").
double numberAfter(const std::string& message, const std::string& key) {
  const std::size_t at = message.find(key);
  if (at == std::string::npos)
    return NAN;
  return std::strtod(message.c_str() + at + key.size(), nullptr);
}

} // namespace

// The edges and the triangles are counted exactly, every dimension above is an upper
// bound on the simplices under the threshold, the same for the three input kinds.
TEST(RipsEstimate, EdgesAndTrianglesExactHigherSimplicesBounded) {
  std::mt19937 rng(3);
  int strict = 0;
  for (int trial = 0; trial < 90; ++trial) {
    const int n = 6 + trial % 9, dim = 2 + trial % 2, maxDim = 1 + trial % 3;
    const std::vector<double> points = randomCloud(rng, n, dim, trial % 3 == 0);
    const auto d = distancesOf(points, dim);
    const float radius = enclosingRadiusOf(d);
    const double fraction = trial % 4 == 0 ? 1.0 : 0.4 + 0.15 * (trial % 4);
    const float t = float(radius * fraction);
    if (!(t > 0))
      continue;
    std::vector<float> lower;
    std::ostringstream sparse;
    sparse.precision(9); // floats read back exactly
    for (int i = 1; i < n; ++i)
      for (int j = 0; j < i; ++j) {
        lower.push_back(d[std::size_t(i)][std::size_t(j)]);
        sparse << i << " " << j << " " << d[std::size_t(i)][std::size_t(j)] << "\n";
      }
    std::istringstream sparseText(sparse.str());
    const RipsInput inputs[] = {fromPoints(points, dim), fromLowerDistances(lower),
                                readRipsInput(sparseText, InputFormat::Sparse, "x")};
    for (const RipsInput& input : inputs) {
      const std::string tag =
          "trial " + std::to_string(trial) + " " + inputFormatName(input.format);
      const Estimate e = estimate(input, parametersOf(maxDim, double(t)));
      ASSERT_EQ(e.simplices.size(), std::size_t(maxDim) + 2) << tag;
      EXPECT_EQ(e.threshold, t) << tag;
      EXPECT_EQ(e.simplices[0], n) << tag;
      EXPECT_EQ(e.simplices[1], double(cliques(d, t, 2))) << tag;
      // the triangles exactly (a small cloud), the dimensions above bounded
      EXPECT_EQ(e.simplices[2], double(cliques(d, t, 3))) << tag;
      for (int k = 3; k <= maxDim + 1; ++k) {
        const double exact = double(cliques(d, t, k + 1));
        EXPECT_GE(e.simplices[std::size_t(k)], exact) << tag << " dim " << k;
        strict += e.simplices[std::size_t(k)] > exact;
      }
      ASSERT_EQ(e.bytes.size(), std::size_t(maxDim) + 1) << tag;
      for (int D = 1; D <= maxDim; ++D) {
        EXPECT_GE(e.bytes[std::size_t(D)], e.bytes[std::size_t(D - 1)]) << tag;
        EXPECT_GE(e.maxBytes[std::size_t(D)], e.bytes[std::size_t(D)]) << tag;
      }
    }
  }
  EXPECT_GT(strict, 0); // the bound is not always exact (and the test can tell)
}

// On a complete graph (every distance 1: the enclosing radius is the diameter) the
// bound is exact: C(n, k + 1) simplices of dimension k.
TEST(RipsEstimate, ACompleteGraphIsCountedExactly) {
  const int n = 11;
  const RipsInput input = fromLowerDistances(std::vector<float>(n * (n - 1) / 2, 1.0f));
  const Estimate e = estimate(input, parametersOf(4));
  for (int k = 0; k <= 5; ++k)
    EXPECT_EQ(e.simplices[std::size_t(k)], binomial(n, k + 1)) << k;
}

// A run over the budget is refused before it starts, naming its estimate, the budget,
// the largest dimension that fits and the largest threshold at which it fits; both
// suggestions run within the same budget, and the bars there equal an unlimited run's.
TEST(RipsEstimate, ARunOverTheBudgetIsRefusedWithWhatFits) {
  std::mt19937 rng(11);
  const RipsInput cloud = fromPoints(randomCloud(rng, 70, 3, false), 3);
  const Estimate full = estimate(cloud, parametersOf(3));
  // Between what dimension 1 and dimension 3 need.
  const double budget = std::sqrt(full.maxBytes[1] * full.bytes[3]);
  ASSERT_LT(full.maxBytes[1], budget);
  ASSERT_GT(full.bytes[3], budget);
  std::string message;
  try {
    Result r;
    RunReport report;
    execute(cloud, parametersOf(3, INFINITY, budget), Monitor{}, r, report);
    FAIL() << "no error";
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("up to dimension 3 would need about " + byteSize(full.bytes[3])),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("memory budget of " + byteSize(budget)), std::string::npos)
      << message;
  EXPECT_NE(message.find("70 points; under the threshold"), std::string::npos) << message;
  int fits = -1; // the largest dimension that fits for certain
  for (int D = 0; D <= 3; ++D)
    fits = full.maxBytes[std::size_t(D)] <= budget ? D : fits;
  EXPECT_NE(message.find("at this threshold dimension " + std::to_string(fits) + " fits"),
            std::string::npos)
      << message;
  const double t = numberAfter(message, "fits with a threshold of at most ");
  ASSERT_TRUE(t > 0 && t < full.threshold) << message;
  // Both suggestions run within the budget.
  for (const auto& [maxDim, threshold] :
       {std::pair<int, double>{fits, INFINITY}, std::pair<int, double>{3, t}}) {
    Result limited, unlimited;
    RunReport report;
    EXPECT_NO_THROW(execute(cloud, parametersOf(maxDim, threshold, budget), Monitor{},
                            limited, report))
        << maxDim << " " << threshold;
    execute(cloud, parametersOf(maxDim, threshold), Monitor{}, unlimited, report);
    EXPECT_EQ(limited.intervals.size(), unlimited.intervals.size());
    for (std::size_t k = 0; k < limited.intervals.size(); ++k)
      EXPECT_EQ(limited.intervals[k].size(), unlimited.intervals[k].size()) << k;
  }
  // The threshold found is the largest that fits, to a step: a bit more does not.
  const Estimate above = estimate(cloud, parametersOf(3, t * 1.05));
  EXPECT_GT(above.maxBytes[3], budget);
  EXPECT_LE(estimate(cloud, parametersOf(3, t)).maxBytes[3], budget);
}

// The columns of the top dimension are not in the estimate: they count against what is
// left of the budget as they are made, and stop the run when they outgrow it.
TEST(RipsEstimate, ColumnsOutgrowingTheBudgetStopTheRun) {
  std::mt19937 rng(5);
  const RipsInput cloud = fromPoints(randomCloud(rng, 40, 3, true), 3);
  const Estimate e = estimate(cloud, parametersOf(2));
  Result r;
  RunReport report;
  // Room for two columns.
  test::expectError(
      [&] {
        execute(cloud, parametersOf(2, INFINITY, e.bytes[2] + 64), Monitor{}, r, report);
      },
      "the columns of dimension 2 outgrow the memory budget");
  EXPECT_NO_THROW(
      execute(cloud, parametersOf(2, INFINITY, e.bytes[2] * 2), Monitor{}, r, report));
}

// A sparse file's points are bounded by what it names; a gap of isolated points up to
// that many is a valid input.
TEST(RipsEstimate, ASparseFileCannotNameAHugePointCount) {
  std::istringstream huge("0 100000000 1\n");
  test::expectError([&] { readRipsInput(huge, InputFormat::Sparse, "'x'"); },
                    "the point index 100000000 makes 100000001 points, but the file "
                    "names only 2 of them");
  std::istringstream gap("0 1 1\n5 6 1\n");
  const RipsInput input = readRipsInput(gap, InputFormat::Sparse, "'x'");
  EXPECT_EQ(input.numberOfPoints, 7);
  Result r;
  RunReport report;
  execute(input, parametersOf(1), Monitor{}, r, report);
  // components {0,1}, {2}, {3}, {4}, {5,6}
  EXPECT_EQ(std::count_if(r.intervals[0].begin(), r.intervals[0].end(),
                          [](const Interval& i) { return std::isinf(i.death); }),
            5);
}

TEST(RipsEstimate, BadBudgetAndAbort) {
  std::mt19937 rng(7);
  const RipsInput cloud = fromPoints(randomCloud(rng, 30, 2, false), 2);
  Result r;
  RunReport report;
  test::expectError(
      [&] { execute(cloud, parametersOf(1, INFINITY, 0), Monitor{}, r, report); },
      "memory budget must be > 0");
  test::expectError(
      [&] { execute(cloud, parametersOf(1, INFINITY, NAN), Monitor{}, r, report); },
      "memory budget must be > 0");
  Monitor abort;
  abort.abortRequested = [] { return true; };
  EXPECT_THROW(estimate(cloud, parametersOf(1), abort), Aborted);
}
