// Representative cocycles of Rips persistence (Parameters::cocycles) against linear
// algebra over Z/2 done here from scratch: every simplex of the tiny clouds is listed by
// brute force, and each representative must (1) be a cocycle wherever its bar is alive
// (its coboundary vanishes on every (k+1)-simplex of diameter < death) and (2) not be a
// coboundary at the bar's birth nor just before its death (Gaussian elimination of the
// coboundary map of the complex at that time). On circles, the long bar's cocycle
// evaluates to 1 on the loop around the circle; on two circles, the two cocycles pair
// with the two loops by an invertible matrix.
#include "core/rips_persistence/RipsPersistence.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

namespace rp = topogpu::rips_persistence;
using topogpu::SimplexId;
using Simplex = std::vector<SimplexId>; // increasing vertices

struct Space {
  int n = 0;
  std::vector<float> d; // n x n, full
  float at(SimplexId a, SimplexId b) const {
    return d[std::size_t(a) * std::size_t(n) + std::size_t(b)];
  }
  float diameter(const Simplex& s) const {
    float m = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      for (std::size_t j = i + 1; j < s.size(); ++j)
        m = std::max(m, at(s[i], s[j]));
    return m;
  }
  std::vector<float> lower() const {
    std::vector<float> l;
    for (int i = 1; i < n; ++i)
      for (int j = 0; j < i; ++j)
        l.push_back(at(i, j));
    return l;
  }
};

// Distances of points, rounded to float once as the core documents it.
Space fromPoints(const std::vector<std::vector<double>>& p) {
  Space s;
  s.n = int(p.size());
  s.d.assign(std::size_t(s.n) * std::size_t(s.n), 0.0f);
  for (int i = 0; i < s.n; ++i)
    for (int j = 0; j < s.n; ++j) {
      double sum = 0;
      for (std::size_t k = 0; k < p[std::size_t(i)].size(); ++k) {
        const double x = p[std::size_t(i)][k] - p[std::size_t(j)][k];
        sum += x * x;
      }
      s.d[std::size_t(i) * std::size_t(s.n) + std::size_t(j)] = float(std::sqrt(sum));
    }
  return s;
}

// All simplices with `count` vertices (increasing vertex lists).
std::vector<Simplex> allSimplices(int n, int count) {
  std::vector<Simplex> out;
  Simplex s(static_cast<std::size_t>(count));
  std::function<void(int, int)> rec = [&](int pos, int from) {
    if (pos == count) {
      out.push_back(s);
      return;
    }
    for (int v = from; v < n; ++v) {
      s[std::size_t(pos)] = v;
      rec(pos + 1, v + 1);
    }
  };
  rec(0, 0);
  return out;
}

Simplex sorted(const SimplexId* v, int count) {
  Simplex s(v, v + count);
  std::sort(s.begin(), s.end());
  return s;
}

// Whether z (a Z/2 vector over the columns) is in the row space of rows (Z/2).
bool inSpan(std::vector<std::vector<char>> rows, std::vector<char> z) {
  const std::size_t m = z.size();
  std::size_t rank = 0;
  for (std::size_t col = 0; col < m && rank < rows.size(); ++col) {
    std::size_t pivot = rank;
    while (pivot < rows.size() && !rows[pivot][col])
      ++pivot;
    if (pivot == rows.size())
      continue;
    std::swap(rows[rank], rows[pivot]);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (r != rank && rows[r][col])
        for (std::size_t c = 0; c < m; ++c)
          rows[r][c] ^= rows[rank][c];
    }
    if (z[col])
      for (std::size_t c = 0; c < m; ++c)
        z[c] ^= rows[rank][c];
    ++rank;
  }
  // z reduced against the echelon rows: the pivots found later may still clear it
  for (std::size_t r = 0; r < rank; ++r) {
    std::size_t col = 0;
    while (col < m && !rows[r][col])
      ++col;
    if (col < m && z[col])
      for (std::size_t c = 0; c < m; ++c)
        z[c] ^= rows[r][c];
  }
  return std::none_of(z.begin(), z.end(), [](char x) { return x != 0; });
}

// Checks (1) and (2) for every representative of `result` on the space.
void checkRepresentatives(const Space& space, const rp::Result& result,
                          const std::string& what) {
  std::size_t finite = 0;
  for (std::size_t dim = 1; dim < result.intervals.size(); ++dim)
    for (const auto& bar : result.intervals[dim])
      finite += std::isfinite(bar.death) ? 1 : 0;
  ASSERT_EQ(result.representatives.size(), finite) << what;
  for (const rp::Representative& r : result.representatives) {
    const int k = r.dimension;
    ASSERT_GE(k, 1);
    ASSERT_LT(std::size_t(k), result.intervals.size());
    ASSERT_LT(r.interval, result.intervals[std::size_t(k)].size());
    const rp::Interval bar = result.intervals[std::size_t(k)][r.interval];
    ASSERT_TRUE(std::isfinite(bar.death));
    ASSERT_EQ(r.simplices.size() % std::size_t(k + 1), 0u);
    std::map<Simplex, char> cochain;
    for (std::size_t s = 0; s < r.simplices.size(); s += std::size_t(k + 1)) {
      for (int j = 0; j + 1 <= k; ++j)
        ASSERT_GT(r.simplices[s + std::size_t(j)], r.simplices[s + std::size_t(j) + 1])
            << "vertices in decreasing order";
      cochain[sorted(&r.simplices[s], k + 1)] ^= 1;
    }
    for (const auto& [s, c] : cochain)
      ASSERT_EQ(c, 1) << what << ": a simplex listed twice";
    // (1) the coboundary vanishes on the (k+1)-simplices born before the death.
    for (const Simplex& t : allSimplices(space.n, k + 2)) {
      if (space.diameter(t) >= bar.death)
        continue;
      int sum = 0;
      for (int drop = 0; drop < k + 2; ++drop) {
        Simplex f;
        for (int j = 0; j < k + 2; ++j)
          if (j != drop)
            f.push_back(t[std::size_t(j)]);
        const auto it = cochain.find(f);
        sum += it != cochain.end() ? it->second : 0;
      }
      ASSERT_EQ(sum % 2, 0) << what << ": dim " << k << " bar [" << bar.birth << ","
                            << bar.death << ") cocycle has a nonzero coboundary";
    }
    // (2) not a coboundary at the birth, nor at the last value before the death.
    float before = float(bar.birth);
    for (const Simplex& t : allSimplices(space.n, k + 1)) {
      const float d = space.diameter(t);
      if (d < bar.death)
        before = std::max(before, d);
    }
    for (const float t : {float(bar.birth), before}) {
      std::vector<Simplex> cells, faces;
      for (const Simplex& s : allSimplices(space.n, k + 1))
        if (space.diameter(s) <= t)
          cells.push_back(s);
      for (const Simplex& s : allSimplices(space.n, k))
        if (space.diameter(s) <= t)
          faces.push_back(s);
      std::map<Simplex, std::size_t> column;
      for (std::size_t c = 0; c < cells.size(); ++c)
        column[cells[c]] = c;
      std::vector<std::vector<char>> rows; // the coboundary of each (k-1)-simplex
      for (const Simplex& f : faces) {
        std::vector<char> row(cells.size(), 0);
        for (std::size_t c = 0; c < cells.size(); ++c)
          row[c] = std::includes(cells[c].begin(), cells[c].end(), f.begin(), f.end());
        rows.push_back(row);
      }
      std::vector<char> z(cells.size(), 0);
      for (const auto& [s, c] : cochain) {
        const auto it = column.find(s);
        if (it != column.end())
          z[it->second] = c;
      }
      EXPECT_FALSE(inSpan(rows, z))
          << what << ": dim " << k << " bar [" << bar.birth << "," << bar.death
          << ") cocycle is a coboundary at " << t;
    }
  }
}

rp::Result run(const Space& space, int dim, double threshold, rp::SparseMode sparse,
               int threads = 0) {
  rp::Parameters p;
  p.maxDimension = dim;
  p.threshold = threshold;
  p.sparse = sparse;
  p.threads = threads;
  p.cocycles = true;
  rp::Result result;
  topogpu::RunReport report;
  rp::execute(rp::fromLowerDistances(space.lower()), p, topogpu::Monitor{}, result,
              report);
  return result;
}

TEST(RipsCocycles, LinearAlgebraOnTinyClouds) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 160; ++trial) {
    const int n = 5 + trial % 5;
    const int ambient = 2 + trial % 2;
    std::vector<std::vector<double>> p(
        static_cast<std::size_t>(n),
        std::vector<double>(static_cast<std::size_t>(ambient)));
    const bool ties = trial % 3 == 0; // integer coordinates: many equal diameters
    for (auto& x : p)
      for (double& c : x)
        c = ties ? double(rng() % 4) : std::uniform_real_distribution<double>(0, 1)(rng);
    const Space space = fromPoints(p);
    const int dim = trial % 4 == 0 ? 2 : 1;
    if (dim + 2 > n)
      continue;
    const double threshold =
        trial % 5 == 1 ? 0.6 : std::numeric_limits<double>::infinity();
    const rp::SparseMode sparse =
        trial % 2 ? rp::SparseMode::Sparse : rp::SparseMode::Dense;
    const rp::Result result = run(space, dim, threshold, sparse, 1 + trial % 3);
    checkRepresentatives(space, result, "trial " + std::to_string(trial));
    checked += int(result.representatives.size());
  }
  EXPECT_GT(checked, 30) << "too few bars to test anything";
}

// The representatives do not depend on the threads or their timing: runs with 8
// threads on 2 cores (more interleavings, takeovers of columns in the lock-free
// reduction, which adds whatever state a column to the left has) give byte for byte the
// one-thread run's cocycles: on clouds with many equal diameters and on uniform ones of
// 700 points (where 8 threads gave several different cocycles in a few runs), dense and
// sparse, dimensions 1 and 2; the tiny ones are checked by linear algebra too.
TEST(RipsCocycles, ThreadsDoNotChangeTheCocycles) {
  std::mt19937 rng(23);
  tbb::task_arena arena(8);
  int compared = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const bool uniform = trial >= 6;
    const int n = uniform ? 700 : trial < 2 ? 9 : 40 + 10 * (trial % 3);
    std::vector<std::vector<double>> p(static_cast<std::size_t>(n),
                                       std::vector<double>(3));
    for (auto& x : p)
      for (double& c : x)
        c = uniform ? std::uniform_real_distribution<double>(0, 1)(rng)
                    : double(rng() % 5);
    const Space space = fromPoints(p);
    const int dim = uniform ? 1 : 1 + trial % 2;
    const rp::SparseMode sparse =
        trial % 3 == 2 ? rp::SparseMode::Sparse : rp::SparseMode::Dense;
    const double t = std::numeric_limits<double>::infinity();
    const rp::Result serial = run(space, dim, t, sparse, 1);
    if (n < 10)
      checkRepresentatives(space, serial, "trial " + std::to_string(trial));
    for (int repeat = 0; repeat < 12; ++repeat) {
      rp::Result parallel;
      arena.execute([&] { parallel = run(space, dim, t, sparse, 8); });
      ASSERT_EQ(parallel.representatives.size(), serial.representatives.size());
      for (std::size_t r = 0; r < serial.representatives.size(); ++r) {
        const rp::Representative& a = parallel.representatives[r];
        const rp::Representative& b = serial.representatives[r];
        EXPECT_TRUE(a.dimension == b.dimension && a.interval == b.interval &&
                    a.simplices == b.simplices)
            << "trial " << trial << " repeat " << repeat << " representative " << r;
      }
      compared += int(serial.representatives.size());
    }
  }
  EXPECT_GT(compared, 500);
}

TEST(RipsCocycles, OnlyWhenAsked) {
  const Space space = fromPoints({{0, 0}, {1, 0}, {1, 1}, {0, 1}});
  rp::Parameters p;
  rp::Result result;
  topogpu::RunReport report;
  rp::execute(rp::fromLowerDistances(space.lower()), p, topogpu::Monitor{}, result,
              report);
  ASSERT_EQ(result.intervals[1].size(), 1u); // the square's loop [1, sqrt 2)
  EXPECT_TRUE(result.representatives.empty());
  const rp::Result with =
      run(space, 1, std::numeric_limits<double>::infinity(), rp::SparseMode::Auto);
  ASSERT_EQ(with.representatives.size(), 1u);
  checkRepresentatives(space, with, "square");
}

// Points on circles of radius 1 with angular noise, in angular order per circle.
std::vector<std::vector<double>> circle(int n, double cx, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<double>> p;
  for (int i = 0; i < n; ++i) {
    const double a =
        2 * M_PI * (i + std::uniform_real_distribution<double>(-0.2, 0.2)(rng)) / n;
    p.push_back({cx + std::cos(a), std::sin(a)});
  }
  return p;
}

// The cochain's value on the loop v0 v1 ... v(m-1) v0 (Z/2).
int onLoop(const rp::Representative& r, SimplexId first, SimplexId m) {
  int sum = 0;
  for (SimplexId i = 0; i < m; ++i) {
    const SimplexId a = first + i, b = first + (i + 1) % m;
    for (std::size_t s = 0; s < r.simplices.size(); s += 2) {
      const SimplexId u = r.simplices[s], v = r.simplices[s + 1];
      if ((u == a && v == b) || (u == b && v == a))
        ++sum;
    }
  }
  return sum % 2;
}

TEST(RipsCocycles, CircleCocycleCrossesTheLoopOnce) {
  const Space space = fromPoints(circle(48, 0, 3));
  const rp::Result result =
      run(space, 1, std::numeric_limits<double>::infinity(), rp::SparseMode::Auto);
  // the long bar: born at the largest gap (~0.2), dies at the equilateral triangles
  // (~1.7)
  std::size_t longest = 0;
  float length = -1;
  for (std::size_t i = 0; i < result.representatives.size(); ++i) {
    const auto& bar = result.intervals[1][result.representatives[i].interval];
    if (bar.death - bar.birth > length) {
      length = bar.death - bar.birth;
      longest = i;
    }
  }
  ASSERT_GT(length, 1.0f);
  EXPECT_EQ(onLoop(result.representatives[longest], 0, 48), 1);
}

TEST(RipsCocycles, TwoCirclesPairWithTheirLoops) {
  auto p = circle(30, 0, 5);
  const auto q = circle(30, 3.5, 6); // 1.5 apart: two separate loops
  p.insert(p.end(), q.begin(), q.end());
  const Space space = fromPoints(p);
  const rp::Result result =
      run(space, 1, std::numeric_limits<double>::infinity(), rp::SparseMode::Auto);
  std::vector<const rp::Representative*> longs;
  for (const auto& r : result.representatives) {
    const auto& bar = result.intervals[1][r.interval];
    if (bar.death - bar.birth > 1.0f)
      longs.push_back(&r);
  }
  ASSERT_EQ(longs.size(), 2u);
  const int a0 = onLoop(*longs[0], 0, 30), a1 = onLoop(*longs[0], 30, 30);
  const int b0 = onLoop(*longs[1], 0, 30), b1 = onLoop(*longs[1], 30, 30);
  EXPECT_EQ((a0 * b1 + a1 * b0) % 2, 1) << "pairing matrix " << a0 << a1 << b0 << b1;
  checkRepresentatives(space, result, "two circles (long bars only matter)");
}

TEST(RipsCocycles, OctahedronTwoCocycleCoversTheSphere) {
  const Space space =
      fromPoints({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}});
  const rp::Result result =
      run(space, 2, std::numeric_limits<double>::infinity(), rp::SparseMode::Dense);
  ASSERT_EQ(result.intervals[2].size(), 1u);
  ASSERT_EQ(result.representatives.size(), 1u); // no finite dim-1 bar
  const rp::Representative& r = result.representatives[0];
  ASSERT_EQ(r.dimension, 2);
  // the fundamental class: the 8 faces (one vertex of each antipodal pair)
  int sum = 0;
  for (std::size_t s = 0; s < r.simplices.size(); s += 3) {
    bool face = true;
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b)
        face = face &&
               r.simplices[s + std::size_t(a)] / 2 != r.simplices[s + std::size_t(b)] / 2;
    sum += face ? 1 : 0;
  }
  EXPECT_EQ(sum % 2, 1);
  checkRepresentatives(space, result, "octahedron");
}

} // namespace
