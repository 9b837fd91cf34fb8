// Geodesic distance (core/eikonal) against exact references written here: Euclidean
// distance on flat squares (regular and jittered, with obtuse triangles), great-circle
// distance on icospheres, plane waves through piecewise-constant speeds, first-order
// convergence, the three solvers against each other on every shared surface, the
// Voronoi labels against per-seed runs, bad input, progress and abort.
#include "BruteForce.h"
#include "EikonalMeshes.h"
#include "EikonalTwin.h"
#include "UnitHelpers.h"

#include "core/eikonal/Eikonal.h"
#include "core/eikonal/LocalSolver.h"
#include "core/eikonal/PatchRound.h"
#include "core/eikonal/Patches.h"
#include "core/eikonal/Problem.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/io/MeshFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace topogpu::eikonal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const std::vector<Solver> kSolvers = {Solver::Fmm, Solver::Fim, Solver::FimMt};

Result solve(const Surface& s, const Parameters& parameters,
             RunReport* reportOut = nullptr, const Monitor& monitor = Monitor{}) {
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  Result result;
  RunReport report;
  execute(tri, s.points.data(), parameters, monitor, result, report);
  if (reportOut != nullptr)
    *reportOut = report;
  return result;
}

Parameters seeded(std::vector<SimplexId> seeds, Solver solver = Solver::Fmm) {
  Parameters p;
  p.seeds = std::move(seeds);
  p.solver = solver;
  return p;
}

double euclid(const Surface& s, SimplexId a, SimplexId b) {
  const double* p = &s.points[3 * a];
  const double* q = &s.points[3 * b];
  return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

struct Errors {
  double mean = 0, max = 0;
};
Errors errorsAgainst(const std::vector<double>& d, const std::vector<double>& exact) {
  Errors e;
  for (std::size_t v = 0; v < d.size(); ++v) {
    const double err = std::abs(d[v] - exact[v]);
    e.mean += err;
    e.max = std::max(e.max, err);
  }
  e.mean /= double(d.size());
  return e;
}

// The largest difference(a[v], b[v]) over the vertices; +inf when one is unreached and
// the other not.
template <typename Difference>
double largestDifference(const std::vector<double>& a, const std::vector<double>& b,
                         const Difference& difference) {
  double m = 0;
  for (std::size_t v = 0; v < a.size(); ++v) {
    if (std::isinf(a[v]) || std::isinf(b[v])) {
      if (a[v] != b[v])
        return kInf;
      continue;
    }
    m = std::max(m, difference(a[v], b[v]));
  }
  return m;
}

double maxDifference(const std::vector<double>& a, const std::vector<double>& b) {
  return largestDifference(a, b, [](double x, double y) { return std::abs(x - y); });
}

// ---- the local solver ---------------------------------------------------------------

// A plane wave phi(x) = phi0 + slowness * dir . x is reproduced exactly whenever its
// characteristic through x3 crosses the opposite edge.
TEST(EikonalLocalSolver, ReproducesPlaneWaves) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int interior = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const double x1[2] = {u(rng), u(rng)}, x2[2] = {u(rng), u(rng)},
                 x3[2] = {u(rng), u(rng)};
    const double angle = u(rng) * M_PI, slowness = 0.5 + std::abs(u(rng));
    const double dir[2] = {std::cos(angle), std::sin(angle)};
    const auto phi = [&](const double* x) {
      return 3 + slowness * (dir[0] * x[0] + dir[1] * x[1]);
    };
    const double l13 = std::hypot(x1[0] - x3[0], x1[1] - x3[1]);
    const double l23 = std::hypot(x2[0] - x3[0], x2[1] - x3[1]);
    const double l12 = std::hypot(x1[0] - x2[0], x1[1] - x2[1]);
    // Where the characteristic (direction dir) through x3 meets the line x1x2.
    const double ex = x2[0] - x1[0], ey = x2[1] - x1[1];
    const double den = ex * dir[1] - ey * dir[0];
    if (std::abs(den) < 1e-3 || l12 < 1e-2)
      continue;
    const double lambda = ((x3[0] - x1[0]) * dir[1] - (x3[1] - x1[1]) * dir[0]) / den;
    const double back = (ex * (x3[1] - x1[1]) - ey * (x3[0] - x1[0])) / den; // along dir
    if (!(lambda > 0.01 && lambda < 0.99 && back > 1e-3))
      continue;
    const TriangleSolution s =
        solveTriangle(phi(x1), phi(x2), l13, l23, l12, slowness, false);
    EXPECT_NEAR(s.value, phi(x3), 1e-9);
    EXPECT_NEAR(s.lambda, lambda, 1e-6);
    ++interior;
  }
  EXPECT_GT(interior, 100);
}

TEST(EikonalLocalSolver, EdgeSolutionsWhenTheCharacteristicMissesTheEdge) {
  // x3 far beyond x1's side: the best path comes straight from x1.
  const double l13 = 1, l12 = 1, l23 = std::sqrt(1 + 4.0);
  const TriangleSolution s = solveTriangle(0, 5, l13, l23, l12, 1, false);
  EXPECT_DOUBLE_EQ(s.value, 1);
  EXPECT_DOUBLE_EQ(s.lambda, 0);
  // One value unknown: the edge from the other.
  EXPECT_DOUBLE_EQ(solveTriangle(kInf, 2, 1, 3, 1, 2, false).value, 8);
  EXPECT_TRUE(std::isinf(solveTriangle(kInf, kInf, 1, 1, 1, 1, false).value));
  // A degenerate triangle: edges only.
  EXPECT_DOUBLE_EQ(solveTriangle(1, 1, 1, 1, 1, 1, true).value, 2);
}

// ---- flat squares against Euclidean distance ---------------------------------------

TEST(Eikonal, RegularSquareMatchesEuclideanDistance) {
  const int n = 65;
  const Surface s = square(n);
  const SimplexId centre = (n / 2) * n + n / 2;
  std::vector<double> exact(s.vertices());
  for (SimplexId v = 0; v < s.vertices(); ++v)
    exact[v] = euclid(s, v, centre);
  const double h = 1.0 / (n - 1);
  for (Solver solver : kSolvers) {
    const Result r = solve(s, seeded({centre}, solver));
    const Errors e = errorsAgainst(r.distance, exact);
    EXPECT_LT(e.mean, 0.5 * h) << solverName(solver);
    EXPECT_LT(e.max, 1.5 * h) << solverName(solver);
    EXPECT_EQ(r.unreached, 0);
    EXPECT_EQ(r.distance[centre], 0);
    // Table 3.4 counts about 18 local solves per vertex for FMM (6 triangles, 3
    // updates); ours solves only the triangles through the accepted vertex: about 2 per
    // update. meshFIM needs more, but not many more on a constant speed.
    if (solver == Solver::Fmm) {
      EXPECT_GT(r.localSolvesPerVertex, 3);
      EXPECT_LT(r.localSolvesPerVertex, 18);
    } else {
      EXPECT_LT(r.localSolvesPerVertex, 80) << solverName(solver);
    }
  }
}

TEST(Eikonal, JitteredSquareWithObtuseTrianglesMatchesEuclideanDistance) {
  const int n = 65;
  const Surface s = square(n, 2.0, 0.3, 11);
  const double h = 2.0 / (n - 1);
  const SimplexId seed = (n / 3) * n + n / 2;
  std::vector<double> exact(s.vertices());
  for (SimplexId v = 0; v < s.vertices(); ++v)
    exact[v] = euclid(s, v, seed);
  for (Solver solver : kSolvers) {
    RunReport report;
    const Result r = solve(s, seeded({seed}, solver), &report);
    EXPECT_GT(r.obtuseAngles, 100) << "the jittered square must have obtuse angles";
    // Interior obtuse angles find a virtual edge; those on the boundary may not.
    EXPECT_GT(r.unfoldedAngles, r.obtuseAngles * 9 / 10);
    const Errors e = errorsAgainst(r.distance, exact);
    EXPECT_LT(e.mean, 0.5 * h) << solverName(solver);
    EXPECT_LT(e.max, 2.0 * h) << solverName(solver);
  }
}

// The unfolding matters: on a strip of very obtuse triangles the virtual edges keep the
// error of a straight-line distance small where the obtuse triangles alone do worse.
TEST(Eikonal, VirtualEdgesImproveObtuseMeshes) {
  // Rows of vertices alternately shifted by half a cell, with a small row spacing: every
  // triangle has an obtuse angle of about 150 degrees.
  const int nx = 41, ny = 41;
  const double hx = 1.0 / (nx - 1), hy = 0.15 * hx;
  Surface s;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      s.points.insert(s.points.end(), {i * hx + (j % 2 ? 0.5 * hx : 0.0), j * hy, 0.0});
  for (int j = 0; j + 1 < ny; ++j) {
    for (int i = 0; i + 1 < nx; ++i) {
      const SimplexId a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
      if (j % 2 == 0)
        s.cells.insert(s.cells.end(), {a, b, c, b, d, c});
      else
        s.cells.insert(s.cells.end(), {a, b, d, a, d, c});
    }
  }
  const SimplexId seed = 0;
  std::vector<double> exact(s.vertices());
  for (SimplexId v = 0; v < s.vertices(); ++v)
    exact[v] = euclid(s, v, seed);
  Parameters unfolded = seeded({seed});
  const Result with = solve(s, unfolded);
  EXPECT_GT(with.unfoldedAngles, s.triangles() / 2);
  Parameters asIs = seeded({seed});
  asIs.unfoldObtuseAngles = false;
  const Result without = solve(s, asIs);
  EXPECT_EQ(without.unfoldedAngles, 0);
  const Errors ew = errorsAgainst(with.distance, exact);
  const Errors eo = errorsAgainst(without.distance, exact);
  EXPECT_LT(ew.mean, eo.mean);
  EXPECT_LT(ew.mean, 0.5 * hx);
}

// Plane waves from the seed line x = 0 through two speeds, per triangle and per vertex:
// t(x) = x for x <= 1/2 and 1/2 + (x - 1/2) / 2 beyond (normal incidence, no
// refraction). The linear elements reproduce it exactly with per-triangle speeds.
TEST(Eikonal, PiecewiseConstantSpeedGivesTravelTime) {
  const int n = 33;
  const Surface s = square(n);
  std::vector<SimplexId> seeds(n);
  for (int j = 0; j < n; ++j)
    seeds[j] = SimplexId(j) * n;
  std::vector<double> perTriangle(s.triangles()), perVertex(s.vertices());
  for (SimplexId t = 0; t < s.triangles(); ++t) {
    double cx = 0;
    for (int k = 0; k < 3; ++k)
      cx += s.points[3 * s.cells[3 * t + k]] / 3;
    perTriangle[t] = cx > 0.5 ? 2.0 : 1.0;
  }
  std::vector<double> exact(s.vertices());
  for (SimplexId v = 0; v < s.vertices(); ++v) {
    const double x = s.points[3 * v];
    exact[v] = x <= 0.5 ? x : 0.5 + (x - 0.5) / 2;
    perVertex[v] = x > 0.5 + 1e-9 ? 2.0 : 1.0;
  }
  for (Solver solver : kSolvers) {
    Parameters p = seeded(seeds, solver);
    p.speedKind = SpeedKind::PerTriangle;
    p.speedValues = perTriangle.data();
    EXPECT_LT(errorsAgainst(solve(s, p).distance, exact).max, 1e-9) << solverName(solver);
    // Per vertex, the strip of triangles across x = 1/2 gets the mean speed 4/3 or 5/3.
    p.speedKind = SpeedKind::PerVertex;
    p.speedValues = perVertex.data();
    EXPECT_LT(errorsAgainst(solve(s, p).distance, exact).max, 0.5 / (n - 1))
        << solverName(solver);
    // A constant speed scales the distances.
    Parameters c = seeded(seeds, solver);
    c.speed = 4;
    const Result r = solve(s, c);
    for (SimplexId v = 0; v < s.vertices(); ++v)
      ASSERT_NEAR(r.distance[v], s.points[3 * v] / 4, 1e-12);
  }
}

// ---- a curved surface with an exact polyhedral geodesic
// ---------------------------------

// A strip triangulated between vertical columns x = k w (rows at jittered heights on
// each column, so many triangles are obtuse), flat, or folded along the columns onto 3/4
// of a prism.
// Folding is an isometry and the flat strip is convex, so the exact geodesic distance on
// the folded polyhedron is the Euclidean distance in the flat one.
Surface strip(int columns, int rows, double w, double height, bool folded,
              unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.4, 0.4);
  const double dy = height / (rows + 1);
  std::vector<std::vector<double>> ys(columns + 1);
  for (auto& column : ys) {
    column = {0.0};
    for (int i = 1; i <= rows; ++i)
      column.push_back((i + u(rng)) * dy);
    column.push_back(height);
  }
  const double alpha = 1.5 * M_PI / columns;
  const double radius = w / (2 * std::sin(alpha / 2));
  Surface s;
  std::vector<SimplexId> first(columns + 2, 0);
  for (int k = 0; k <= columns; ++k) {
    first[k + 1] = first[k] + SimplexId(ys[k].size());
    for (double y : ys[k]) {
      if (folded)
        s.points.insert(s.points.end(),
                        {radius * std::cos(k * alpha), radius * std::sin(k * alpha), y});
      else
        s.points.insert(s.points.end(), {k * w, y, 0.0});
    }
  }
  for (int k = 0; k < columns; ++k) {
    // Zip the two sorted columns into triangles.
    std::size_t i = 0, j = 0;
    const std::size_t ni = ys[k].size(), nj = ys[k + 1].size();
    while (i + 1 < ni || j + 1 < nj) {
      const SimplexId a = first[k] + SimplexId(i), b = first[k + 1] + SimplexId(j);
      if (j + 1 >= nj || (i + 1 < ni && ys[k][i + 1] < ys[k + 1][j + 1])) {
        s.cells.insert(s.cells.end(), {a, b, a + 1});
        ++i;
      } else {
        s.cells.insert(s.cells.end(), {a, b, b + 1});
        ++j;
      }
    }
  }
  return s;
}

TEST(Eikonal, FoldedStripMatchesItsDevelopment) {
  const int columns = 40, rows = 39;
  const double w = 0.05, height = 2.0; // rows 0.05 apart
  const Surface flat = strip(columns, rows, w, height, false, 21);
  const Surface folded = strip(columns, rows, w, height, true, 21);
  const SimplexId seed = (columns / 2) * (rows + 2) + rows / 2;
  std::vector<double> exact(flat.vertices());
  for (SimplexId v = 0; v < flat.vertices(); ++v)
    exact[v] = euclid(flat, v, seed);
  for (Solver solver : kSolvers) {
    const Result onFlat = solve(flat, seeded({seed}, solver));
    const Result onFolded = solve(folded, seeded({seed}, solver));
    EXPECT_GT(onFolded.obtuseAngles, flat.triangles() / 5) << solverName(solver);
    EXPECT_EQ(onFolded.unfoldedAngles, onFlat.unfoldedAngles) << solverName(solver);
    // The same intrinsic data: the same values up to rounding (and meshFIM-MT's
    // interleaving).
    EXPECT_LT(maxDifference(onFlat.distance, onFolded.distance), 1e-4 * w)
        << solverName(solver);
    const Errors e = errorsAgainst(onFolded.distance, exact);
    EXPECT_LT(e.mean, 0.5 * w) << solverName(solver);
    EXPECT_LT(e.max, 2.0 * w) << solverName(solver);
    // Straight lines in 3D cut across the fold: shorter than the geodesic, far away.
    EXPECT_LT(euclid(folded, seed, 0), exact[0] - 0.1);
  }
}

// ---- the sphere against great-circle distance ----------------------------------------

TEST(Eikonal, IcosphereMatchesGreatCircleDistance) {
  const Surface s = icosphere(4); // 2562 vertices
  const SimplexId seed = 0;
  std::vector<double> exact(s.vertices());
  const double* q = &s.points[0];
  for (SimplexId v = 0; v < s.vertices(); ++v) {
    const double* p = &s.points[3 * v];
    exact[v] = std::acos(std::clamp(p[0] * q[0] + p[1] * q[1] + p[2] * q[2], -1.0, 1.0));
  }
  const double h = euclid(s, s.cells[0], s.cells[1]);
  for (Solver solver : kSolvers) {
    const Result r = solve(s, seeded({seed}, solver));
    const Errors e = errorsAgainst(r.distance, exact);
    EXPECT_LT(e.mean, 0.5 * h) << solverName(solver);
    EXPECT_LT(e.max, 1.5 * h) << solverName(solver);
  }
}

// The paper's figure 3.3: distance to a circle (radius 0.2 in the unit square; the seeds
// are the vertices inside it) over 4 refinements; the mean error must fall like h.
TEST(Eikonal, FirstOrderConvergence) {
  for (bool jittered : {false, true}) {
    std::vector<double> errors, sizes;
    for (int n : {17, 33, 65, 129}) {
      const Surface s = square(n, 1.0, jittered ? 0.25 : 0.0, 5);
      std::vector<SimplexId> seeds;
      std::vector<double> exact(s.vertices());
      for (SimplexId v = 0; v < s.vertices(); ++v) {
        const double r = std::hypot(s.points[3 * v] - 0.5, s.points[3 * v + 1] - 0.5);
        exact[v] = std::max(0.0, r - 0.2);
        if (r <= 0.2)
          seeds.push_back(v);
      }
      errors.push_back(
          errorsAgainst(solve(s, seeded(seeds, Solver::Fim)).distance, exact).mean);
      sizes.push_back(1.0 / (n - 1));
    }
    const double order =
        std::log(errors.front() / errors.back()) / std::log(sizes.front() / sizes.back());
    EXPECT_GT(order, 0.8) << (jittered ? "jittered" : "regular") << " errors "
                          << errors[0] << " " << errors[1] << " " << errors[2] << " "
                          << errors[3];
    EXPECT_LT(errors.back(), 0.5 / 128);
  }
}

// ---- the solvers against each other
// ----------------------------------------------------

// FMM accepts each vertex once from accepted values; meshFIM iterates to the fixed point
// of the same local updates within epsilon. Every update is causal (a value never
// reads a larger one: acute angles, acute virtual triangles, edges only), so both reach
// the same discrete solution and differ only by the epsilon-convergence, which adds up
// along the front: stated tolerance 1e-4 of the mean edge length (epsilon is 1e-6 of
// the mean edge time).
void expectSolversAgree(const Surface& s, const std::vector<SimplexId>& seeds,
                        const std::string& name) {
  double edge = 0;
  for (SimplexId t = 0; t < s.triangles(); ++t)
    edge += euclid(s, s.cells[3 * t], s.cells[3 * t + 1]);
  edge /= double(std::max<SimplexId>(s.triangles(), 1));
  std::vector<Result> results(kSolvers.size());
  for (std::size_t i = 0; i < kSolvers.size(); ++i)
    results[i] = solve(s, seeded(seeds, kSolvers[i]));
  const double fimMt = maxDifference(results[1].distance, results[2].distance);
  const double fmmFim = maxDifference(results[0].distance, results[1].distance);
  EXPECT_LT(fimMt, 1e-4 * edge) << name;
  EXPECT_LT(fmmFim, 1e-4 * edge) << name;
  if (std::getenv("TOPOGPU_EIKONAL_VERBOSE"))
    std::cout << name << ": " << s.vertices() << " vertices, fim/fim-mt " << fimMt / edge
              << ", fmm/fim " << fmmFim / edge << " edges; solves per vertex "
              << results[0].localSolvesPerVertex << " " << results[1].localSolvesPerVertex
              << " " << results[2].localSolvesPerVertex << "\n";
  EXPECT_EQ(results[0].unreached, results[1].unreached) << name;
  EXPECT_EQ(results[1].unreached, results[2].unreached) << name;
}

// Vertices connected to a seed through triangles (an independent flood fill).
SimplexId unreachable(const Surface& s, const std::vector<SimplexId>& seeds) {
  std::vector<SimplexId> parent(s.vertices());
  std::iota(parent.begin(), parent.end(), SimplexId(0));
  const std::function<SimplexId(SimplexId)> find = [&](SimplexId v) {
    return parent[v] == v ? v : parent[v] = find(parent[v]);
  };
  for (SimplexId t = 0; t < s.triangles(); ++t)
    for (int k = 1; k < 3; ++k)
      parent[find(s.cells[3 * t + k])] = find(s.cells[3 * t]);
  std::vector<std::uint8_t> seeded(s.vertices(), 0);
  for (SimplexId v : seeds)
    seeded[find(v)] = 1;
  SimplexId count = 0;
  for (SimplexId v = 0; v < s.vertices(); ++v)
    count += !seeded[find(v)];
  return count;
}

TEST(Eikonal, SolversAgreeOnGeneratedMeshes) {
  expectSolversAgree(square(40), {5, 700}, "regular square");
  expectSolversAgree(square(50, 3.0, 0.35, 3), {1234}, "jittered square");
  expectSolversAgree(icosphere(3), {0, 100}, "icosphere");
}

TEST(Eikonal, SolversAgreeOnSharedSurfaces) {
  const std::string dir = test::sharedDataDir() + "/surfaces";
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << "no shared surfaces at " << dir;
  int tested = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    const std::string ext = entry.path().extension().string();
    if (ext != ".off" && ext != ".ply")
      continue; // .vtu needs VTK: the CLI test covers them
    io::SurfaceMesh mesh;
    try {
      mesh = ext == ".off" ? io::readOff(path) : io::readPly(path);
    } catch (const Error& e) {
      // The double torus has polygons: the reader must say so.
      EXPECT_NE(std::string(e.what()).find("triangle"), std::string::npos) << e.what();
      continue;
    }
    Surface s{mesh.points, mesh.cells};
#ifndef NDEBUG
    // The sanitizer pass (Debug checks on every accessor) keeps to the smaller meshes.
    if (s.vertices() > 40000)
      continue;
#endif
    // Seeds: the first referenced vertex and one far along the list.
    std::vector<SimplexId> seeds = {s.cells[0], s.cells[3 * (s.triangles() / 2)]};
    expectSolversAgree(s, seeds, path);
    const Result r = solve(s, seeded(seeds, Solver::FimMt));
    EXPECT_EQ(r.unreached, unreachable(s, seeds)) << path;
    ++tested;
  }
  EXPECT_GE(tested, 10);
}

// ---- Voronoi labels
// ---------------------------------------------------------------------

TEST(Eikonal, SeedIdentifierIsTheNearestSeed) {
  for (const Surface& s : {square(45, 1.0, 0.3, 9), icosphere(3)}) {
    const SimplexId n = s.vertices();
    const std::vector<SimplexId> seeds = {3, n / 4, n / 2, 3 * n / 4};
    std::vector<std::vector<double>> single(seeds.size());
    for (std::size_t i = 0; i < seeds.size(); ++i)
      single[i] = solve(s, seeded({seeds[i]})).distance;
    double edge = 0;
    for (SimplexId t = 0; t < s.triangles(); ++t)
      edge = std::max(edge, euclid(s, s.cells[3 * t], s.cells[3 * t + 1]));
    for (Solver solver : kSolvers) {
      const Result r = solve(s, seeded(seeds, solver));
      int clear = 0;
      for (SimplexId v = 0; v < s.vertices(); ++v) {
        std::vector<double> d(single.size());
        for (std::size_t i = 0; i < single.size(); ++i)
          d[i] = single[i][v];
        const std::size_t best = std::min_element(d.begin(), d.end()) - d.begin();
        std::vector<double> sorted = d;
        std::sort(sorted.begin(), sorted.end());
        // The distance is the smallest of the single-seed ones, up to the local solver
        // mixing two fronts in one triangle near the bisector.
        ASSERT_LE(r.distance[v], sorted[0] + 1e-4 * edge);
        ASSERT_GE(r.distance[v], sorted[0] - edge);
        const auto it = std::find(seeds.begin(), seeds.end(), r.seedIdentifier[v]);
        ASSERT_NE(it, seeds.end());
        if (sorted[1] - sorted[0] > 2 * edge) {
          EXPECT_EQ(r.seedIdentifier[v], seeds[best]) << "vertex " << v;
          ++clear;
        } else {
          EXPECT_LE(single[it - seeds.begin()][v], sorted[0] + 2 * edge);
        }
      }
      EXPECT_GT(clear, s.vertices() / 2);
    }
  }
}

// ---- stop distance, components, float32
// -------------------------------------------------

TEST(Eikonal, StopDistanceLeavesFartherVerticesUnreached) {
  const Surface s = square(41);
  const SimplexId seed = 20 * 41 + 20;
  const Result full = solve(s, seeded({seed}));
  for (Solver solver : kSolvers) {
    Parameters p = seeded({seed}, solver);
    p.stopDistance = 0.25;
    RunReport report;
    const Result r = solve(s, p, &report);
    SimplexId beyond = 0;
    for (SimplexId v = 0; v < s.vertices(); ++v) {
      if (full.distance[v] > 0.25) {
        ++beyond;
        EXPECT_TRUE(std::isinf(r.distance[v]));
        EXPECT_EQ(r.seedIdentifier[v], -1);
      } else {
        EXPECT_NEAR(r.distance[v], full.distance[v], 0.05 / 40);
      }
    }
    EXPECT_EQ(r.unreached, beyond);
    ASSERT_FALSE(report.warnings.empty());
    EXPECT_EQ(report.warnings[0].code, WarningCode::UnreachedVertices);
    EXPECT_NE(report.warnings[0].text.find(std::to_string(beyond) + " of"),
              std::string::npos);
  }
}

TEST(Eikonal, ComponentsWithoutSeedsAreUnreached) {
  // Two squares side by side, not connected, plus an isolated vertex.
  Surface a = square(10), b = square(10);
  Surface s = a;
  for (std::size_t i = 0; i < b.points.size(); i += 3)
    s.points.insert(s.points.end(), {b.points[i] + 5, b.points[i + 1], 0.0});
  for (SimplexId c : b.cells)
    s.cells.push_back(c + a.vertices());
  s.points.insert(s.points.end(), {9, 9, 9});
  for (Solver solver : kSolvers) {
    RunReport report;
    const Result r = solve(s, seeded({0}, solver), &report);
    EXPECT_EQ(r.unreached, b.vertices() + 1);
    EXPECT_EQ(r.unreached, unreachable(s, {0}));
    EXPECT_TRUE(std::isinf(r.distance.back()));
    EXPECT_EQ(r.seedIdentifier.back(), -1);
    EXPECT_TRUE(report.hasWarning(WarningCode::UnreachedVertices));
  }
  const std::vector<float> f = toFloat32({0.5, kInf});
  EXPECT_EQ(f[0], 0.5f);
  EXPECT_TRUE(std::isinf(f[1]));
}

// Random triangle complexes (non-manifold, pinched, holes, isolated vertices) with
// random coordinates: no crash, and the solvers agree.
TEST(Eikonal, RandomComplexesRunAndAgree) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (int index = 1; index < 80; index += 2) {
    const test::RandomMesh m = test::randomMesh(index, rng);
    Surface s;
    for (SimplexId v = 0; v < m.numberOfVertices; ++v)
      s.points.insert(s.points.end(), {u(rng), u(rng), u(rng)});
    s.cells = test::flatten(m.cells);
    expectSolversAgree(s, {SimplexId(index % m.numberOfVertices)},
                       "random " + std::to_string(index));
  }
}

// ---- bad input
// ----------------------------------------------------------------------------

TEST(Eikonal, BadInput) {
  const Surface s = square(5);
  using test::expectError;
  expectError([&] { solve(s, seeded({})); }, "no seed");
  expectError([&] { solve(s, seeded({25})); }, "seed vertex 25 is out of range");
  expectError([&] { solve(s, seeded({-1})); }, "seed vertex -1 is out of range");
  for (double bad : {0.0, -1.0, std::nan(""), kInf}) {
    Parameters p = seeded({0});
    p.speed = bad;
    expectError([&] { solve(s, p); }, "the speed must be finite and positive");
  }
  std::vector<double> speed(s.vertices(), 1.0);
  speed[7] = std::nan("");
  Parameters p = seeded({0});
  p.speedKind = SpeedKind::PerVertex;
  p.speedValues = speed.data();
  expectError([&] { solve(s, p); }, "at vertex 7");
  std::vector<double> cellSpeed(s.triangles(), 1.0);
  cellSpeed[3] = 0;
  p.speedKind = SpeedKind::PerTriangle;
  p.speedValues = cellSpeed.data();
  expectError([&] { solve(s, p); }, "at triangle 3");
  p.speedValues = nullptr;
  expectError([&] { solve(s, p); }, "no speed array");
  Parameters stop = seeded({0});
  stop.stopDistance = -1;
  expectError([&] { solve(s, stop); }, "stop distance");
  Parameters eps = seeded({0});
  eps.epsilon = 0;
  expectError([&] { solve(s, eps); }, "epsilon");
  Parameters steps = seeded({0});
  steps.maxUnfoldingSteps = 0;
  expectError([&] { solve(s, steps); }, "unfolding steps");
  Parameters radius = seeded({0});
  radius.exactStartRadius = std::nan("");
  expectError([&] { solve(s, radius); }, "the exact start radius must be a number");
  for (double bad : {0.0, -1.0, std::nan("")}) {
    Parameters band = seeded({0});
    band.bandWidth = bad;
    expectError([&] { solve(s, band); }, "the band width must be > 0");
  }
  Surface nan = s;
  nan.points[3 * 4 + 1] = std::nan("");
  expectError([&] { solve(nan, seeded({0})); }, "point 4 has a NaN");
  // Tetrahedra.
  ExplicitTriangulation tets(4, 3, std::vector<SimplexId>{0, 1, 2, 3});
  std::vector<double> points(12, 0.0);
  Result r;
  RunReport report;
  expectError([&] { execute(tets, points.data(), seeded({0}), Monitor{}, r, report); },
              "needs a triangle mesh");
  // An empty mesh is refused by the triangulation itself.
  expectError([] { ExplicitTriangulation(0, 2, std::vector<SimplexId>{}); }, "");
}

// Degenerate triangles (collinear or coincident vertices) are used through their edges;
// non-manifold edges only stop the unfolding. Both are counted in warnings.
TEST(Eikonal, DegenerateTrianglesAndNonManifoldEdges) {
  Surface s = square(6);
  // A collinear triangle on the bottom edge (vertices 0, 1, 2 lie on y = 0) and a
  // vertex at the same place as vertex 35, joined to the mesh by zero-area triangles.
  s.cells.insert(s.cells.end(), {0, 1, 2});
  s.points.insert(s.points.end(), {1.0, 1.0, 0.0});
  s.cells.insert(s.cells.end(), {34, 35, 36});
  // A fin: a third triangle on the interior edge (7, 8).
  s.points.insert(s.points.end(), {0.3, 0.2, 0.5});
  s.cells.insert(s.cells.end(), {7, 8, 37});
  for (Solver solver : kSolvers) {
    RunReport report;
    const Result r = solve(s, seeded({0}, solver), &report);
    EXPECT_EQ(r.degenerateTriangles, 2);
    EXPECT_NEAR(r.distance[36], r.distance[35], 1e-12); // the coincident vertex
    EXPECT_NEAR(r.distance[35], std::sqrt(2.0), 0.1);
    EXPECT_TRUE(std::isfinite(r.distance[37]));
    EXPECT_GE(r.distance[37], euclid(s, 0, 37) - 1e-9);
    std::string all;
    for (const auto& w : report.warnings)
      all += w.text + "\n";
    EXPECT_NE(all.find("2 degenerate"), std::string::npos) << all;
    EXPECT_NE(all.find("1 non-manifold edges"), std::string::npos) << all;
    EXPECT_TRUE(report.hasWarning(WarningCode::DegenerateTriangles)) << all;
    EXPECT_TRUE(report.hasWarning(WarningCode::NonManifoldMesh)) << all;
  }
}

TEST(Eikonal, IterationCapStopsWithAWarning) {
  const Surface s = square(30);
  for (Solver solver : {Solver::Fim, Solver::FimMt}) {
    Parameters p = seeded({0}, solver);
    p.maxIterations = 3;
    RunReport report;
    const Result r = solve(s, p, &report);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.iterations, 3);
    std::string all;
    for (const auto& w : report.warnings)
      all += w.text;
    EXPECT_NE(all.find("iteration cap"), std::string::npos);
    EXPECT_TRUE(report.hasWarning(WarningCode::IterationCap)) << all;
    EXPECT_GT(r.unreached, 0); // most of the square was never reached
  }
}

TEST(Eikonal, ProgressAndAbort) {
  const Surface s = square(120);
  for (Solver solver : kSolvers) {
    test::expectProgressAndAbort(
        [&](const Monitor& monitor) { solve(s, seeded({0}, solver), nullptr, monitor); });
  }
}

// ---- patchFIM: partition, cell-assembly arrays, host-side patchFIM ------------------

// The one-ring of each vertex from the cells alone (brute force).
std::vector<std::vector<SimplexId>> oneRings(const Surface& s) {
  std::vector<std::vector<SimplexId>> ring(s.vertices());
  for (SimplexId t = 0; t < s.triangles(); ++t)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if (i != j)
          ring[s.cells[3 * t + i]].push_back(s.cells[3 * t + j]);
  for (auto& r : ring) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  return ring;
}

using PatchRun = PatchTwin;

// buildPatchArrays and runPatchFimHost as execute's GPU path calls them.
PatchRun runPatches(const Surface& s, const std::vector<SimplexId>& seeds, int patchSize,
                    int internalIterations, bool metis, long long maxRounds = 1000000,
                    double stop = kInf, double band = Parameters().bandWidth,
                    bool numberFromSeeds = true) {
  Parameters p = seeded(seeds);
  p.patchSize = patchSize;
  p.useMetis = metis;
  p.internalIterations = internalIterations;
  p.stopDistance = stop;
  p.maxIterations = maxRounds;
  p.bandWidth = band;
  return runPatchFimTwin(s, p, numberFromSeeds);
}

TEST(EikonalPatches, PartitionCoversEveryVertexOnceWithSizesNearTheTarget) {
  for (const Surface& s : {square(60), square(55, 1.0, 0.3, 4), icosphere(4)}) {
    ExplicitTriangulation tri(s.vertices(), 2, s.cells);
    tri.precondition(kRequiredRelations);
    for (bool metis : {true, false}) {
      for (int target : {16, 64, 200}) {
        std::int32_t count = 0;
        std::string method;
        std::vector<Warning> warnings;
        const std::vector<std::int32_t> patchOf =
            partitionVertices(tri, target, metis, count, method, warnings);
        const std::string name = std::to_string(s.vertices()) + " vertices, " +
                                 (metis ? "metis " : "bfs ") + std::to_string(target);
        ASSERT_EQ(patchOf.size(), std::size_t(s.vertices())) << name;
        EXPECT_EQ(method, metis && hasMetis() ? "metis" : "bfs") << name;
        EXPECT_EQ(warnings.empty(), !metis || hasMetis()) << name;
        for (const Warning& w : warnings)
          EXPECT_EQ(w.code,
                    hasMetis() ? WarningCode::MetisFailed : WarningCode::MetisMissing)
              << name;
        std::vector<SimplexId> size(std::size_t(std::max(count, 0)), 0);
        for (std::int32_t p : patchOf) {
          ASSERT_GE(p, 0) << name;
          ASSERT_LT(p, count) << name;
          ++size[p];
        }
        const SimplexId largest = *std::max_element(size.begin(), size.end());
        EXPECT_GT(*std::min_element(size.begin(), size.end()), 0) << name;
        const double mean = double(s.vertices()) / count;
        if (method == "metis") {
          // k-way in groups of about 64 patches, ceil(1.03 size / target) parts per
          // group (METIS's default 3% imbalance then stays about within the target).
          const SimplexId groups = s.vertices() / (SimplexId(64) * target) + 1;
          EXPECT_LE(count,
                    (s.vertices() * 103 + 100 * target - 1) / (100 * target) + groups)
              << name;
          EXPECT_LE(largest, SimplexId(std::ceil(1.1 * target)) + 1) << name;
          EXPECT_GE(mean, 0.9 * target * s.vertices() / (s.vertices() + target)) << name;
        } else {
          EXPECT_LE(largest, target) << name;
          EXPECT_GE(mean, 0.5 * target) << name;
        }
      }
    }
  }
}

TEST(EikonalPatches, AssemblyArraysMatchTheMesh) {
  for (const Surface& s : {square(40, 1.0, 0.3, 2), icosphere(3)}) {
    const auto ring = oneRings(s);
    for (bool metis : {true, false}) {
      const PatchRun run = runPatches(s, {0}, 32, 7, metis, 0);
      const PatchArrays& a = run.arrays;
      const std::string name = std::to_string(s.vertices()) + (metis ? " metis" : " bfs");
      ASSERT_EQ(a.localOffsets.size(), std::size_t(a.patches) + 1) << name;
      ASSERT_EQ(a.solveOffsets.size(), a.localVertices.size() + 1) << name;
      std::vector<int> owned(s.vertices(), 0);
      std::vector<std::set<std::int32_t>> nbh(a.patches);
      std::vector<std::set<std::int32_t>> readBy(s.vertices());
      SimplexId solves = 0, exactSolves = 0;
      for (std::int32_t p = 0; p < a.patches; ++p) {
        const std::int64_t base = a.localOffsets[p];
        const std::int64_t n = a.localOffsets[p + 1] - base;
        ASSERT_LE(a.ownCount[p], n) << name;
        EXPECT_LE(a.ownCount[p], a.maxOwn) << name;
        EXPECT_LE(n, a.maxLocal) << name;
        std::set<SimplexId> own, halo;
        for (std::int64_t i = 0; i < n; ++i) {
          const SimplexId v = a.localVertices[base + i];
          if (i < a.ownCount[p]) {
            ++owned[v];
            EXPECT_EQ(a.patchOf[v], p) << name;
            own.insert(v);
          } else {
            EXPECT_NE(a.patchOf[v], p) << name;
            EXPECT_TRUE(halo.insert(v).second) << name << ": halo repeats " << v;
            readBy[v].insert(p);
          }
        }
        // Every one-ring vertex outside the patch is in its halo.
        for (SimplexId v : own) {
          for (SimplexId u : ring[v]) {
            if (!own.count(u)) {
              EXPECT_TRUE(halo.count(u))
                  << name << ": " << u << " missing from patch " << p;
            }
          }
        }
        for (SimplexId u : halo)
          nbh[p].insert(a.patchOf[u]);
        // GEO: each own vertex has one solve per triangle (two per split angle); a
        // solve over a real triangle carries its edge lengths.
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t b = a.solveOffsets[base + i],
                             e = a.solveOffsets[base + i + 1];
          if (i >= a.ownCount[p]) {
            EXPECT_EQ(b, e) << name;
            continue;
          }
          const SimplexId v = a.localVertices[base + i];
          solves += e - b;
          for (std::int64_t k = b; k < e; ++k) {
            const PatchSolve& q = a.solves[k];
            ASSERT_TRUE(q.a >= 0 && q.a < n && q.b >= 0 && q.b < n) << name;
            const SimplexId x1 = a.localVertices[base + q.a];
            const SimplexId x2 = a.localVertices[base + q.b];
            if (std::binary_search(ring[x1].begin(), ring[x1].end(), x2) &&
                std::binary_search(ring[v].begin(), ring[v].end(), x1) &&
                std::binary_search(ring[v].begin(), ring[v].end(), x2)) {
              // float32 geometry (speed 1): the lengths within a relative 2^-24 of
              // the true ones; x3's foot and height on ab from vector geometry (the
              // builder uses the law of cosines); inverse 0 marks a triangle solved
              // through its edges only.
              // In the mesh's units (a power of two away from the input's).
              const double unit = std::ldexp(1.0, -run.unitExponent);
              const double la = euclid(s, v, x1) * unit, lb = euclid(s, v, x2) * unit,
                           lab = euclid(s, x1, x2) * unit;
              EXPECT_NEAR(q.la, la, 6e-8 * la) << name;
              EXPECT_NEAR(q.lb, lb, 6e-8 * lb) << name;
              if (q.inverse != 0.0f) {
                const double* p1 = &s.points[3 * x1];
                const double* p2 = &s.points[3 * x2];
                const double* p3 = &s.points[3 * v];
                double along = 0, d[3], w[3];
                for (int c = 0; c < 3; ++c) {
                  d[c] = p2[c] - p1[c];
                  w[c] = p3[c] - p1[c];
                  along += d[c] * w[c];
                }
                const double cross =
                    std::hypot(d[1] * w[2] - d[2] * w[1], d[2] * w[0] - d[0] * w[2],
                               d[0] * w[1] - d[1] * w[0]) *
                    unit * unit;
                along *= unit * unit;
                EXPECT_NEAR(q.inverse, 1 / lab, 6e-8 / lab) << name;
                EXPECT_NEAR(q.foot, along / (lab * lab), 1e-6 * (1 + la / lab)) << name;
                EXPECT_NEAR(q.height, cross / lab, 1e-6 * la) << name;
                ++exactSolves;
              }
            }
          }
        }
      }
      for (SimplexId v = 0; v < s.vertices(); ++v) {
        EXPECT_EQ(owned[v], 1) << name << ": vertex " << v;
        // A vertex with a neighbour in another patch is read by that patch.
        for (SimplexId u : ring[v]) {
          if (a.patchOf[u] != a.patchOf[v]) {
            EXPECT_EQ(a.border[v], 1) << name << ": vertex " << v << " not on the border";
            break;
          }
        }
      }
      EXPECT_GE(solves, 3 * s.triangles()) << name;
      EXPECT_GT(exactSolves, solves / 2) << name;
      // Readers: exactly the patches holding the vertex in their halo.
      ASSERT_EQ(a.readerOffsets.size(), std::size_t(s.vertices()) + 1) << name;
      for (SimplexId v = 0; v < s.vertices(); ++v) {
        const std::set<std::int32_t> listed(a.readers.begin() + a.readerOffsets[v],
                                            a.readers.begin() + a.readerOffsets[v + 1]);
        EXPECT_EQ(listed, readBy[v]) << name << ": readers of " << v;
        EXPECT_EQ(std::size_t(a.readerOffsets[v + 1] - a.readerOffsets[v]), listed.size())
            << name;
      }
      // NBH: symmetric, without the patch itself, holding every patch the halo reads.
      for (std::int32_t p = 0; p < a.patches; ++p) {
        std::set<std::int32_t> listed(a.neighbors.begin() + a.neighborOffsets[p],
                                      a.neighbors.begin() + a.neighborOffsets[p + 1]);
        EXPECT_EQ(listed.count(p), 0u) << name;
        for (std::int32_t q : nbh[p])
          EXPECT_TRUE(listed.count(q)) << name;
        for (std::int32_t q : listed) {
          const auto* first = a.neighbors.data() + a.neighborOffsets[q];
          const auto* last = a.neighbors.data() + a.neighborOffsets[q + 1];
          EXPECT_NE(std::find(first, last, p), last) << name << ": NBH not symmetric";
        }
      }
    }
  }
}

TEST(EikonalPatches, HostPatchFimMatchesFmm) {
  struct Case {
    Surface s;
    std::vector<SimplexId> seeds;
  };
  const std::vector<Case> cases = {{square(40), {5, 700}},
                                   {square(50, 3.0, 0.35, 3), {1234}},
                                   {icosphere(3), {0, 100}}};
  for (const Case& c : cases) {
    const Result fmm = solve(c.s, seeded(c.seeds, Solver::Fmm));
    double edge = 0;
    for (SimplexId t = 0; t < c.s.triangles(); ++t)
      edge += euclid(c.s, c.s.cells[3 * t], c.s.cells[3 * t + 1]);
    edge /= double(c.s.triangles());
    for (int patchSize : {16, 64}) {
      for (int inner : {1, 7}) {
        for (const auto& [metis, band] :
             {std::pair{true, 1.0}, std::pair{false, 1.0}, std::pair{false, kInf}}) {
          const PatchRun run =
              runPatches(c.s, c.seeds, patchSize, inner, metis, 1000000, kInf, band);
          const std::string name = std::to_string(c.s.vertices()) + " vertices, patch " +
                                   std::to_string(patchSize) + ", inner " +
                                   std::to_string(inner) + (metis ? " metis" : " bfs") +
                                   ", band " + std::to_string(band);
          EXPECT_TRUE(run.state.converged) << name;
          // Half the solvers' mutual tolerance (measured: below a tenth of it).
          EXPECT_LT(maxDifference(run.state.value, fmm.distance), 5e-5 * edge) << name;
          EXPECT_GT(run.state.rounds, 1) << name;
          // Every triangle solves each of its vertices at least once (a vertex's first
          // value needs a solve through each of its one-ring triangles that read a
          // reached vertex): at least one solve per vertex, and below the unbanded
          // scheme's hundreds.
          EXPECT_GE(run.state.solves, c.s.vertices() - SimplexId(c.seeds.size())) << name;
          for (SimplexId v = 0; v < c.s.vertices(); ++v)
            ASSERT_NE(std::find(c.seeds.begin(), c.seeds.end(), run.state.label[v]),
                      c.seeds.end())
                << name << ": label of " << v;
          // Deterministic: the GPU's reference must not depend on thread timing.
          const PatchRun again =
              runPatches(c.s, c.seeds, patchSize, inner, metis, 1000000, kInf, band);
          EXPECT_EQ(again.state.value, run.state.value) << name;
          EXPECT_EQ(again.state.label, run.state.label) << name;
          EXPECT_EQ(again.state.rounds, run.state.rounds) << name;
        }
      }
    }
  }
}

// The band (Parameters::bandWidth): values reach the vertices in about distance order, so
// far fewer corrections than without it, on a jittered square with obtuse triangles and
// an icosphere, with the same distances within the tolerance.
TEST(EikonalPatches, BandCutsLocalSolves) {
  struct Case {
    Surface s;
    SimplexId seed;
  };
  for (const Case& c :
       {Case{square(120, 1.0, 0.3, 7), 60 * 120 + 60}, Case{icosphere(5), 0}}) {
    const Result fmm = solve(c.s, seeded({c.seed}, Solver::Fmm));
    double edge = 0;
    for (SimplexId t = 0; t < c.s.triangles(); ++t)
      edge += euclid(c.s, c.s.cells[3 * t], c.s.cells[3 * t + 1]);
    edge /= double(c.s.triangles());
    const PatchRun banded = runPatches(c.s, {c.seed}, 64, 7, false, 1000000, kInf, 1.0);
    const PatchRun open = runPatches(c.s, {c.seed}, 64, 7, false, 1000000, kInf, kInf);
    const double perVertexBanded = double(banded.state.solves) / double(c.s.vertices());
    const double perVertexOpen = double(open.state.solves) / double(c.s.vertices());
    EXPECT_LT(perVertexBanded, 30) << c.s.vertices();
    EXPECT_LT(perVertexBanded, perVertexOpen) << c.s.vertices();
    EXPECT_LT(maxDifference(banded.state.value, fmm.distance), 1e-4 * edge);
    EXPECT_LT(maxDifference(open.state.value, fmm.distance), 1e-4 * edge);
  }
}

// Numbering the patches from the seeds (what the device's staged upload relies on)
// only moves the patches in memory: the same patches, rounds, counts and values, bit
// for bit, as the partition's own numbering; and the seeds' patches come first.
TEST(EikonalPatches, NumberingFromTheSeedsChangesNothingComputed) {
  const Surface s = square(90, 1.0, 0.3, 5);
  const std::vector<SimplexId> seeds = {45 * 90 + 45, 7};
  for (bool metis : {true, false}) {
    const PatchRun numbered = runPatches(s, seeds, 32, 7, metis);
    const PatchRun plain =
        runPatches(s, seeds, 32, 7, metis, 1000000, kInf, Parameters().bandWidth, false);
    const PatchArrays& a = numbered.arrays;
    ASSERT_EQ(a.patches, plain.arrays.patches);
    EXPECT_LT(a.patchOf[seeds[0]], 2);
    EXPECT_LT(a.patchOf[seeds[1]], 2);
    EXPECT_EQ(numbered.state.rounds, plain.state.rounds);
    EXPECT_EQ(numbered.state.patchRounds, plain.state.patchRounds);
    EXPECT_EQ(numbered.state.solves, plain.state.solves);
    EXPECT_EQ(numbered.state.value, plain.state.value);
    EXPECT_EQ(numbered.state.label, plain.state.label);
    // Same vertex sets per patch: p's vertices in one numbering are one patch's in the
    // other.
    std::vector<std::int32_t> image(std::size_t(a.patches), -1);
    for (SimplexId v = 0; v < s.vertices(); ++v) {
      std::int32_t& q = image[a.patchOf[v]];
      if (q < 0)
        q = plain.arrays.patchOf[v];
      EXPECT_EQ(q, plain.arrays.patchOf[v]);
    }
    for (std::size_t k = 0; k < a.localVertices.size(); ++k)
      ASSERT_EQ(a.slotPatch[k], a.patchOf[a.localVertices[k]]);
  }
}

// A vertex of degree 70,000 (a fan): its patch reads more vertices than GEO's 16-bit
// local indices address, a limit of the device solver: GpuError (execute then falls back
// to meshFIM-MT), not a wrong table.
TEST(EikonalPatches, TooLargeLocalTableIsAGpuLimit) {
  const SimplexId rim = 70000;
  Surface fan;
  fan.points = {0, 0, 0};
  for (SimplexId i = 0; i < rim; ++i) {
    const double a = 2 * M_PI * double(i) / double(rim);
    fan.points.insert(fan.points.end(), {std::cos(a), std::sin(a), 0.0});
  }
  for (SimplexId i = 0; i + 1 < rim; ++i)
    fan.cells.insert(fan.cells.end(), {0, i + 1, i + 2});
  EXPECT_THROW(runPatches(fan, {0}, 64, 7, false, 0), GpuError);
  const Result r = solve(fan, seeded({0}, Solver::Gpu));
  EXPECT_EQ(r.solver, Solver::FimMt);
  EXPECT_NEAR(r.distance[1], 1.0, 1e-9);
}

// The dirty-only update (PatchRound.h) equals the full one-ring minimum: after some
// upwind values drop, the minimum of the old value and the solves that read a dropped
// vertex is the full recomputation's, and only those solves run.
TEST(EikonalPatches, DirtyOnlyUpdateEqualsTheFullMinimum) {
  const Surface s = square(30, 1.0, 0.3, 9);
  const PatchRun run = runPatches(s, {0}, 32, 7, false, 0);
  const PatchArrays& a = run.arrays;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> value(1.0, 2.0), drop(0.0, 0.05);
  int compared = 0;
  for (std::int32_t p = 0; p < a.patches; ++p) {
    const std::int64_t base = a.localOffsets[p];
    const std::int64_t n = a.localOffsets[p + 1] - base;
    std::vector<double> val(static_cast<std::size_t>(n));
    std::vector<SimplexId> lab(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      val[i] = value(rng);
      lab[i] = i;
    }
    const std::vector<unsigned char> all(static_cast<std::size_t>(n), 1);
    std::vector<unsigned char> dirty(static_cast<std::size_t>(n), 0);
    for (std::int32_t i = 0; i < a.ownCount[p]; ++i) {
      const std::int64_t sb = a.solveOffsets[base + i], se = a.solveOffsets[base + i + 1];
      const PatchUpdate before = updateFromPatch(a.solves.data(), sb, se, val.data(),
                                                 lab.data(), all.data(), kInf, -1);
      EXPECT_EQ(before.solves, se - sb);
      std::vector<double> lowered = val;
      std::fill(dirty.begin(), dirty.end(), 0);
      for (std::int64_t k = 0; k < n; k += 3) {
        lowered[k] -= drop(rng);
        dirty[k] = 1;
      }
      const PatchUpdate full = updateFromPatch(a.solves.data(), sb, se, lowered.data(),
                                               lab.data(), all.data(), kInf, -1);
      const PatchUpdate partial =
          updateFromPatch(a.solves.data(), sb, se, lowered.data(), lab.data(),
                          dirty.data(), before.value, before.label);
      int reads = 0;
      for (std::int64_t k = sb; k < se; ++k)
        reads += dirty[a.solves[k].a] || dirty[a.solves[k].b];
      EXPECT_EQ(partial.solves, reads);
      EXPECT_NEAR(partial.value, full.value, 1e-12);
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);
}

// The kernel splits a vertex's update over 1, 2, 4 or 8 lanes (solve k to lane
// k % lanes, PatchRound.h's updateFromPatchLane) and combines the lanes by a butterfly
// of shuffles keeping laneWins' result. Simulated here on the host, every lane must end
// with the brute-force minimum over the dirty solves (smallest value, then lowest solve
// index, below the current value), which the serial scan must give too, with the same
// solve count; values from a small set on a regular grid make ties common.
TEST(EikonalPatches, LanesCombineToTheSerialScan) {
  const Surface s = square(24);
  const PatchRun run = runPatches(s, {0}, 32, 7, false, 0);
  const PatchArrays& a = run.arrays;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> level(0, 3), coin(0, 2);
  int compared = 0, ties = 0;
  for (std::int32_t p = 0; p < a.patches; ++p) {
    const std::int64_t base = a.localOffsets[p];
    const std::int64_t n = a.localOffsets[p + 1] - base;
    std::vector<double> val(static_cast<std::size_t>(n));
    std::vector<SimplexId> lab(static_cast<std::size_t>(n));
    std::vector<unsigned char> dirty(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      val[i] = level(rng) == 3 ? kInf : 1.0 + 0.25 * level(rng);
      lab[i] = 100 + i;
      dirty[i] = coin(rng) != 0;
    }
    for (std::int32_t i = 0; i < a.ownCount[p]; ++i) {
      const std::int64_t sb = a.solveOffsets[base + i], se = a.solveOffsets[base + i + 1];
      const double current = coin(rng) == 0 ? 1.5 : kInf;
      // Brute force: every dirty solve, the smallest value first, then the lowest index.
      PatchUpdate expected{current, -1, 0, INT_MAX};
      double secondBest = kInf;
      for (std::int64_t k = sb; k < se; ++k) {
        const PatchSolve& e = a.solves[k];
        if (!dirty[e.a] && !dirty[e.b])
          continue;
        ++expected.solves;
        const TriangleSolution t = solvePatchTriangle(val[e.a], val[e.b], e);
        if (t.value < expected.value) {
          secondBest = expected.value;
          expected = {t.value, t.lambda <= 0.5 ? lab[e.a] : lab[e.b], expected.solves,
                      int(k - sb)};
        } else if (t.value == expected.value && t.value < current) {
          secondBest = t.value;
        }
      }
      ties += expected.index != INT_MAX && secondBest == expected.value;
      const PatchUpdate serial = updateFromPatch(a.solves.data(), sb, se, val.data(),
                                                 lab.data(), dirty.data(), current, -1);
      EXPECT_EQ(serial.value, expected.value);
      EXPECT_EQ(serial.label, expected.label);
      EXPECT_EQ(serial.index, expected.index);
      EXPECT_EQ(serial.solves, expected.solves);
      for (int lanes : {1, 2, 4, 8}) {
        std::vector<PatchUpdate> lane(static_cast<std::size_t>(lanes));
        int solves = 0;
        for (int l = 0; l < lanes; ++l) {
          lane[l] = updateFromPatchLane([&](int, std::int64_t k) { return a.solves[k]; },
                                        sb, se, l, lanes, val.data(), lab.data(),
                                        dirty.data(), current, -1);
          solves += lane[l].solves;
        }
        for (int offset = lanes / 2; offset > 0; offset /= 2) {
          const std::vector<PatchUpdate> before = lane;
          for (int l = 0; l < lanes; ++l) {
            const PatchUpdate& other = before[l ^ offset];
            if (laneWins(other.value, other.index, lane[l].value, lane[l].index)) {
              lane[l].value = other.value;
              lane[l].label = other.label;
              lane[l].index = other.index;
            }
          }
        }
        EXPECT_EQ(solves, expected.solves);
        for (int l = 0; l < lanes; ++l) {
          EXPECT_EQ(lane[l].value, expected.value) << lanes << " lanes";
          EXPECT_EQ(lane[l].label, expected.label) << lanes << " lanes";
          EXPECT_EQ(lane[l].index, expected.index) << lanes << " lanes";
        }
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);
  EXPECT_GT(ties, 50); // ties of value between solves, decided by the index
}

TEST(EikonalPatches, HostPatchFimStopsAtTheCapAndTheStopDistance) {
  const Surface s = square(60);
  const PatchRun capped = runPatches(s, {0}, 16, 2, true, 2);
  EXPECT_FALSE(capped.state.converged);
  EXPECT_EQ(capped.state.rounds, 2);
  EXPECT_GT(capped.state.activeAtCap, 0u);
  const PatchRun stopped = runPatches(s, {0}, 16, 7, true, 1000000, 0.5);
  EXPECT_TRUE(stopped.state.converged);
  SimplexId far = 0;
  for (SimplexId v = 0; v < s.vertices(); ++v) {
    EXPECT_TRUE(stopped.state.value[v] <= 0.5 || stopped.state.value[v] == kInf);
    far += euclid(s, 0, v) > 0.55;
  }
  EXPECT_EQ(std::count(stopped.state.value.begin(), stopped.state.value.end(), kInf) >=
                far,
            true);
  // Two components, a seed on one: the other is never activated.
  Surface two = square(20);
  const Surface other = square(20);
  const SimplexId shift = two.vertices();
  for (std::size_t i = 0; i < other.points.size(); i += 3)
    two.points.insert(two.points.end(), {other.points[i] + 5, other.points[i + 1], 0.0});
  for (SimplexId c : other.cells)
    two.cells.push_back(c + shift);
  const PatchRun split = runPatches(two, {0}, 16, 7, true);
  for (SimplexId v = shift; v < two.vertices(); ++v)
    EXPECT_EQ(split.state.value[v], kInf);
  EXPECT_LT(split.state.value[shift - 1], kInf);
}

TEST(EikonalPatches, GpuSolverWithoutADeviceFallsBackToFimMt) {
  const Surface s = square(30);
  const Result fimMt = solve(s, seeded({0}, Solver::FimMt));
  for (Solver solver : {Solver::Gpu, Solver::Auto}) {
    RunReport report;
    const Result r = solve(s, seeded({0}, solver), &report);
    std::string all;
    for (const auto& w : report.warnings)
      all += w.text;
    if (r.solver == Solver::Gpu) { // a build and machine with a device
      EXPECT_EQ(report.backend, "gpu");
      EXPECT_GT(r.patches, 0);
    } else {
      EXPECT_EQ(r.solver, Solver::FimMt);
      EXPECT_EQ(report.backend, "cpu");
      EXPECT_EQ(report.hasWarning(WarningCode::GpuUnavailable), solver == Solver::Gpu)
          << all;
    }
    double edge = 1.0 / 29;
    EXPECT_LT(maxDifference(r.distance, fimMt.distance), 1e-4 * edge);
  }
  EXPECT_EQ(Parameters().solver, Solver::Auto);
  EXPECT_EQ(parseSolver("gpu"), Solver::Gpu);
  EXPECT_EQ(parseSolver("auto"), Solver::Auto);
  EXPECT_THROW(parseSolver("patchfim"), Error);
  Parameters p = seeded({0}, Solver::Gpu);
  p.patchSize = 2;
  EXPECT_THROW(solve(s, p), Error);
  p.patchSize = 64;
  p.internalIterations = 0;
  EXPECT_THROW(solve(s, p), Error);
}

// ---- scale
// -----------------------------------------------------------------------------

Surface scaled(Surface s, double factor) {
  for (double& x : s.points)
    x *= factor;
  return s;
}

// The largest relative difference between a and b * factor (the same vertices
// unreached; seeds at 0 in both).
double relativeToScaled(const std::vector<double>& a, const std::vector<double>& b,
                        double factor) {
  return largestDifference(a, b, [factor](double x, double y) {
    const double expected = y * factor;
    if (expected == 0)
      return x == 0 ? 0.0 : kInf;
    return std::abs(x - expected) / expected;
  });
}

// Scaling the mesh scales the distances, down to 1e-200 and up to 1e200 (the squares of
// such lengths underflow to 0 or overflow to +inf in double), on every solver and the
// host-side patchFIM twin; a speed of 1e-300 scales the travel times up alike. The
// reference is each solver's own run on the unscaled mesh, times the factor: the
// coordinates round (1e200 is not a power of two), so FMM and meshFIM within a relative
// 1e-12; meshFIM-MT's interleaving and the twin's float32 geometry (which the rounding
// may move by an ulp, 6e-8) within the solvers' mutual tolerance, 1e-4 of the mean edge.
TEST(Eikonal, DistancesScaleWithTheMesh) {
  const Surface base = square(30, 1.0, 0.35, 4);
  const double edge = 1.0 / 29;
  const std::vector<SimplexId> seeds = {17, 700};
  const auto scaledBy = [](std::vector<double> d, double factor) {
    for (double& x : d)
      x *= factor;
    return d;
  };
  for (double factor : {1e200, 1e-200, 1e-300, 1e300}) {
    const Surface s = scaled(base, factor);
    for (Solver solver : kSolvers) {
      const std::string name =
          std::string(solverName(solver)) + " x " + std::to_string(std::log10(factor));
      const Result plain = solve(base, seeded(seeds, solver));
      RunReport report;
      const Result r = solve(s, seeded(seeds, solver), &report);
      EXPECT_EQ(r.unreached, 0) << name;
      if (solver == Solver::FimMt)
        EXPECT_LT(maxDifference(r.distance, scaledBy(plain.distance, factor)),
                  1e-4 * edge * factor)
            << name;
      else
        EXPECT_LT(relativeToScaled(r.distance, plain.distance, factor), 1e-12) << name;
      EXPECT_EQ(r.seedIdentifier, plain.seedIdentifier) << name;
      for (const Warning& w : report.warnings)
        ADD_FAILURE() << name << ": warning " << w.text;
    }
    const PatchRun plain = runPatches(base, seeds, 32, 7, false);
    const PatchRun twin = runPatches(s, seeds, 32, 7, false);
    EXPECT_LT(maxDifference(twin.state.value, scaledBy(plain.state.value, factor)),
              1e-4 * edge * factor)
        << "patchFIM twin x " << factor;
  }
  // Speeds: 1e-300 makes the travel times 1e300 times the distances, 1e300 1e-300.
  for (double speed : {1e-300, 1e300}) {
    for (Solver solver : kSolvers) {
      Parameters p = seeded(seeds, solver);
      p.speed = speed;
      const Result plain = solve(base, seeded(seeds, solver));
      const Result r = solve(base, p);
      if (solver == Solver::FimMt)
        EXPECT_LT(maxDifference(r.distance, scaledBy(plain.distance, 1 / speed)),
                  1e-4 * edge / speed);
      else
        EXPECT_LT(relativeToScaled(r.distance, plain.distance, 1 / speed), 1e-12)
            << solverName(solver) << " speed " << speed;
    }
  }
}

// Distances a double cannot hold are refused by name, on every solver: a square of
// side 1.5e308 has a diagonal of 2.1e308; with a speed of 1e300, a square of side
// 1e-10 has travel times below 1e-310 (subnormal). toFloat32 refuses what float32
// cannot hold (the filter's default output).
TEST(Eikonal, DistancesBeyondDoubleAreRefusedByName) {
  using test::expectError;
  const Surface huge = scaled(square(12), 1.5e308);
  const Surface tiny = scaled(square(12), 1e-10);
  for (Solver solver : kSolvers) {
    expectError([&] { solve(huge, seeded({0}, solver)); },
                "beyond the largest double (1.8e308)");
    Parameters fast = seeded({0}, solver);
    fast.speed = 1e300;
    expectError([&] { solve(tiny, fast); }, "below the smallest normal double");
    // With a stop distance the far corner is not reached: nothing to refuse.
    Parameters stop = seeded({0}, solver);
    stop.stopDistance = 1e308;
    const Result r = solve(huge, stop);
    EXPECT_GT(r.unreached, 0);
    EXPECT_LT(r.unreached, huge.vertices());
  }
  expectError(
      [] {
        toFloat32({1.0, 1e200});
      },
      "the distance of vertex 1 is 1e+200, outside float32's range");
  expectError([] { toFloat32({1e-200}); }, "outside float32's range");
  const std::vector<float> fine = toFloat32({0.0, 3e38, 1.2e-38, kInf});
  EXPECT_EQ(fine[0], 0.0f);
  EXPECT_EQ(fine[1], 3e38f);
  EXPECT_TRUE(std::isinf(fine[3]));
  Parameters tooSlow = seeded({0});
  tooSlow.speed = 1e-310;
  expectError([&] { solve(square(5), tooSlow); }, "below 2.2250738585072014e-308");
}

} // namespace
} // namespace topogpu::eikonal
