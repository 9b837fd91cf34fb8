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
// (measured with TOPOGPU_EIKONAL_VERBOSE=1, FMM = fim-mt: 0.14 h, 0.16 h, 0.50 h, 0.58 h
// on the sphere, larger sphere, knot, camel; relative 0.031, 0.016, 0.015, 0.0125
// against bounds 0.19, 0.085, 0.028, 0.0175). The upwind update takes the characteristic
// only inside a triangle (or an unfolded virtual one), so the discrete distance sits
// above the polyhedral one except where a triangle's plane wave cuts a corner of the true
// (curved) wavefront: measured undershoot at most 0.12 h; asserted below 0.25 h.
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

// The paper's figure 3.3 on a curved surface: the mean error of FMM against the exact
// polyhedral distance of the same mesh over 4 refinements of a torus (h halves each
// time). From one vertex the error is h log(1/h) (the front's curvature 1/d, summed
// along the path, gives h times the log of the distance in edges: measured, the error in
// edges grows by ~0.05 per refinement: 0.12, 0.17, 0.22, 0.27 h), so the fitted order is
// 0.61 there: asserted > 0.45. From a disk of seeds (the vertices within geodesic radius
// 0.5 of the source, the exact reference then being CGAL's distance to all of them) the
// front's curvature is bounded and the error is first order (0.41, 0.33, 0.43, 0.37 h:
// fitted order 1.00): asserted > 0.8. Undershoot: at most 0.12 h, asserted below 0.25 h.
TEST(EikonalCgal, FirstOrderConvergenceOnATorus) {
#ifdef NDEBUG
  const std::vector<int> sizes = {8, 16, 32, 64};
#else
  // Debug / sanitizer pass: CGAL's sequence tree is many times slower there (measured in
  // Release at these sizes: orders 0.56 from the point, 1.10 from the disks).
  const std::vector<int> sizes = {6, 12, 24, 48};
#endif
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

} // namespace
} // namespace topogpu::eikonal
