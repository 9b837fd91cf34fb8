// Rips persistence (core/rips_persistence) against oracles written here: binomials by
// the multiplicative formula, colexicographic ranks by sorting subsets, components by
// label propagation, the enclosing radius by its definition, and barcodes by the
// textbook reduction of the full boundary matrix over Z/2 on tiny clouds.
#include "UnitHelpers.h"

#include "core/common/BackendSelection.h"

#include "core/rips_persistence/RipsCombinatorics.h"
#include "core/rips_persistence/RipsHostTwin.h"
#include "core/rips_persistence/RipsInput.h"
#include "core/rips_persistence/RipsPersistence.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace topogpu;
using namespace topogpu::rips_persistence;

namespace {

unsigned __int128 binomialByProduct(int n, int k) {
  if (k < 0 || k > n)
    return 0;
  unsigned __int128 c = 1;
  for (int j = 0; j < k; ++j)
    c = c * unsigned(n - j) / unsigned(j + 1);
  return c;
}

// All k-subsets of {0..n-1} (vertices decreasing), in colexicographic order.
std::vector<std::vector<SimplexId>> colexSubsets(int n, int k) {
  std::vector<std::vector<SimplexId>> all;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) != k)
      continue;
    std::vector<SimplexId> s;
    for (int v = n - 1; v >= 0; --v) {
      if (mask & (1u << v))
        s.push_back(v);
    }
    all.push_back(s);
  }
  // colex: compare the largest vertices first
  std::sort(all.begin(), all.end());
  return all;
}

struct Bar {
  int dim;
  double birth, death;
};

// The oracle: every simplex of dimension <= maxDim + 1 with diameter <= threshold,
// sorted by (diameter, dimension, vertices), the boundary matrix reduced column by
// column (Z/2, sets of row positions), bars read from the pivots; unpaired simplices of
// dimension <= maxDim are the essential classes.
std::vector<Bar> bruteForceBarcode(const std::vector<std::vector<double>>& d, int maxDim,
                                   double threshold,
                                   std::vector<long>* pairCounts = nullptr) {
  const int n = int(d.size());
  struct Simplex {
    std::vector<int> v;
    double diameter;
  };
  std::vector<Simplex> simplices;
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    const int size = __builtin_popcount(mask);
    if (size > maxDim + 2)
      continue;
    Simplex s;
    for (int v = 0; v < n; ++v) {
      if (mask & (1u << v))
        s.v.push_back(v);
    }
    s.diameter = 0;
    for (int a : s.v)
      for (int b : s.v)
        s.diameter = std::max(s.diameter, d[a][b]);
    if (s.diameter <= threshold)
      simplices.push_back(s);
  }
  std::sort(simplices.begin(), simplices.end(), [](const Simplex& a, const Simplex& b) {
    if (a.diameter != b.diameter)
      return a.diameter < b.diameter;
    if (a.v.size() != b.v.size())
      return a.v.size() < b.v.size();
    return a.v < b.v;
  });
  std::map<std::vector<int>, int> position;
  for (int i = 0; i < int(simplices.size()); ++i)
    position[simplices[i].v] = i;
  std::vector<std::set<int>> columns(simplices.size());
  for (int i = 0; i < int(simplices.size()); ++i) {
    const auto& v = simplices[i].v;
    if (v.size() < 2)
      continue;
    for (std::size_t drop = 0; drop < v.size(); ++drop) {
      std::vector<int> face;
      for (std::size_t j = 0; j < v.size(); ++j)
        if (j != drop)
          face.push_back(v[j]);
      columns[i].insert(position.at(face));
    }
  }
  std::map<int, int> lowOwner; // pivot row -> column
  std::vector<bool> paired(simplices.size(), false);
  std::vector<Bar> bars;
  for (int i = 0; i < int(simplices.size()); ++i) {
    while (!columns[i].empty()) {
      const int low = *columns[i].rbegin();
      const auto it = lowOwner.find(low);
      if (it == lowOwner.end())
        break;
      for (int r : columns[it->second]) {
        if (!columns[i].erase(r))
          columns[i].insert(r);
      }
    }
    if (!columns[i].empty()) {
      const int low = *columns[i].rbegin();
      lowOwner[low] = i;
      paired[low] = paired[i] = true;
      const int dim = int(simplices[low].v.size()) - 1;
      if (pairCounts != nullptr && dim <= maxDim)
        ++(*pairCounts)[std::size_t(dim)];
      if (simplices[i].diameter > simplices[low].diameter)
        bars.push_back({dim, simplices[low].diameter, simplices[i].diameter});
    }
  }
  for (int i = 0; i < int(simplices.size()); ++i) {
    const int dim = int(simplices[i].v.size()) - 1;
    if (!paired[i] && dim <= maxDim)
      bars.push_back(
          {dim, simplices[i].diameter, std::numeric_limits<double>::infinity()});
  }
  return bars;
}

std::vector<std::tuple<int, float, float>> sorted(const std::vector<Bar>& bars) {
  std::vector<std::tuple<int, float, float>> out;
  out.reserve(bars.size());
  for (const auto& b : bars)
    out.emplace_back(b.dim, float(b.birth), float(b.death));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::tuple<int, float, float>> sorted(const Result& result) {
  std::vector<std::tuple<int, float, float>> out;
  for (std::size_t dim = 0; dim < result.intervals.size(); ++dim)
    for (const auto& i : result.intervals[dim])
      out.emplace_back(int(dim), i.birth, i.death);
  std::sort(out.begin(), out.end());
  return out;
}

// Distances as floats (the module's precision) so that both sides see the same ties.
std::vector<std::vector<double>> matrixOf(const std::vector<double>& points, int dim) {
  const int n = int(points.size()) / dim;
  std::vector<std::vector<double>> d(n, std::vector<double>(n, 0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < dim; ++k)
        s += (points[i * dim + k] - points[j * dim + k]) *
             (points[i * dim + k] - points[j * dim + k]);
      d[i][j] = double(float(std::sqrt(s)));
    }
  return d;
}

// A matrix's lower triangle row by row (i > j), as floats: RipsInput's lower-distance
// layout.
std::vector<float> lowerOf(const std::vector<std::vector<double>>& d) {
  std::vector<float> lower;
  for (std::size_t i = 1; i < d.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      lower.push_back(float(d[i][j]));
  return lower;
}

double enclosingRadiusByDefinition(const std::vector<std::vector<double>>& d) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& row : d)
    best = std::min(best, *std::max_element(row.begin(), row.end()));
  return best;
}

Result run(const RipsInput& input, int maxDim, double threshold = INFINITY,
           SparseMode sparse = SparseMode::Auto, int threads = 0) {
  Parameters p;
  p.maxDimension = maxDim;
  p.threshold = threshold;
  p.sparse = sparse;
  p.threads = threads;
  Result result;
  RunReport report;
  execute(input, p, Monitor{}, result, report);
  return result;
}

} // namespace

TEST(RipsCombinatorics, BinomialTableMatchesProducts) {
  const BinomialTable table(60, 8);
  for (int i = 0; i <= 60; ++i)
    for (int k = 0; k <= 8; ++k)
      EXPECT_EQ((unsigned __int128)table(i, k), binomialByProduct(i, k)) << i << " " << k;
}

TEST(RipsCombinatorics, IndexIsTheColexRankAndDecodes) {
  const int n = 9;
  const BinomialTable table(n, 5);
  for (int k = 1; k <= 5; ++k) {
    const auto subsets = colexSubsets(n, k);
    for (std::size_t rank = 0; rank < subsets.size(); ++rank) {
      // std::sort on decreasing vertex lists is exactly the colex order
      EXPECT_EQ(simplexIndex(table, subsets[rank].data(), k), SimplexId(rank));
      std::vector<SimplexId> back(k);
      simplexVertices(table, SimplexId(rank), k, back.data());
      EXPECT_EQ(back, subsets[rank]);
    }
  }
}

TEST(RipsCombinatorics, OverflowIsAClearError) {
  // C(100000, 7) ~ 2e31 > 2^63
  test::expectError([] { BinomialTable(100000, 7); }, "2^63");
  // C(3037000500, 2) is just beyond 2^63 - 1; C(3037000499, 2) fits (checked, not built)
  test::expectError([] { BinomialTable(3037000500LL * 2, 2); }, "2^63");
  EXPECT_NO_THROW(BinomialTable(5000, 5)); // C(5000,5) ~ 2.6e16
  std::vector<double> points(std::size_t{200} * 2);
  for (std::size_t i = 0; i < points.size(); ++i)
    points[i] = double(i % 17);
  const RipsInput input = fromPoints(points, 2);
  test::expectError([&] { run(input, 40); }, "2^63"); // C(200, 42) ~ 1e43
}

TEST(RipsCombinatorics, UnionFindMatchesLabelPropagation) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 30;
    UnionFind uf(n);
    std::vector<int> label(n);
    std::iota(label.begin(), label.end(), 0);
    for (int step = 0; step < 25; ++step) {
      const int a = int(rng() % n), b = int(rng() % n);
      const bool separate = label[a] != label[b];
      EXPECT_EQ(uf.unite(a, b), separate);
      const int from = label[b], to = label[a];
      for (int& l : label)
        if (l == from)
          l = to;
      for (int x = 0; x < n; ++x)
        for (int y = 0; y < n; y += 7)
          EXPECT_EQ(uf.find(x) == uf.find(y), label[x] == label[y]);
    }
  }
}

TEST(RipsPersistence, EnclosingRadiusByDefinition) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0, 10);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<double> points(std::size_t{15} * 3);
    for (double& x : points)
      x = u(rng);
    const RipsInput input = fromPoints(points, 3);
    EXPECT_FLOAT_EQ(enclosingRadius(input),
                    float(enclosingRadiusByDefinition(matrixOf(points, 3))));
  }
}

TEST(RipsPersistence, BarcodesEqualTheBruteForceReduction) {
  std::mt19937 rng(7);
  int cases = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 5 + trial % 8; // 5..12 points
    const int dim = 2 + trial % 2;
    const bool ties = trial % 2 == 0; // integer coordinates: many equal diameters
    std::vector<double> points(std::size_t(n * dim));
    for (double& x : points)
      x = ties ? double(rng() % 4) : std::uniform_real_distribution<double>(0, 1)(rng);
    const auto d = matrixOf(points, dim);
    const int maxDim = std::min(n - 2, 1 + trial % 2);
    const double radius = enclosingRadiusByDefinition(d);
    // with the default (enclosing radius) and with a smaller threshold
    for (const double fraction : {1.0, 0.6}) {
      const double threshold = radius * fraction;
      if (threshold <= 0)
        continue;
      // Pairs, zero-length ones included, number rank(boundary) whatever the tie-break.
      std::vector<long> pairCounts(std::size_t(maxDim + 1), 0);
      const auto expected =
          sorted(bruteForceBarcode(d, maxDim, double(float(threshold)), &pairCounts));
      const RipsInput cloud = fromPoints(points, dim);
      for (const SparseMode mode : {SparseMode::Dense, SparseMode::Sparse}) {
        const Result result = run(
            cloud, maxDim, fraction == 1.0 ? INFINITY : double(float(threshold)), mode);
        EXPECT_EQ(sorted(result), expected)
            << "trial " << trial << " fraction " << fraction;
        for (int k = 0; k <= maxDim; ++k)
          EXPECT_EQ(result.stats[std::size_t(k)].pairs, pairCounts[std::size_t(k)])
              << "trial " << trial << " dimension " << k;
        ++cases;
      }
    }
  }
  EXPECT_GE(cases, 100);
}

// Long columns of a dense input keep only their entries up to a bound, and enumerate
// the others again when they run out (RipsLockFreeReduction.h, maybeTruncate and
// nextPivot). Parameters::boundEveryColumn does that to every column after its first
// addition: the barcodes stay those of the brute-force reduction (with the enclosing
// radius, and with a smaller threshold, where columns reduce to zero through every
// extension), on one thread and under oversubscription, and the cocycles those of the
// default path.
TEST(RipsPersistence, BoundedColumnsEqualTheBruteForceReduction) {
  std::mt19937 rng(11);
  int cases = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 8 + trial % 8; // 8..15 points
    const int dim = 2 + trial % 2;
    const bool ties = trial % 3 == 0;
    std::vector<double> points(std::size_t(n * dim));
    for (double& x : points)
      x = ties ? double(rng() % 4) : std::uniform_real_distribution<double>(0, 1)(rng);
    const auto d = matrixOf(points, dim);
    const int maxDim = std::min(n - 2, 2);
    const double radius = enclosingRadiusByDefinition(d);
    const RipsInput cloud = fromPoints(points, dim);
    for (const double fraction : {1.0, 0.7}) {
      const double threshold = radius * fraction;
      std::vector<long> pairCounts(std::size_t(maxDim + 1), 0);
      const auto expected =
          sorted(bruteForceBarcode(d, maxDim, double(float(threshold)), &pairCounts));
      const double given = fraction == 1.0 ? INFINITY : double(float(threshold));
      Parameters p;
      p.maxDimension = maxDim;
      p.threshold = given;
      p.sparse = SparseMode::Dense;
      p.cocycles = true;
      p.threads = 1;
      Result plain, bounded;
      RunReport report;
      execute(cloud, p, Monitor{}, plain, report);
      p.boundEveryColumn = true;
      execute(cloud, p, Monitor{}, bounded, report);
      Parameters over = p;
      over.cocycles = false;
      over.threads = 8;
      Result oversubscribed;
      execute(cloud, over, Monitor{}, oversubscribed, report);
      for (const Result* r : {&bounded, &oversubscribed}) {
        EXPECT_EQ(sorted(*r), expected) << "trial " << trial << " fraction " << fraction;
        for (int k = 0; k <= maxDim; ++k)
          EXPECT_EQ(r->stats[std::size_t(k)].pairs, pairCounts[std::size_t(k)])
              << "trial " << trial << " dimension " << k;
      }
      ASSERT_EQ(bounded.representatives.size(), plain.representatives.size());
      for (std::size_t r = 0; r < plain.representatives.size(); ++r)
        EXPECT_EQ(bounded.representatives[r].simplices,
                  plain.representatives[r].simplices)
            << "trial " << trial << " representative " << r;
      ++cases;
    }
  }
  EXPECT_GE(cases, 200);
}

TEST(RipsPersistence, FormatsAgree) {
  std::mt19937 rng(5);
  std::vector<double> points(std::size_t{12} * 2);
  for (double& x : points)
    x = double(rng() % 5);
  const auto d = matrixOf(points, 2);
  const int n = 12;
  std::ostringstream full, lower, upper, sparse;
  full.precision(9);
  lower.precision(9);
  upper.precision(9);
  sparse.precision(9);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      full << d[i][j] << (j + 1 < n ? " " : "\n");
      if (j < i)
        lower << d[i][j] << ",";
      if (j > i)
        upper << d[i][j] << " ";
      if (j < i)
        sparse << i << " " << j << " " << d[i][j] << "\n";
    }
    lower << "\n";
    upper << "\n";
  }
  const auto expected = sorted(run(fromPoints(points, 2), 2));
  const std::pair<InputFormat, std::string> files[] = {
      {InputFormat::Distance, full.str()},
      {InputFormat::LowerDistance, lower.str()},
      {InputFormat::UpperDistance, upper.str()}};
  for (const auto& [format, text] : files) {
    std::istringstream in(text);
    EXPECT_EQ(sorted(run(readRipsInput(in, format, "test"), 2)), expected)
        << inputFormatName(format);
  }
  // The sparse format has no enclosing radius of its own unless complete: it is, here.
  std::istringstream in(sparse.str());
  EXPECT_EQ(sorted(run(readRipsInput(in, InputFormat::Sparse, "test"), 2)), expected);
}

// Diagonal lines 'i i d' of a sparse file are dropped (every point is born at 0) and
// noted with their code; the points they name are still points.
TEST(RipsPersistence, SparseDiagonalEntriesAreNotedWithTheirCode) {
  std::istringstream plain("1 0 1\n2 0 2\n2 1 1.5\n");
  std::istringstream diagonal("0 0 5\n1 0 1\n2 0 2\n2 1 1.5\n2 2 0.5\n");
  const RipsInput without = readRipsInput(plain, InputFormat::Sparse, "plain");
  const RipsInput with = readRipsInput(diagonal, InputFormat::Sparse, "diagonal");
  EXPECT_TRUE(without.notes.empty());
  ASSERT_EQ(with.notes.size(), 1u);
  EXPECT_EQ(with.notes[0].code, WarningCode::DiagonalEntriesIgnored);
  EXPECT_EQ(with.numberOfPoints, 3);
  EXPECT_EQ(sorted(run(with, 1)), sorted(run(without, 1)));
}

TEST(RipsPersistence, ThreadsDoNotChangeTheBarcode) {
  std::mt19937 rng(9);
  std::vector<double> points(std::size_t{60} * 3);
  for (double& x : points)
    x = std::uniform_real_distribution<double>(0, 1)(rng);
  const RipsInput cloud = fromPoints(points, 3);
  const auto one = sorted(run(cloud, 2, INFINITY, SparseMode::Auto, 1));
  EXPECT_EQ(sorted(run(cloud, 2, INFINITY, SparseMode::Auto, 2)), one);
  EXPECT_EQ(sorted(run(cloud, 2, INFINITY, SparseMode::Sparse, 0)), one);
}

// The lock-free reduction under more threads than cores (more interleavings): the same
// barcode and pair counts as one thread, run after run.
TEST(RipsPersistence, LockFreeReductionIsStableUnderOversubscription) {
  std::mt19937 rng(21);
  std::vector<double> points(std::size_t{110} * 3);
  for (double& x : points)
    x = double(rng() % 5); // ties: many columns compete for the same pivots
  const RipsInput cloud = fromPoints(points, 3);
  const Result serial = run(cloud, 2, INFINITY, SparseMode::Auto, 1);
  tbb::task_arena arena(8);
  for (int repeat = 0; repeat < 4; ++repeat) {
    Result parallel;
    arena.execute([&] { parallel = run(cloud, 2, INFINITY, SparseMode::Auto, 8); });
    EXPECT_EQ(sorted(parallel), sorted(serial));
    for (int k = 0; k <= 2; ++k)
      EXPECT_EQ(parallel.stats[std::size_t(k)].pairs, serial.stats[std::size_t(k)].pairs);
  }
}

TEST(RipsPersistence, ApparentPairsAreMostPairsOnACloud) {
  std::mt19937 rng(13);
  std::vector<double> points(std::size_t{80} * 3);
  for (double& x : points)
    x = std::uniform_real_distribution<double>(0, 1)(rng);
  const Result result = run(fromPoints(points, 3), 2);
  for (int dim = 1; dim <= 2; ++dim) {
    const auto& s = result.stats[std::size_t(dim)];
    EXPECT_GT(s.apparentPercent(), 50.0) << dim; // the paper reports ~90-99%
    EXPECT_LE(s.apparentPairs, s.pairs);
    EXPECT_EQ(s.pairs + s.essential, s.columns)
        << dim; // every column pairs or is essential
  }
}

// Rips persistence commutes with scaling: a cloud (and its matrix, and its sparse file)
// scaled to far beyond single precision (1e39, 1e300) or far below it (1e-50, 1e-300)
// has the bars of the brute force computed in double on the scaled distances, within
// single precision's rounding; a connected set keeps one essential class in dimension 0.
TEST(RipsPersistence, BarsAreRightAtEveryScale) {
  std::mt19937 rng(61);
  for (int trial = 0; trial < 8; ++trial) {
    const int n = 7 + trial % 4, dim = 2 + trial % 2;
    std::vector<double> unit(std::size_t(n * dim));
    for (double& x : unit)
      x = std::uniform_real_distribution<double>(0, 1)(rng);
    for (const double factor : {1e39, 1e300, 1e-50, 1e-300, 0x1p-140}) {
      std::vector<double> points = unit;
      for (double& x : points)
        x *= factor;
      // The oracle in double: the distances of the scaled points, unrounded.
      std::vector<std::vector<double>> d(
          static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n)));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double s = 0;
          for (int k = 0; k < dim; ++k) {
            const double x =
                unit[std::size_t(i * dim + k)] - unit[std::size_t(j * dim + k)];
            s += x * x;
          }
          d[std::size_t(i)][std::size_t(j)] = std::sqrt(s) * factor;
        }
      const std::vector<Bar> expected = bruteForceBarcode(d, 2, INFINITY);
      std::ostringstream lower, sparse;
      lower.precision(17);
      sparse.precision(17);
      for (int i = 1; i < n; ++i)
        for (int j = 0; j < i; ++j) {
          lower << d[std::size_t(i)][std::size_t(j)] << (j + 1 < i ? "," : "\n");
          sparse << i << " " << j << " " << d[std::size_t(i)][std::size_t(j)] << "\n";
        }
      std::istringstream lowerText(lower.str()), sparseText(sparse.str());
      const RipsInput inputs[] = {
          fromPoints(points, dim),
          readRipsInput(lowerText, InputFormat::LowerDistance, "x"),
          readRipsInput(sparseText, InputFormat::Sparse, "x")};
      for (const RipsInput& input : inputs) {
        const std::string tag = "trial " + std::to_string(trial) + " factor " +
                                std::to_string(factor) + " " +
                                inputFormatName(input.format);
        const Result r = run(input, 2);
        std::vector<std::tuple<int, double, double>> got, want;
        for (std::size_t k = 0; k < r.intervals.size(); ++k)
          for (const Interval& bar : r.intervals[k])
            got.emplace_back(int(k), bar.birth, bar.death);
        for (const Bar& bar : expected)
          want.emplace_back(bar.dim, bar.birth, bar.death);
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        ASSERT_EQ(got.size(), want.size()) << tag;
        for (std::size_t b = 0; b < got.size(); ++b) {
          EXPECT_EQ(std::get<0>(got[b]), std::get<0>(want[b])) << tag;
          for (const auto& [x, y] :
               {std::pair<double, double>{std::get<1>(got[b]), std::get<1>(want[b])},
                std::pair<double, double>{std::get<2>(got[b]), std::get<2>(want[b])}}) {
            if (std::isinf(y))
              EXPECT_TRUE(std::isinf(x)) << tag;
            else
              EXPECT_LE(std::fabs(x - y), 1e-6 * std::fabs(y))
                  << tag << " " << x << " " << y;
          }
        }
        EXPECT_EQ(std::count_if(r.intervals[0].begin(), r.intervals[0].end(),
                                [](const Interval& i) { return std::isinf(i.death); }),
                  1)
            << tag; // one component
        EXPECT_TRUE(std::isfinite(r.enclosingRadius) && r.enclosingRadius > 0) << tag;
      }
    }
  }
}

// Numbers beyond what single precision can hold together are refused by name; numbers
// double precision reads (1e-320, a subnormal) are numbers.
TEST(RipsPersistence, ValuesOutsideThePrecisionAreNamed) {
  const auto parse = [](const std::string& text, InputFormat format) {
    std::istringstream in(text);
    return readRipsInput(in, format, "'x'");
  };
  // 1e-320 is a number; tiny coordinates are scaled like any others.
  const RipsInput tiny = parse("0 0\n1e-320 0\n0 2e-320\n", InputFormat::PointCloud);
  const Result r = run(tiny, 1);
  ASSERT_EQ(r.intervals[0].size(), 3u);
  EXPECT_NEAR(r.intervals[0][0].death / 1e-320, 1.0, 1e-4); // a subnormal: ~5 digits
  test::expectError([&] { parse("1e-400 0\n1 1\n", InputFormat::PointCloud); },
                    "'1e-400' is below double precision's range");
  test::expectError([&] { parse("1e400 0\n1 1\n", InputFormat::PointCloud); },
                    "'1e400' is beyond double precision's range");
  test::expectError([&] { parse("inf 0\n1 1\n", InputFormat::PointCloud); },
                    "NaN or infinite");
  test::expectError(
      [&] { parse("1e-300\n1e300 1\n", InputFormat::LowerDistance); },
      "the distances span 1e-300 (row 1, column 0) to 1e+300 (row 2, column 0)");
  test::expectError([&] { parse("0 1 1e-300\n1 2 1e300\n", InputFormat::Sparse); },
                    "the distances span 1e-300 (the edge 0 1) to 1e+300 (the edge 1 2)");
  test::expectError([&] { parse("0 0\n1e-320 0\n0 5\n", InputFormat::PointCloud); },
                    "points 0 and 1 are 9.99989e-321 apart");
  test::expectError(
      [] {
        fromDoubleLowerDistances({1.0, -2.0, 3.0});
      },
      "finite and >= 0");
  // Points far apart in one coordinate and close in another are no problem.
  const RipsInput apart = parse("0 0\n1e-320 5\n3 1\n", InputFormat::PointCloud);
  EXPECT_EQ(run(apart, 1).intervals[0].size(), 3u);
}

TEST(RipsPersistence, BadInput) {
  const auto parse = [](const std::string& text, InputFormat format) {
    std::istringstream in(text);
    return readRipsInput(in, format, "'x'");
  };
  test::expectError([&] { parse("0 1\n2 0\n", InputFormat::Distance); }, "not symmetric");
  test::expectError([&] { parse("0 -1\n-1 0\n", InputFormat::Distance); }, "negative");
  test::expectError([&] { parse("0 nan\nnan 0\n", InputFormat::Distance); }, "NaN");
  test::expectError([&] { parse("0 1 2\n1 0 3\n", InputFormat::Distance); }, "square");
  test::expectError([&] { parse("1 2\n3\n", InputFormat::PointCloud); }, "ragged");
  test::expectError([&] { parse("", InputFormat::PointCloud); }, "empty");
  test::expectError([&] { parse("\n\n", InputFormat::LowerDistance); }, "empty");
  test::expectError([&] { parse("1 2\n", InputFormat::PointCloud); }, "single point");
  test::expectError([&] { parse("1,\n2,3\n4\n", InputFormat::LowerDistance); },
                    "n(n-1)/2");
  test::expectError([&] { parse("1 x\n", InputFormat::PointCloud); }, "not a number");
  test::expectError([&] { parse("0 1\n", InputFormat::Sparse); }, "'i j distance'");
  test::expectError([&] { parse("0 1.5 2\n", InputFormat::Sparse); }, "point index");
  test::expectError([&] { parse("0 1 2\n1 0 3\n", InputFormat::Sparse); },
                    "not symmetric");
  test::expectError([] { fromLowerDistances({1.0f, -2.0f, 3.0f}); }, "finite and >= 0");
  const RipsInput three = fromLowerDistances({1, 1, 1});
  test::expectError([&] { run(three, 2); }, "needs at least 4 points");
  test::expectError([&] { run(three, 1, 0.0); }, "threshold must be > 0");
  test::expectError([&] { run(three, 1, std::nan("")); }, "threshold must be > 0");
  test::expectError([&] { run(three, -1); }, "dimension must be >= 0");
  test::expectError([&] { run(three, 65); },
                    "dimension must be >= 0 and at most 64, got 65");
  test::expectError([&] { run(three, 1, INFINITY, SparseMode::Auto, -1); },
                    "threads must be >= 0 (0: all cores) and at most 4096, got -1");
  test::expectError([&] { run(three, 1, INFINITY, SparseMode::Auto, 4097); },
                    "at most 4096, got 4097");
}

TEST(RipsPersistence, ProgressAndAbort) {
  std::vector<double> points(std::size_t{30} * 2);
  for (std::size_t i = 0; i < points.size(); ++i)
    points[i] = double((i * 7919) % 31);
  const RipsInput cloud = fromPoints(points, 2);
  test::expectProgressAndAbort([&](const Monitor& monitor) {
    Parameters p;
    p.maxDimension = 2;
    Result result;
    RunReport report;
    execute(cloud, p, monitor, result, report);
  });
}

// Long stages report progress and check for an abort as they go (ParaView's progress
// bar and its abort button): an abort requested at any point of the bar stops the run
// within a fifth of it, whatever the stage (distances, estimate, edges, dimension 0,
// the apparent pairs, the reduction, the assembly of a dimension above). One thread:
// the reduction's checks are the calling thread's, which with several threads may
// trail the others (a long column, or a busy machine's scheduling).
TEST(RipsPersistence, AbortIsHeardInEveryStage) {
  std::mt19937 rng(31);
  std::vector<double> points(std::size_t{900} * 3);
  for (double& x : points)
    x = std::uniform_real_distribution<double>(0, 1)(rng);
  const RipsInput cloud = fromPoints(points, 3);
  for (const int maxDim : {1, 2}) {
    Parameters p;
    p.maxDimension = maxDim;
    p.threshold = maxDim == 2 ? 0.3 : INFINITY;
    p.threads = 1;
    std::vector<double> seen;
    Monitor monitor;
    monitor.progress = [&](double f) { seen.push_back(f); };
    Result r;
    RunReport report;
    execute(cloud, p, monitor, r, report);
    const auto inside = [&](double a, double b) {
      return std::count_if(seen.begin(), seen.end(),
                           [&](double f) { return f > a && f < b; });
    };
    EXPECT_GE(inside(0.0, 0.1), 20) << maxDim; // distances, estimate, edges, dim 0
    EXPECT_GE(inside(0.1, 1.0), 20) << maxDim; // the dimensions above
    for (const double at : {0.01, 0.03, 0.05, 0.08, 0.12, 0.2, 0.35, 0.5, 0.7, 0.9}) {
      double last = 0;
      Monitor abort;
      abort.progress = [&](double f) { last = f; };
      abort.abortRequested = [&] { return last >= at; };
      EXPECT_THROW(execute(cloud, p, abort, r, report), Aborted) << maxDim << " " << at;
      EXPECT_LT(last, at + 0.2) << maxDim << " " << at;
    }
  }
}

// ---- The GPU backend's logic, through its host twin (cuda/rips_persistence) ----

namespace {

Result runTwin(const RipsInput& input, int maxDim, double threshold, SparseMode sparse,
               std::size_t budget, RunReport& report,
               device::HostTwinCounts* counts = nullptr) {
  Parameters p;
  p.maxDimension = maxDim;
  p.threshold = threshold;
  p.sparse = sparse;
  Result result;
  const Monitor monitor;
  detail::executeWith(input, p, monitor, device::hostTwinFactory(budget, monitor, counts),
                      {}, result, report);
  return result;
}

// n points of the plane on a grid of `levels` integer coordinates (many equal
// distances), with the device's views of their distances and of the binomials up to
// maxK, and the diameter of a vertex list by definition (its longest edge).
struct TiedCloud {
  TiedCloud(std::mt19937& rng, int points, int levels, int maxK)
      : n(points), d(matrixOf(coordinates(rng, points, levels), 2)), lower(lowerOf(d)),
        table(n, maxK) {}
  TiedCloud(const TiedCloud&) = delete;
  TiedCloud& operator=(const TiedCloud&) = delete;

  static std::vector<double> coordinates(std::mt19937& rng, int points, int levels) {
    std::vector<double> xy(std::size_t(points) * 2);
    for (double& x : xy)
      x = double(rng() % unsigned(levels));
    return xy;
  }
  float diameter(const std::vector<SimplexId>& v) const {
    float m = 0;
    for (std::size_t a = 0; a < v.size(); ++a)
      for (std::size_t b = a + 1; b < v.size(); ++b)
        m = std::max(m, float(d[std::size_t(v[a])][std::size_t(v[b])]));
    return m;
  }

  const int n;
  const std::vector<std::vector<double>> d;
  const std::vector<float> lower;
  const BinomialTable table;
  const device::Binomials binomial{table.data(), n};
  const device::DenseDistances graph{n, lower.data()};
};

// Every bar in the order the backend produced it.
std::vector<std::tuple<int, float, float>> inOrder(const Result& result) {
  std::vector<std::tuple<int, float, float>> out;
  for (std::size_t dim = 0; dim < result.intervals.size(); ++dim)
    for (const auto& i : result.intervals[dim])
      out.emplace_back(int(dim), i.birth, i.death);
  return out;
}

} // namespace

// The device's column construction (counts, cofacets, clearing, apparent pairs,
// compaction, sorts, batches) run on the host: the same barcodes as the brute-force
// reduction, and the same pairs, apparent pairs and columns per dimension as the CPU
// backend, with an unlimited budget, budgets that split dimensions into batches, and
// budgets too small for a dimension (built on the CPU instead).
TEST(RipsGpuHostTwin, EqualsTheBruteForceAndTheCpu) {
  std::mt19937 rng(17);
  int batched = 0, declined = 0, cases = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 6 + trial % 8;
    const int dim = 2 + trial % 2;
    const bool ties = trial % 2 == 0;
    std::vector<double> points(std::size_t(n * dim));
    for (double& x : points)
      x = ties ? double(rng() % 4) : std::uniform_real_distribution<double>(0, 1)(rng);
    const auto d = matrixOf(points, dim);
    const int maxDim = std::min(n - 2, 1 + trial % 3);
    const double fraction = trial % 3 == 0 ? 0.7 : 1.0;
    const double threshold = enclosingRadiusByDefinition(d) * fraction;
    if (threshold <= 0)
      continue;
    std::vector<long> pairCounts(std::size_t(maxDim + 1), 0);
    const auto expected =
        sorted(bruteForceBarcode(d, maxDim, double(float(threshold)), &pairCounts));
    const RipsInput cloud = fromPoints(points, dim);
    const double t = fraction == 1.0 ? INFINITY : double(float(threshold));
    for (const SparseMode mode : {SparseMode::Dense, SparseMode::Sparse}) {
      const Result cpu = run(cloud, maxDim, t, mode);
      for (const std::size_t budget : {std::size_t(1) << 40, std::size_t(2500),
                                       std::size_t(1000), std::size_t(450)}) {
        RunReport report;
        const Result twin = runTwin(cloud, maxDim, t, mode, budget, report);
        const std::string tag = "trial " + std::to_string(trial) + " budget " +
                                std::to_string(budget) +
                                (mode == SparseMode::Sparse ? " sparse" : " dense");
        EXPECT_EQ(sorted(twin), expected) << tag;
        EXPECT_EQ(inOrder(twin), inOrder(cpu)) << tag; // same bars, same order
        for (int k = 1; k <= maxDim; ++k) {
          const auto& a = twin.stats[std::size_t(k)];
          const auto& b = cpu.stats[std::size_t(k)];
          EXPECT_EQ(a.pairs, pairCounts[std::size_t(k)]) << tag << " dim " << k;
          EXPECT_EQ(a.apparentPairs, b.apparentPairs) << tag << " dim " << k;
          EXPECT_EQ(a.columns, b.columns) << tag << " dim " << k;
          EXPECT_EQ(a.simplices, b.simplices) << tag << " dim " << k;
          EXPECT_EQ(a.essential, b.essential) << tag << " dim " << k;
          if (a.columnsBackend == "cpu") {
            ++declined;
            // A dimension the device could not hold says so.
            const std::string why =
                "dimension " + std::to_string(k) + " does not fit the device memory";
            EXPECT_TRUE(std::any_of(report.warnings.begin(), report.warnings.end(),
                                    [&](const Warning& w) {
                                      return w.code == WarningCode::RipsDimensionOnCpu &&
                                             w.text.find(why) != std::string::npos;
                                    }))
                << tag << " dim " << k;
          } else {
            EXPECT_EQ(a.columnsBackend, "gpu");
          }
          batched += a.batches > 1;
          if (budget == (std::size_t(1) << 40)) {
            EXPECT_TRUE(a.columnsBackend == "gpu" && a.batches == 1)
                << tag << " dim " << k;
          }
        }
        ++cases;
      }
    }
  }
  EXPECT_GE(cases, 600);
  EXPECT_GT(batched, 50);  // the small budgets did split dimensions
  EXPECT_GT(declined, 10); // and were too small for some
}

// The simplices a dimension keeps on the device for the next one: kept when they fit
// beside the batches, handed to the host when the next dimension then does not fit (its
// batches rerun with the whole budget, or the CPU builds it). Budgets swept across
// those cases, the bars and counts the CPU's each time.
TEST(RipsGpuHostTwin, KeptSimplicesAcrossBudgets) {
  std::mt19937 rng(41);
  device::HostTwinCounts counts;
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 8 + trial % 3;
    std::vector<double> points(std::size_t(n) * 3);
    for (double& x : points)
      x = std::uniform_real_distribution<double>(0, 1)(rng);
    const auto d = matrixOf(points, 3);
    const double t = double(float(enclosingRadiusByDefinition(d) * (0.5 + 0.05 * trial)));
    const RipsInput cloud = fromPoints(points, 3);
    const Result cpu = run(cloud, 3, t, SparseMode::Dense);
    for (std::size_t budget = 200; budget <= 4000; budget += 40) {
      RunReport report;
      const Result twin =
          runTwin(cloud, 3, t, SparseMode::Dense, budget, report, &counts);
      const std::string tag =
          "trial " + std::to_string(trial) + " budget " + std::to_string(budget);
      ASSERT_EQ(inOrder(twin), inOrder(cpu)) << tag;
      for (int k = 1; k <= 3; ++k) {
        EXPECT_EQ(twin.stats[std::size_t(k)].apparentPairs,
                  cpu.stats[std::size_t(k)].apparentPairs)
            << tag;
        EXPECT_EQ(twin.stats[std::size_t(k)].columns, cpu.stats[std::size_t(k)].columns)
            << tag;
        EXPECT_EQ(twin.stats[std::size_t(k)].simplices,
                  cpu.stats[std::size_t(k)].simplices)
            << tag;
      }
    }
  }
  EXPECT_GT(counts.kept, 100);
  EXPECT_GT(counts.fetched, 10);
}

TEST(RipsGpuHostTwin, AnInputFileThroughTheTwin) {
  const std::string path =
      std::string(TOPOGPU_SHARED_DATA_DIR) + "/rips/sphere_3_192.lower_distance_matrix";
  std::ifstream file(path);
  if (!file)
    GTEST_SKIP() << "no " << path;
  const RipsInput input = readRipsInput(file, InputFormat::LowerDistance, path);
  const Result cpu = run(input, 2);
  RunReport report;
  const Result twin =
      runTwin(input, 2, INFINITY, SparseMode::Auto, std::size_t(1) << 40, report);
  EXPECT_EQ(inOrder(twin), inOrder(cpu));
  for (int k = 1; k <= 2; ++k) {
    EXPECT_EQ(twin.stats[std::size_t(k)].apparentPairs,
              cpu.stats[std::size_t(k)].apparentPairs);
    EXPECT_GT(twin.stats[std::size_t(k)].apparentPercent(), 95.0); // the paper: ~99%
  }
}

// The cofacets made from a simplex (new vertex above its largest, diameter <= threshold)
// against all subsets ranked by sorting, and the clearing test against
// std::binary_search.
TEST(RipsGpuHostTwin, CofacetsAndClearingAgainstDefinitions) {
  std::mt19937 rng(3);
  const int n = 11;
  const TiedCloud cloud(rng, n, 6, 5);
  const auto& d = cloud.d;
  const device::Binomials& binomial = cloud.binomial;
  const device::DenseDistances& graph = cloud.graph;
  const float threshold = 4.5f;
  for (int k = 2; k <= 4; ++k) {
    const auto facets = colexSubsets(n, k);
    const auto cofacets = colexSubsets(n, k + 1);
    for (std::size_t r = 0; r < facets.size(); ++r) {
      const auto& f = facets[r];
      const float diameter = cloud.diameter(f);
      if (diameter > threshold)
        continue;
      std::vector<Simplex> expected;
      for (std::size_t c = 0; c < cofacets.size(); ++c) {
        const auto& t = cofacets[c];
        if (!std::equal(f.begin(), f.end(), t.begin() + 1))
          continue; // t = {w} + f with w above f's largest vertex
        float dt = diameter;
        for (const SimplexId v : f)
          dt = std::max(dt, float(d[t[0]][v]));
        if (dt <= threshold)
          expected.push_back({dt, SimplexId(c)});
      }
      std::reverse(expected.begin(), expected.end()); // decreasing index
      const Simplex s{diameter, SimplexId(r)};
      ASSERT_EQ(device::countCofacetsAbove(graph, binomial, threshold, s, k),
                SimplexId(expected.size()));
      std::vector<Simplex> made(expected.size());
      device::writeCofacetsAbove(graph, binomial, threshold, s, k, made.data());
      for (std::size_t i = 0; i < made.size(); ++i) {
        EXPECT_EQ(made[i].index, expected[i].index);
        EXPECT_EQ(made[i].diameter, expected[i].diameter);
      }
    }
  }
  std::vector<SimplexId> reduced;
  for (SimplexId i = 0; i < 200; ++i) {
    if (rng() % 2 == 0)
      reduced.push_back(i * 7 + 3);
  }
  for (SimplexId key = -2; key < 1500; ++key) {
    EXPECT_EQ(device::isSortedMember(key, reduced.data(), SimplexId(reduced.size())),
              std::binary_search(reduced.begin(), reduced.end(), key))
        << key;
  }
}

// The device's apparent-pair test and its clearing by recomputation against lemma 7 of
// the Ripser++ paper as written, on every simplex of a small cloud with many ties: s
// (k vertices) is paired with its oldest cofacet t (filtration order: diameter, then
// the larger index older) when t has s's diameter and s is t's youngest facet (the
// largest diameter, then the smallest index); t is cleared exactly when it is so paired
// with one of its facets.
TEST(RipsGpuHostTwin, ApparentPairsAgainstTheLemma) {
  std::mt19937 rng(5);
  const int n = 10;
  const TiedCloud cloud(rng, n, 4, 6);
  const device::Binomials& binomial = cloud.binomial;
  const device::DenseDistances& graph = cloud.graph;
  const auto diameterOf = [&](const std::vector<SimplexId>& v) {
    return cloud.diameter(v);
  };
  // (diameter, index) older: smaller diameter, then larger index.
  const auto older = [](float da, SimplexId ia, float db, SimplexId ib) {
    return da < db || (da == db && ia > ib);
  };
  int apparentSeen = 0, clearedSeen = 0;
  for (int k = 2; k <= 4; ++k) {
    const auto simplices = colexSubsets(n, k);
    const auto cofacets = colexSubsets(n, k + 1);
    std::vector<SimplexId> expectedPivot(simplices.size(), -1);
    for (std::size_t r = 0; r < simplices.size(); ++r) {
      const auto& s = simplices[r];
      const float ds = diameterOf(s);
      SimplexId oldest = -1;
      float dOldest = 0;
      for (std::size_t c = 0; c < cofacets.size(); ++c) {
        const auto& t = cofacets[c];
        if (!std::includes(t.rbegin(), t.rend(), s.rbegin(), s.rend()))
          continue;
        const float dt = diameterOf(t);
        if (oldest < 0 || older(dt, SimplexId(c), dOldest, oldest)) {
          oldest = SimplexId(c);
          dOldest = dt;
        }
      }
      if (oldest < 0 || dOldest != ds)
        continue;
      // s must be the youngest facet of t: no facet of t's diameter with a smaller
      // index.
      bool youngest = true;
      for (std::size_t q = 0; q < r && youngest; ++q) {
        const auto& f = simplices[q];
        const auto& t = cofacets[std::size_t(oldest)];
        if (std::includes(t.rbegin(), t.rend(), f.rbegin(), f.rend()) &&
            diameterOf(f) == dOldest)
          youngest = false;
      }
      if (youngest)
        expectedPivot[r] = oldest;
    }
    for (std::size_t r = 0; r < simplices.size(); ++r) {
      const SimplexId got = device::apparentPivot(graph, binomial, simplices[r].data(), k,
                                                  diameterOf(simplices[r]));
      EXPECT_EQ(got, expectedPivot[r]) << "k " << k << " simplex " << r;
      apparentSeen += got >= 0;
    }
    for (std::size_t c = 0; c < cofacets.size(); ++c) {
      const bool expected = std::find(expectedPivot.begin(), expectedPivot.end(),
                                      SimplexId(c)) != expectedPivot.end();
      const Simplex t{diameterOf(cofacets[c]), SimplexId(c)};
      EXPECT_EQ(device::isApparentPivot(graph, binomial, cofacets[c].data(), k + 1, t),
                expected)
          << "k " << k << " cofacet " << c;
      clearedSeen += expected;
    }
  }
  EXPECT_GT(apparentSeen, 100);
  EXPECT_GT(clearedSeen, 100);
}

// Batches: consecutive, covering, each within the budget, each as long as the budget
// allows; none when one facet alone does not fit.
TEST(RipsGpuHostTwin, BatchesCoverTheFacetsWithinTheBudget) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<SimplexId> made(rng() % 300);
    for (auto& m : made)
      m = SimplexId(rng() % 40);
    const std::size_t budget =
        40 * device::kBytesPerSimplex + device::kBytesPerFacet + rng() % 20000;
    const auto cost = [&](std::size_t f) {
      return std::size_t(made[f]) * device::kBytesPerSimplex + device::kBytesPerFacet;
    };
    const auto batches = device::cutBatches(made, budget);
    std::size_t next = 0;
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const auto [first, last] = batches[b];
      ASSERT_EQ(first, next);
      ASSERT_LT(first, last);
      std::size_t sum = 0;
      for (std::size_t f = first; f < last; ++f)
        sum += cost(f);
      EXPECT_LE(sum, budget);
      if (last < made.size()) {
        EXPECT_GT(sum + cost(last), budget); // the next facet did not fit
      }
      next = last;
    }
    EXPECT_EQ(next, made.size());
  }
  EXPECT_TRUE(device::cutBatches({5, 3, 900}, 900 * device::kBytesPerSimplex).empty());
  const auto columns = device::cutColumnBatches(1000, 64 * device::kBytesPerSimplex);
  ASSERT_EQ(columns.size(), 16u);
  EXPECT_EQ(columns.back(), std::make_pair(std::size_t(960), std::size_t(1000)));
  EXPECT_TRUE(device::cutColumnBatches(10, device::kBytesPerSimplex - 1).empty());
}

// The device bytes resolveBackend plans with cover what the builder uploads (the
// matrix or the adjacency lists and the binomial table) and one batch of n simplices.
TEST(RipsGpuHostTwin, BaseBytesCoverTheUploads) {
  Parameters p;
  p.maxDimension = 2;
  for (const SimplexId n : {2, 10, 1000, 30000}) {
    RipsInput input;
    input.format = InputFormat::LowerDistance;
    input.numberOfPoints = n;
    const std::size_t matrix = std::size_t(n) * std::size_t(n - 1) / 2 * sizeof(float);
    const std::size_t table = std::size_t(p.maxDimension + 3) * std::size_t(n + 1) * 8;
    EXPECT_GE(detail::gpuBaseBytes(input, p),
              matrix + table + std::size_t(n) * device::kBytesPerSimplex);
    input.format = InputFormat::Sparse;
    input.edges.resize(std::size_t(n) * 3);
    const std::size_t csr = std::size_t(n + 1) * 8 + input.edges.size() * 2 * (8 + 4);
    EXPECT_GE(detail::gpuBaseBytes(input, p),
              csr + table + std::size_t(n) * device::kBytesPerSimplex);
  }
}

// Without a usable device (this machine), Gpu runs the CPU backend and says why.
TEST(RipsGpuHostTwin, GpuWithoutADeviceRunsTheCpu) {
  if (gpuAvailable())
    GTEST_SKIP() << "a GPU is present (tests/gpu covers it)";
  const RipsInput three = fromLowerDistances({1, 1, 1});
  Parameters gpu;
  gpu.backend = Backend::Gpu;
  Result r;
  RunReport report;
  execute(three, gpu, Monitor{}, r, report);
  EXPECT_EQ(report.backend, "cpu");
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_EQ(report.warnings[0].code, WarningCode::GpuUnavailable);
  EXPECT_NE(report.warnings[0].text.find("GPU requested"), std::string::npos);
  EXPECT_EQ(sorted(r), sorted(run(three, 1)));
}

// Sparse graphs that are not complete: a missing edge is no simplex, also under the
// infinite threshold such an input has (no enclosing radius). The CPU backend and the
// GPU's host twin against the brute force on the same graph (missing edges infinite,
// the oracle's threshold finite, so that no simplex with a missing edge enters it).
TEST(RipsGpuHostTwin, IncompleteSparseGraphsEqualTheBruteForce) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 150; ++trial) {
    const int n = 5 + trial % 6;
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> d(std::size_t(n),
                                       std::vector<double>(std::size_t(n), inf));
    std::ostringstream text;
    for (int i = 0; i < n; ++i) {
      d[std::size_t(i)][std::size_t(i)] = 0;
      for (int j = 0; j < i; ++j) {
        if (rng() % 100 < 55) {
          const double w = double(1 + rng() % 4);
          d[std::size_t(i)][std::size_t(j)] = d[std::size_t(j)][std::size_t(i)] = w;
          text << i << " " << j << " " << w << "\n";
        }
      }
    }
    text << (n - 1) << " " << (n - 1) << " 0\n"; // every point present
    const int maxDim = 2;
    std::istringstream in(text.str());
    const RipsInput input = readRipsInput(in, InputFormat::Sparse, "generated");
    const Result cpu = run(input, maxDim);
    // A complete graph has an enclosing radius, which becomes the threshold.
    const double threshold = std::isinf(cpu.threshold) ? 1e30 : double(cpu.threshold);
    std::vector<long> pairCounts(std::size_t(maxDim + 1), 0);
    const auto expected = sorted(bruteForceBarcode(d, maxDim, threshold, &pairCounts));
    RunReport report;
    const Result twin =
        runTwin(input, maxDim, INFINITY, SparseMode::Auto, std::size_t(1) << 40, report);
    EXPECT_EQ(sorted(cpu), expected) << "trial " << trial << "\n" << text.str();
    EXPECT_EQ(inOrder(twin), inOrder(cpu)) << "trial " << trial;
    for (int k = 1; k <= maxDim; ++k) {
      EXPECT_EQ(cpu.stats[std::size_t(k)].pairs, pairCounts[std::size_t(k)])
          << "trial " << trial << " dim " << k;
      EXPECT_EQ(twin.stats[std::size_t(k)].pairs, pairCounts[std::size_t(k)])
          << "trial " << trial << " dim " << k;
    }
  }
}

// ---- The device's start behind the CPU's work (detail::executeStarting) ----
//
// A fake device whose start the test finishes at a chosen point of the run (through the
// monitor's callbacks), the host twin as its column builder, and its distances computed
// here; the barcodes against the brute-force reduction and the CPU backend.

namespace {

detail::DeviceStart startedDevice(bool usable = true, std::size_t budget = std::size_t(1)
                                                                           << 40) {
  detail::DeviceStart start;
  start.usable = usable;
  start.whyNot = usable ? "" : "no CUDA device is present";
  start.budgetBytes = budget;
  start.seconds = 0.25;
  return start;
}

struct StartingRun {
  Result result;
  RunReport report;
  int builders = 0;  // builders the device's factory made
  int distances = 0; // distance matrices the device computed
};

// executeStarting on `input` with the device `device`; `throwing`: the device's builder
// fails (GpuError) at its first dimension.
StartingRun runStarting(const RipsInput& input, int maxDim,
                        std::shared_future<detail::DeviceStart> device,
                        const Monitor& monitor, const detail::WaitRule& wait,
                        const std::vector<Warning>& notes = {}, bool throwing = false) {
  struct Failing : ColumnBuilder {
    bool prepare(int, std::vector<Simplex>&, const std::vector<Simplex>*, bool,
                 const std::vector<SimplexId>&, PreparedDimension&, RunReport&) override {
      throw GpuError("injected failure", false);
    }
  };
  StartingRun run;
  run.report.warnings = notes;
  Parameters p;
  p.maxDimension = maxDim;
  p.backend = Backend::Gpu;
  const ColumnBuilderFactory twin =
      device::hostTwinFactory(std::size_t(1) << 40, monitor);
  detail::executeStarting(
      input, p, monitor, std::move(device),
      [&](const RipsGraph& graph, RunReport& report) {
        ++run.builders;
        return throwing ? std::unique_ptr<ColumnBuilder>(new Failing)
                        : twin(graph, report);
      },
      [&](const RipsInput& in, std::vector<float>& lower, RunReport&) {
        ++run.distances;
        const std::vector<float> rows = lowerOf(matrixOf(in.points, in.pointDimension));
        lower.assign(rows.begin(), rows.end()); // into the caller's buffer
      },
      run.result, run.report, wait);
  return run;
}

std::vector<double> randomPoints(std::mt19937& rng, int n, int dim) {
  std::vector<double> points(std::size_t(n * dim));
  for (double& x : points)
    x = std::uniform_real_distribution<double>(0, 1)(rng);
  return points;
}

std::string backends(const Result& result) {
  std::string out;
  for (std::size_t k = 1; k < result.stats.size(); ++k)
    out += (k > 1 ? " " : "") + result.stats[k].columnsBackend;
  return out;
}

double timing(const RunReport& report, const std::string& name) {
  for (const auto& [stage, seconds] : report.timings)
    if (stage == name)
      return seconds;
  return -1;
}

// An abort check that stops a run waiting for a device that only the run itself can make
// ready (a run checks a few times per dimension; a wait every 20 ms): a wrong wait fails
// the test (Aborted) instead of hanging it.
std::function<bool()> neverWaiting() {
  return [calls = 0]() mutable { return ++calls > 200; };
}

// A device start that the run itself finishes: at once (at <= 0), or as the run's
// progress first reaches `at`, the run's monitor then never waiting forever
// (neverWaiting).
struct DeviceStartedAt {
  explicit DeviceStartedAt(double at, detail::DeviceStart start = startedDevice()) {
    if (at <= 0) {
      promise.set_value(start);
      ready = true;
      return;
    }
    monitor.abortRequested = neverWaiting();
    monitor.progress = [this, at, start](double f) {
      if (f >= at && !ready) {
        promise.set_value(start);
        ready = true;
      }
    };
  }
  DeviceStartedAt(const DeviceStartedAt&) = delete;
  DeviceStartedAt& operator=(const DeviceStartedAt&) = delete;
  std::shared_future<detail::DeviceStart> future() {
    return promise.get_future().share();
  }

  std::promise<detail::DeviceStart> promise;
  bool ready = false;
  Monitor monitor;
};

void expectTheCpuResult(const StartingRun& started, const std::vector<double>& points,
                        int maxDim, const std::string& tag) {
  const RipsInput cloud = fromPoints(points, 3);
  const Result cpu = run(cloud, maxDim);
  EXPECT_EQ(
      sorted(started.result),
      sorted(bruteForceBarcode(matrixOf(points, 3), maxDim, double(cpu.enclosingRadius))))
      << tag;
  EXPECT_EQ(inOrder(started.result), inOrder(cpu)) << tag;
  for (int k = 1; k <= maxDim; ++k) {
    const auto& a = started.result.stats[std::size_t(k)];
    const auto& b = cpu.stats[std::size_t(k)];
    EXPECT_TRUE(a.pairs == b.pairs && a.apparentPairs == b.apparentPairs &&
                a.columns == b.columns && a.simplices == b.simplices)
        << tag << " dim " << k;
  }
}

} // namespace

// The device becomes ready when dimension 2 starts: dimension 1 (and the distances) went
// to the CPU meanwhile, dimensions 2 and 3 to the device's builder, made once.
TEST(RipsDeviceStart, DimensionsStartedMeanwhileRunOnTheCpu) {
  std::mt19937 rng(61);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 8 + trial % 5;
    const std::vector<double> points = randomPoints(rng, n, 3);
    // Progress 0.1 + 0.9 (dim - 1) / 3 as dimension dim starts: 0.4, dimension 2.
    DeviceStartedAt device(0.25);
    const StartingRun run =
        runStarting(fromPoints(points, 3), 3, device.future(), device.monitor, {});
    const std::string tag = "trial " + std::to_string(trial);
    EXPECT_EQ(backends(run.result), "cpu gpu gpu") << tag;
    EXPECT_EQ(run.builders, 1) << tag;
    EXPECT_EQ(run.distances, 0) << tag;
    EXPECT_EQ(run.report.backend, "gpu") << tag;
    EXPECT_TRUE(run.report.warnings.empty()) << tag;
    EXPECT_EQ(timing(run.report, "device start (gpu)"), 0.25) << tag;
    expectTheCpuResult(run, points, 3, tag);
  }
}

// Ready from the start (a device started by an earlier call): the device computes the
// distances and builds every dimension. Never ready before the end: all on the CPU, the
// backend still the GPU's (nothing failed), the start's seconds reported.
TEST(RipsDeviceStart, ReadyAtOnceOrOnlyAtTheEnd) {
  std::mt19937 rng(67);
  const std::vector<double> points = randomPoints(rng, 11, 3);
  {
    DeviceStartedAt device(0);
    const StartingRun run =
        runStarting(fromPoints(points, 3), 3, device.future(), device.monitor, {});
    EXPECT_EQ(backends(run.result), "gpu gpu gpu");
    EXPECT_EQ(run.distances, 1);
    EXPECT_EQ(run.report.backend, "gpu");
    expectTheCpuResult(run, points, 3, "ready at once");
  }
  {
    DeviceStartedAt device(1.0);
    const StartingRun run =
        runStarting(fromPoints(points, 3), 3, device.future(), device.monitor, {});
    EXPECT_TRUE(device.ready);
    EXPECT_EQ(backends(run.result), "cpu cpu cpu");
    EXPECT_EQ(run.builders + run.distances, 0);
    EXPECT_EQ(run.report.backend, "gpu");
    EXPECT_EQ(timing(run.report, "device start (gpu)"), 0.25);
    expectTheCpuResult(run, points, 3, "ready at the end");
  }
}

// Above the WaitRule (here 0: every dimension, every matrix) the run waits for the
// device instead of building on the CPU: the device is made ready from inside that wait
// (its abort checks), so the wait is certain to have happened.
TEST(RipsDeviceStart, BigWorkWaitsForTheDevice) {
  std::mt19937 rng(71);
  const std::vector<double> points = randomPoints(rng, 10, 3);
  for (const bool distances : {false, true}) {
    std::promise<detail::DeviceStart> device;
    bool ready = false, waited = false;
    int progressCalls = 0;
    Monitor monitor;
    // Dimension 0 reports 0.1, dimension 1 again as it starts; the next abort check is
    // the wait's for dimension 1 (or, when the distances wait, the first of all).
    monitor.progress = [&](double) { ++progressCalls; };
    monitor.abortRequested = [&] {
      if (!ready && (distances || progressCalls >= 2)) {
        device.set_value(startedDevice());
        ready = waited = true;
      }
      return false;
    };
    detail::WaitRule wait;
    wait.simplices = distances ? wait.simplices : 0;
    wait.distances = distances ? 0 : wait.distances;
    const StartingRun run =
        runStarting(fromPoints(points, 3), 2, device.get_future().share(), monitor, wait);
    const std::string tag = distances ? "distances" : "dimension 1";
    EXPECT_TRUE(waited) << tag;
    EXPECT_EQ(backends(run.result), "gpu gpu") << tag;
    EXPECT_EQ(run.distances, distances ? 1 : 0) << tag;
    expectTheCpuResult(run, points, 2, tag);
  }
}

// A device that turns out unusable (absent, or too little memory for gpuBaseBytes)
// whether found before or after the run: the CPU's result, resolveBackend's warning
// after those already in the report, backend "cpu", nothing asked of the device.
TEST(RipsDeviceStart, AnUnusableDeviceRunsTheCpuWithTheWarning) {
  std::mt19937 rng(73);
  const std::vector<double> points = randomPoints(rng, 9, 3);
  for (const bool absent : {true, false}) {
    for (const bool atOnce : {true, false}) {
      DeviceStartedAt device(atOnce ? 0 : 1.0, startedDevice(!absent, 16));
      const StartingRun run =
          runStarting(fromPoints(points, 3), 2, device.future(), device.monitor, {},
                      {{WarningCode::DiagonalEntriesIgnored, "a note from the reader"}});
      const std::string tag =
          std::string(absent ? "absent" : "16 bytes") + (atOnce ? ", at once" : ", late");
      EXPECT_EQ(run.report.backend, "cpu") << tag;
      EXPECT_EQ(backends(run.result), "cpu cpu") << tag;
      EXPECT_EQ(run.builders + run.distances, 0) << tag;
      ASSERT_EQ(run.report.warnings.size(), 2u) << tag;
      EXPECT_EQ(run.report.warnings[0].text, "a note from the reader") << tag;
      EXPECT_EQ(run.report.warnings[1].code,
                absent ? WarningCode::GpuUnavailable : WarningCode::GpuMemoryInsufficient)
          << tag;
      if (absent)
        EXPECT_EQ(run.report.warnings[1].text,
                  "GPU requested but no CUDA device is present; running on the CPU")
            << tag;
      else
        EXPECT_NE(
            run.report.warnings[1].text.find("of GPU memory but only 0.0 MiB are free"),
            std::string::npos)
            << tag << ": " << run.report.warnings[1].text;
      expectTheCpuResult(run, points, 2, tag);
    }
  }
}

// A device failure in a dimension: the whole run again on the CPU, with
// runWithFallback's warning.
TEST(RipsDeviceStart, ADeviceFailureFallsBackToTheCpu) {
  std::mt19937 rng(79);
  const std::vector<double> points = randomPoints(rng, 9, 3);
  DeviceStartedAt device(0);
  const StartingRun run = runStarting(fromPoints(points, 3), 2, device.future(),
                                      device.monitor, {}, {}, true);
  EXPECT_EQ(run.report.backend, "cpu");
  ASSERT_EQ(run.report.warnings.size(), 1u);
  EXPECT_EQ(run.report.warnings[0].code, WarningCode::GpuFailed);
  EXPECT_EQ(run.report.warnings[0].text,
            "GPU rips persistence failed: injected failure; ran on the CPU instead");
  EXPECT_EQ(backends(run.result), "cpu cpu");
  expectTheCpuResult(run, points, 2, "failure");
}
