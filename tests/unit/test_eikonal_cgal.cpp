// Geodesic distance (core/eikonal) against exact polyhedral geodesics computed here by
// CGAL's Surface_mesh_shortest_path (Xin and Wang's improvement of Chen and Han: the
// exact shortest path on the piecewise-flat surface, evaluated in double arithmetic over
// the Epick kernel). Built only when CGAL's headers are found
// (tests/unit/CMakeLists.txt).
//   - curved shared surfaces: FMM and fim-mt from one vertex against CGAL at every
//     vertex: mean relative error bounded by the mean edge length, no undershoot beyond a
//     small fraction of an edge;
//   - a torus refined 4 times: the mean error against CGAL falls like h log(1/h) from a
//     vertex and like h from a geodesic disk of seeds (fitted orders).
#include "BruteForce.h"
#include "EikonalMeshes.h"
#include "EikonalTwin.h"

#include "core/eikonal/Eikonal.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/io/MeshFiles.h"

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/Surface_mesh_shortest_path.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace topogpu::eikonal {
namespace {

using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using CgalMesh = CGAL::Surface_mesh<Kernel::Point_3>;
using ShortestPath = CGAL::Surface_mesh_shortest_path<
    CGAL::Surface_mesh_shortest_path_traits<Kernel, CgalMesh>>;

bool verbose() {
  return std::getenv("TOPOGPU_EIKONAL_VERBOSE") != nullptr;
}

// CGAL's exact polyhedral distance from `source` to every vertex; -1 where CGAL has none
// (isolated vertices, other components, or a face CGAL refused as non-manifold: then
// the whole comparison is refused, see `ok`).
struct Exact {
  std::vector<double> distance;
  bool ok = true;
};
Exact exactDistances(const Surface& s, const std::vector<SimplexId>& sources) {
  CgalMesh mesh;
  std::vector<CgalMesh::Vertex_index> vertex(s.vertices());
  for (SimplexId v = 0; v < s.vertices(); ++v)
    vertex[v] = mesh.add_vertex(
        Kernel::Point_3(s.points[3 * v], s.points[3 * v + 1], s.points[3 * v + 2]));
  Exact e;
  for (SimplexId t = 0; t < s.triangles(); ++t) {
    const auto f = mesh.add_face(vertex[s.cells[3 * t]], vertex[s.cells[3 * t + 1]],
                                 vertex[s.cells[3 * t + 2]]);
    if (f == CgalMesh::null_face())
      e.ok = false;
  }
  e.distance.assign(s.vertices(), -1.0);
  if (!e.ok)
    return e;
  ShortestPath paths(mesh);
  for (SimplexId source : sources)
    paths.add_source_point(vertex[source]);
  paths.build_sequence_tree();
  for (SimplexId v = 0; v < s.vertices(); ++v)
    if (!mesh.is_isolated(vertex[v]))
      e.distance[v] = paths.shortest_distance_to_source_points(vertex[v]).first;
  return e;
}

Result solve(const Surface& s, const std::vector<SimplexId>& seeds, Solver solver) {
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  Parameters p;
  p.seeds = seeds;
  p.solver = solver;
  Result result;
  RunReport report;
  execute(tri, s.points.data(), p, Monitor{}, result, report);
  return result;
}

double meanEdge(const Surface& s) {
  double sum = 0;
  for (SimplexId t = 0; t < s.triangles(); ++t)
    for (int k = 0; k < 3; ++k) {
      const double* p = &s.points[3 * s.cells[3 * t + k]];
      const double* q = &s.points[3 * s.cells[3 * t + (k + 1) % 3]];
      sum += std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
  return sum / double(3 * std::max<SimplexId>(s.triangles(), 1));
}

struct Comparison {
  double meanAbs = 0;      // mean |ours - exact|
  double meanRelative = 0; // mean |ours - exact| / exact over vertices beyond 2 edges
  double undershoot = 0;   // max(exact - ours), >= 0
  SimplexId compared = 0;
};
Comparison compare(const std::vector<double>& ours, const std::vector<double>& exact,
                   double edge) {
  Comparison c;
  SimplexId relativeCount = 0;
  for (std::size_t v = 0; v < ours.size(); ++v) {
    if (exact[v] < 0) {
      EXPECT_TRUE(std::isinf(ours[v])) << "vertex " << v << " unreachable for CGAL";
      continue;
    }
    EXPECT_TRUE(std::isfinite(ours[v])) << "vertex " << v;
    if (!std::isfinite(ours[v]))
      continue;
    const double err = std::abs(ours[v] - exact[v]);
    c.meanAbs += err;
    c.undershoot = std::max(c.undershoot, exact[v] - ours[v]);
    if (exact[v] > 2 * edge) {
      c.meanRelative += err / exact[v];
      ++relativeCount;
    }
    ++c.compared;
  }
  c.meanAbs /= double(std::max<SimplexId>(c.compared, 1));
  c.meanRelative /= double(std::max<SimplexId>(relativeCount, 1));
  return c;
}

// A torus (major radius 1, minor 0.4: positive curvature outside, negative inside), m
// segments around the tube and 3m around the axis, each quad split by a diagonal.
Surface torus(int m) {
  const int n = 3 * m;
  const double major = 1.0, minor = 0.4;
  Surface s;
  for (int i = 0; i < n; ++i) {
    const double u = 2 * M_PI * i / n;
    for (int j = 0; j < m; ++j) {
      const double w = 2 * M_PI * j / m;
      const double r = major + minor * std::cos(w);
      s.points.insert(s.points.end(),
                      {r * std::cos(u), r * std::sin(u), minor * std::sin(w)});
    }
  }
  const auto id = [&](int i, int j) { return SimplexId((i % n) * m + (j % m)); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const SimplexId a = id(i, j), b = id(i + 1, j), c = id(i, j + 1),
                      d = id(i + 1, j + 1);
      s.cells.insert(s.cells.end(), {a, b, d, a, d, c});
    }
  return s;
}

// ---- curved shared surfaces -----------------------------------------------------------

// The local solver is first order: on a mesh of mean edge h the error at distance d from
// a point source is O(h) (plus a log near the source), so the mean relative error over
// vertices beyond 2 edges is bounded by a constant times h / (typical distance). Stated
// bounds: mean relative error < h / (mean exact distance) and mean absolute error < h
// (measured with TOPOGPU_EIKONAL_VERBOSE=1, FMM = fim-mt: 0.03 h, 0.04 h, 0.39 h, 0.45 h
// on the sphere, larger sphere, knot, camel; relative 0.0057, 0.0036, 0.010, 0.0072
// against bounds 0.19, 0.085, 0.028, 0.0175; before the exact start near the seed and
// the fans: 0.14 h, 0.16 h, 0.50 h, 0.58 h). The upwind update takes the characteristic
// only inside a triangle (or an unfolded virtual one), so the discrete distance sits
// above the polyhedral one except where a triangle's plane wave cuts a corner of the true
// (curved) wavefront: measured undershoot at most 0.20 h (0.12 h before the exact start
// removed the overestimate next to the seed that masked it); asserted below 0.25 h.
TEST(EikonalCgal, CurvedSharedSurfacesAgainstExactPolyhedralGeodesics) {
  const std::string dir = test::sharedDataDir() + "/surfaces";
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << "no shared surfaces at " << dir;
  int tested = 0;
  for (const char* name : {"cgal_sphere.off", "cgal_larger_sphere.off", "cgal_knot1.off",
                           "cgal_camel.off"}) {
    const std::string path = dir + "/" + name;
    if (!std::filesystem::exists(path)) {
      ADD_FAILURE() << "missing " << path;
      continue;
    }
    const io::SurfaceMesh mesh = io::readOff(path);
    const Surface s{mesh.points, mesh.cells};
    const SimplexId source = s.cells[0];
    const Exact exact = exactDistances(s, {source});
    ASSERT_TRUE(exact.ok) << path << ": CGAL refused a face (non-manifold)";
    const double h = meanEdge(s);
    double meanExact = 0;
    SimplexId reached = 0;
    for (double d : exact.distance)
      if (d >= 0) {
        meanExact += d;
        ++reached;
      }
    meanExact /= double(std::max<SimplexId>(reached, 1));
    for (Solver solver : {Solver::Fmm, Solver::FimMt}) {
      const Result r = solve(s, {source}, solver);
      const Comparison c = compare(r.distance, exact.distance, h);
      if (verbose())
        std::cout << name << " " << solverName(solver) << ": " << s.vertices()
                  << " vertices, h " << h << ", mean exact " << meanExact
                  << ", mean abs err " << c.meanAbs / h << " h, mean rel err "
                  << c.meanRelative << " (bound " << h / meanExact << "), undershoot "
                  << c.undershoot / h << " h\n";
      EXPECT_GT(c.compared, s.vertices() / 2) << name;
      EXPECT_LT(c.meanAbs, h) << name << " " << solverName(solver);
      EXPECT_LT(c.meanRelative, h / meanExact) << name << " " << solverName(solver);
      EXPECT_LT(c.undershoot, 0.25 * h) << name << " " << solverName(solver);
    }
    ++tested;
  }
  EXPECT_EQ(tested, 4);
}

// ---- convergence on a curved generated surface
// -----------------------------------------

// The least-squares slope of log error against log h.
double fittedOrder(const std::vector<double>& h, const std::vector<double>& error) {
  const double n = double(h.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double x = std::log(h[i]), y = std::log(error[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// The torus sizes m of the refinement tests (h halves each time). Debug / sanitizer
// passes stop a level earlier: CGAL's sequence tree is many times slower there. They
// start at m = 8 too: at m = 6 the largest error is no larger than at m = 12 (2.6%,
// 2.7%), the mesh being too coarse for the asymptotic regime.
std::vector<int> torusRefinements() {
#ifdef NDEBUG
  return {8, 16, 32, 64};
#else
  return {8, 16, 32};
#endif
}

// The paper's figure 3.3 on a curved surface: the mean error of FMM against the exact
// polyhedral distance of the same mesh over 4 refinements of a torus (h halves each
// time). From one vertex the error is h log(1/h) (the front's curvature 1/d, summed
// along the path, gives h times the log of the distance in edges: measured, the error in
// edges grows at each refinement: 0.06, 0.09, 0.12, 0.14 h with the exact start near
// the seed; 0.12, 0.17, 0.22, 0.27 h before), so the fitted order is 0.62 there:
// asserted > 0.45. From a disk of seeds (the vertices within geodesic radius 0.5 of the
// source, the exact reference then being CGAL's distance to all of them) the front's
// curvature is bounded and the error is first order (0.36, 0.27, 0.36, 0.31 h: fitted
// order 1.03): asserted > 0.8. Undershoot: at most 0.20 h, asserted below 0.25 h.
TEST(EikonalCgal, FirstOrderConvergenceOnATorus) {
  const std::vector<int> sizes = torusRefinements();
  std::vector<double> hs, pointErrors, diskErrors;
  for (int m : sizes) {
    const Surface s = torus(m);
    const double h = meanEdge(s);
    hs.push_back(h);
    const SimplexId source = 0; // on the outer equator
    const Exact fromPoint = exactDistances(s, {source});
    ASSERT_TRUE(fromPoint.ok);
    // In a length space the distance to the closed ball B(source, r) is
    // max(0, d(source, x) - r): the exact reference for a disk needs no second CGAL run.
    // The seeds (the vertices inside the ball) miss its circle by up to an edge, a
    // different fraction at each refinement: the error is averaged over 5 radii.
    const Result point = solve(s, {source}, Solver::Fmm);
    const Comparison cp = compare(point.distance, fromPoint.distance, h);
    Comparison cd;
    std::size_t seedCount = 0;
    for (double radius : {0.4, 0.5, 0.6, 0.7, 0.8}) {
      std::vector<SimplexId> disk;
      std::vector<double> toDisk(s.vertices());
      for (SimplexId v = 0; v < s.vertices(); ++v) {
        toDisk[v] = std::max(0.0, fromPoint.distance[v] - radius);
        if (fromPoint.distance[v] <= radius)
          disk.push_back(v);
      }
      seedCount += disk.size();
      const Comparison c = compare(solve(s, disk, Solver::Fmm).distance, toDisk, h);
      cd.meanAbs += c.meanAbs / 5;
      cd.undershoot = std::max(cd.undershoot, c.undershoot);
      cd.compared = c.compared;
    }
    for (const Comparison& c : {cp, cd}) {
      EXPECT_EQ(c.compared, s.vertices());
      EXPECT_LT(c.meanAbs, h);
      EXPECT_LT(c.undershoot, 0.25 * h);
    }
    if (verbose())
      std::cout << "torus m " << m << ": " << s.vertices() << " vertices, h " << h
                << "; point source: mean abs err " << cp.meanAbs / h << " h, undershoot "
                << cp.undershoot / h << " h; disks of " << seedCount / 5
                << " seeds on average: mean abs err " << cd.meanAbs / h
                << " h, undershoot " << cd.undershoot / h << " h\n";
    pointErrors.push_back(cp.meanAbs);
    diskErrors.push_back(cd.meanAbs);
  }
  const double pointOrder = fittedOrder(hs, pointErrors);
  const double diskOrder = fittedOrder(hs, diskErrors);
  if (verbose())
    std::cout << "torus: fitted order " << pointOrder << " (point source), " << diskOrder
              << " (disk)\n";
  EXPECT_GT(pointOrder, 0.45);
  EXPECT_GT(diskOrder, 0.8);
}

// ---- accuracy on anisotropic meshes and next to the seed ------------------------------

// The surface stretched by (sx, sy, sz): an anisotropic mesh, its obtuse angles near 180
// degrees across the stretch.
Surface stretched(Surface s, double sx, double sy, double sz) {
  for (std::size_t i = 0; i < s.points.size(); i += 3) {
    s.points[i] *= sx;
    s.points[i + 1] *= sy;
    s.points[i + 2] *= sz;
  }
  return s;
}

// Relative errors |ours - exact| / exact over the vertices whose exact distance is
// positive (not the seeds; a negative one leaves the vertex out) and at most `within`.
struct Relative {
  double mean = 0, max = 0;
  SimplexId worst = -1;
};
Relative relativeErrors(const std::vector<double>& ours, const std::vector<double>& exact,
                        double within = HUGE_VAL) {
  Relative r;
  SimplexId n = 0;
  for (std::size_t v = 0; v < ours.size(); ++v) {
    if (!(exact[v] > 0) || exact[v] > within)
      continue;
    const double e = std::abs(ours[v] - exact[v]) / exact[v];
    r.mean += e;
    if (e > r.max) {
      r.max = e;
      r.worst = SimplexId(v);
    }
    ++n;
  }
  r.mean /= double(std::max<SimplexId>(n, 1));
  return r;
}

// Every solver's distances on s from `seeds`: fmm, fim, fim-mt, and the host-side
// patchFIM (the GPU's bit-for-bit twin), with the run's counts.
struct SolverRun {
  std::string name;
  std::vector<double> distance;
  Result result; // the counts (not for the twin)
};
std::vector<SolverRun> allSolvers(const Surface& s, const std::vector<SimplexId>& seeds,
                                  const Parameters& base = Parameters()) {
  std::vector<SolverRun> runs;
  for (Solver solver : {Solver::Fmm, Solver::Fim, Solver::FimMt}) {
    ExplicitTriangulation tri(s.vertices(), 2, s.cells);
    Parameters p = base;
    p.seeds = seeds;
    p.solver = solver;
    SolverRun run{solverName(solver), {}, {}};
    RunReport report;
    execute(tri, s.points.data(), p, Monitor{}, run.result, report);
    run.distance = run.result.distance;
    runs.push_back(std::move(run));
  }
  Parameters p = base;
  p.seeds = seeds;
  runs.push_back({"patchfim twin", runPatchFimTwin(s, p).state.value, {}});
  return runs;
}

// The faces of a surface star-shaped around the origin turned outward (CGAL's
// Surface_mesh needs a consistent orientation; icosphere's faces have none).
Surface orientedOutward(Surface s) {
  for (SimplexId t = 0; t < s.triangles(); ++t) {
    const double* a = &s.points[3 * s.cells[3 * t]];
    const double* b = &s.points[3 * s.cells[3 * t + 1]];
    const double* c = &s.points[3 * s.cells[3 * t + 2]];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                         u[0] * w[1] - u[1] * w[0]};
    if (n[0] * (a[0] + b[0] + c[0]) + n[1] * (a[1] + b[1] + c[1]) +
            n[2] * (a[2] + b[2] + c[2]) <
        0)
      std::swap(s.cells[3 * t + 1], s.cells[3 * t + 2]);
  }
  return s;
}

// The jittered square [0, 1]^2 (random diagonals) stretched 10:1 along its diagonal
// (1, 1): most right and near-right angles become obtuse, up to about 170 degrees.
Surface stretchedAlongTheDiagonal(int n, unsigned seed) {
  const double c = std::sqrt(0.5);
  Surface s = square(n, 1.0, 0.3, seed);
  for (std::size_t i = 0; i < s.points.size(); i += 3) {
    const double x = s.points[i], y = s.points[i + 1];
    const double u = c * (x + y), w = c * (y - x); // rotate by -45 degrees,
    s.points[i] = c * (10 * u - w);                // stretch u, rotate back
    s.points[i + 1] = c * (10 * u + w);
  }
  return s;
}

// Anisotropic meshes (10:1) with many obtuse angles, against CGAL's exact distances,
// every solver and the patchFIM twin (= the GPU): a jittered square stretched along x
// and along its diagonal (boundaries), a torus stretched along x and an icosphere
// stretched into a 10:1:1 ellipsoid (closed, curved). From one seed, relative errors
// over the vertices other than the seed, measured (TOPOGPU_EIKONAL_VERBOSE=1; all
// solvers alike): mean 0.08%, 0.08%, 0.09%, 0.17% and max 1.0%, 1.1%, 1.2%, 1.0%;
// before the exact start and the fans, mean 3.1%, 8.0%, 1.9%, 3.3% and max 53%, 366%,
// 108%, 181%. Asserted: mean below 0.5%, max below 3%.
// The fans alone (exactStartRadius 0) from a line of seeds (the square's x = 0 side,
// whose front is nearly straight: no point-source error) across the diagonal stretch,
// over the vertices farther than 5 edges: mean 0.87%, max 4.8% against 5.8% and 29%
// with a single virtual edge per obtuse angle (its unsplit angles edges-only: 31% of
// them against 6% now, which are at the boundary); asserted below 2% and 10%, with at
// least 90% of the obtuse angles split.
TEST(EikonalCgal, AnisotropicMeshesAgainstExactGeodesics) {
  struct Case {
    std::string name;
    Surface s;
    SimplexId seed;
  };
  const std::vector<Case> cases = {
      {"square 41^2 jittered, x10 along x", stretched(square(41, 1.0, 0.3, 3), 10, 1, 1),
       20 * 41 + 20},
      {"square 41^2 jittered, x10 along the diagonal", stretchedAlongTheDiagonal(41, 5),
       20 * 41 + 20},
      {"torus 24, x10 along x", stretched(torus(24), 10, 1, 1), 5},
      {"icosphere 4, x10 along x", stretched(orientedOutward(icosphere(4)), 10, 1, 1),
       7}};
  for (const Case& c : cases) {
    const Exact exact = exactDistances(c.s, {c.seed});
    ASSERT_TRUE(exact.ok) << c.name;
    for (const SolverRun& run : allSolvers(c.s, {c.seed})) {
      const Relative e = relativeErrors(run.distance, exact.distance);
      if (verbose())
        std::cout << c.name << " " << run.name << ": " << c.s.vertices()
                  << " vertices, mean rel err " << e.mean << ", max " << e.max
                  << " (vertex " << e.worst << ")"
                  << (run.result.obtuseAngles > 0
                          ? ", obtuse " + std::to_string(run.result.obtuseAngles) +
                                " split " + std::to_string(run.result.unfoldedAngles) +
                                ", exact start " +
                                std::to_string(run.result.exactVertices) + " vertices"
                          : std::string())
                  << "\n";
      EXPECT_LT(e.mean, 0.005) << c.name << " " << run.name;
      EXPECT_LT(e.max, 0.03) << c.name << " " << run.name;
    }
  }
  const int n = 41;
  const Surface s = stretchedAlongTheDiagonal(n, 5);
  const double h = meanEdge(s);
  std::vector<SimplexId> side;
  for (int j = 0; j < n; ++j)
    side.push_back(SimplexId(j) * n);
  const Exact exact = exactDistances(s, side);
  ASSERT_TRUE(exact.ok);
  std::vector<double> beyond = exact.distance; // only the vertices beyond 5 edges
  for (double& d : beyond)
    if (d <= 5 * h)
      d = -1;
  Parameters fansOnly;
  fansOnly.exactStartRadius = 0;
  for (const SolverRun& run : allSolvers(s, side, fansOnly)) {
    const Relative e = relativeErrors(run.distance, beyond);
    if (verbose())
      std::cout << "line of seeds across the diagonal stretch, no exact start, "
                << run.name << ": beyond 5 edges mean rel err " << e.mean << ", max "
                << e.max << "\n";
    EXPECT_LT(e.mean, 0.02) << run.name;
    EXPECT_LT(e.max, 0.1) << run.name;
    if (run.result.obtuseAngles > 0) {
      EXPECT_GT(run.result.unfoldedAngles, run.result.obtuseAngles * 9 / 10) << run.name;
    }
  }
}

// Next to a point source the local solver's linear interpolation is off by a fixed
// fraction of the distance at every refinement (measured before the exact start: 4.7%
// at the second ring of this torus at m = 8 .. 128). The exact start makes the seed's
// neighbourhood exact, and the largest relative error anywhere then shrinks like h
// (measured, fmm = fim = fim-mt = twin: 3.7%, 2.1%, 1.2%, 0.67% at m = 8 .. 64; 0.36%
// at 128): asserted, with the vertices within 3 edges of the seed exact to 1e-12.
TEST(EikonalCgal, ErrorNextToTheSeedShrinksWithRefinement) {
  const std::vector<int> sizes = torusRefinements();
  std::vector<double> errors;
  for (int m : sizes) {
    const Surface s = torus(m);
    const double h = meanEdge(s);
    const Exact exact = exactDistances(s, {0});
    ASSERT_TRUE(exact.ok);
    double worst = 0;
    for (const SolverRun& run : allSolvers(s, {0})) {
      const Relative all = relativeErrors(run.distance, exact.distance);
      const Relative near = relativeErrors(run.distance, exact.distance, 3 * h);
      if (verbose())
        std::cout << "torus m " << m << " " << run.name << ": max rel err " << all.max
                  << ", mean " << all.mean << "; within 3 edges of the seed " << near.max
                  << "\n";
      EXPECT_LT(near.max, 1e-12) << "m " << m << " " << run.name;
      worst = std::max(worst, all.max);
    }
    errors.push_back(worst);
  }
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_LT(errors[i], 0.7 * errors[i - 1]) << "level " << i;
  // Like h: 1% at m = 64, 2% at m = 32.
  EXPECT_LT(errors.back(), 0.64 / sizes.back());
}

// The exact start against CGAL: with a radius covering the whole mesh (as far as the
// propagation's work bound lets it), every vertex within the radius reached must have
// CGAL's distance (1e-9 relative): a torus (saddle vertices inside: paths bend there), a
// square with a hole (reflex boundary vertices), the 10:1 jittered square (boundary,
// slivers), an ellipsoid, and two seeds on the knot. This is the window propagation's
// own oracle, apart from the solvers.
TEST(EikonalCgal, ExactStartMatchesCgal) {
  struct Case {
    std::string name;
    Surface s;
    std::vector<SimplexId> seeds;
  };
  Surface holed = square(31, 1.0, 0.25, 9);
  {
    // Drop the triangles whose centroid lies in a disk off the centre: a hole with a
    // jagged (reflex-cornered) rim between the seed and much of the square.
    std::vector<SimplexId> kept;
    for (SimplexId t = 0; t < holed.triangles(); ++t) {
      double cx = 0, cy = 0;
      for (int k = 0; k < 3; ++k) {
        cx += holed.points[3 * holed.cells[3 * t + k]] / 3;
        cy += holed.points[3 * holed.cells[3 * t + k] + 1] / 3;
      }
      if (std::hypot(cx - 0.55, cy - 0.5) > 0.2)
        kept.insert(kept.end(), holed.cells.begin() + 3 * t,
                    holed.cells.begin() + 3 * t + 3);
    }
    holed.cells = kept;
  }
  std::vector<Case> cases = {
      {"torus 16", torus(16), {3}},
      {"square with a hole", holed, {15 * 31 + 2}},
      {"square 41^2 jittered x10", stretched(square(41, 1.0, 0.3, 3), 10, 1, 1), {5}},
      {"icosphere 3 x10", stretched(orientedOutward(icosphere(3)), 10, 1, 1), {0}}};
  const std::string knot = test::sharedDataDir() + "/surfaces/cgal_knot1.off";
  if (std::filesystem::exists(knot)) {
    const io::SurfaceMesh mesh = io::readOff(knot);
    cases.push_back({"knot", Surface{mesh.points, mesh.cells}, {0, 1600}});
  }
  for (const Case& c : cases) {
    const Exact exact = exactDistances(c.s, c.seeds);
    ASSERT_TRUE(exact.ok) << c.name;
    Parameters p;
    p.seeds = c.seeds;
    p.solver = Solver::Fmm;
    p.exactStartRadius = HUGE_VAL;
    ExplicitTriangulation tri(c.s.vertices(), 2, c.s.cells);
    Result r;
    RunReport report;
    execute(tri, c.s.points.data(), p, Monitor{}, r, report);
    SimplexId within = 0;
    double worst = 0;
    for (SimplexId v = 0; v < c.s.vertices(); ++v) {
      if (exact.distance[v] < 0 || exact.distance[v] > r.exactRadius * (1 - 1e-9))
        continue;
      ++within;
      worst = std::max(worst, std::abs(r.distance[v] - exact.distance[v]) /
                                  std::max(exact.distance[v], 1e-300));
    }
    if (verbose())
      std::cout << c.name << ": exact start radius " << r.exactRadius << ", "
                << r.exactVertices << " vertices, " << within
                << " within it for CGAL; max rel diff " << worst << "\n";
    EXPECT_EQ(within, r.exactVertices) << c.name;
    EXPECT_GT(within, c.s.vertices() / 4) << c.name;
    EXPECT_LT(worst, 1e-9) << c.name;
  }
}

} // namespace
} // namespace topogpu::eikonal
