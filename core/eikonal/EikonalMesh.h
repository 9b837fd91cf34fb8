// What the solvers precompute once per run (internal to core/eikonal): per triangle its
// edge lengths and slowness, in the mesh's own units (powers of two away from the
// input's, so any scale solves alike), per obtuse angle its fan of virtual edges, per
// vertex the vertices whose update reads it, and the one-ring update of a vertex shared
// by every solver.
#pragma once

#include "core/eikonal/Eikonal.h"
#include "core/eikonal/LocalSolver.h"

#include <cstdint>
#include <vector>

namespace topogpu::eikonal::detail {

// The split of an obtuse angle at x3 of a triangle (x1, x2, x3) by vertices c1 .. cm
// unfolded into the triangle's plane, in angular order from x1 to x2 (the paper's
// figure 2.2 has one): virtual triangles (x1, c1, x3), (c1, c2, x3), ..., (cm, x2, x3),
// each with an angle of at most 90 degrees at x3 unless the unfolding stopped first.
// A fan's points are c1 .. cm, then x2 itself.
struct FanPoint {
  SimplexId vertex = -1;
  double toX3 = 0;         // |x3 c| in the unfolded plane
  double fromPrevious = 0; // |c_{i-1} c| (c_0 = x1)
  std::uint8_t obtuse = 0; // the angle at x3 from c_{i-1} to c is still obtuse
};

struct Mesh {
  const ExplicitTriangulation* tri = nullptr;
  SimplexId vertices = 0, triangles = 0;
  // A travel time t in the mesh's units is t * 2^unitExponent in the input's: lengths
  // are scaled so that the largest edge component is in [0.5, 1), slownesses so that
  // the largest is (exact scalings: the arithmetic is the input's up to powers of two).
  int unitExponent = 0;
  int lengthExponent = 0;    // a length in the mesh's units is length * 2^lengthExponent
  double meanEdgeLength = 0; // over the edges of the triangles (each triangle's three)
  double area = 0;           // the triangles' total area
  // length[3t + j]: the edge of triangle t opposite its local vertex j.
  std::vector<double> length;
  std::vector<double> slowness; // 1 / speed, per triangle
  bool uniformSpeed = true;     // the same slowness in every triangle
  // Triangles solved through their two edges only: degenerate ones, and obtuse ones
  // whose unfolding found no vertex within the angle (their own solution could read a
  // larger value through the obtuse angle, which breaks causality and lets meshFIM and
  // FMM part).
  std::vector<std::uint8_t> edgesOnly;
  // Per triangle: the local index of its obtuse angle that has a fan (-1 when none), and
  // the fan's points: fanPoints[fanStart[t] .. fanStart[t] + fanSize[t]).
  std::vector<std::int8_t> splitCorner;
  std::vector<std::int64_t> fanStart;
  std::vector<std::uint8_t> fanSize;
  std::vector<FanPoint> fanPoints;
  // The vertices x3 whose obtuse angle's fan holds v, as compressed rows (v's update
  // changes theirs, beyond its one-ring).
  std::vector<SimplexId> dependentOffsets, dependents;
  double meanEdgeTime = 0; // mean of length * slowness over the edges of the triangles
  // Obtuse angles, those split into angles of at most 90 degrees, and why the others'
  // unfolding stopped: at a boundary, a non-manifold edge, around x3, or the step bound.
  SimplexId obtuseAngles = 0, unfoldedAngles = 0, degenerateTriangles = 0;
  SimplexId unfoldingStops[4] = {0, 0, 0, 0};
};

// Throws Error for non-finite coordinates, non-finite speeds and speeds below the
// smallest normal double (their inverse overflows).
void buildMesh(const ExplicitTriangulation& tri, const double* points,
               const Parameters& parameters, Mesh& mesh);

struct VertexUpdate {
  double value;
  SimplexId label; // the seed reached through the upwind vertex
  int solves;
};

// The smallest solution over v's one-ring triangles (virtual ones for split obtuse
// angles) from the values valueOf(u) (+inf: not usable) and labels labelOf(u). With
// `through` >= 0 only the triangles that read vertex `through` are solved (FMM: the
// others saw no change since v's last update).
// f(u1, u2, l13, l23, l12, edgesOnly) for each solve of the vertex at corner k of
// triangle t (x1 = u1, x2 = u2 as the local solver names them): the triangle itself, or
// the virtual triangles of its fan.
template <typename F>
void forEachSolve(const Mesh& mesh, SimplexId t, int k, SimplexId v1, SimplexId v2,
                  const F& f) {
  const double* l = &mesh.length[3 * std::size_t(t)];
  if (mesh.splitCorner[t] != k) {
    f(v1, v2, l[(k + 2) % 3], l[(k + 1) % 3], l[k], mesh.edgesOnly[t] != 0);
    return;
  }
  SimplexId previous = v1;
  double previousTo = l[(k + 2) % 3];
  const FanPoint* fan = &mesh.fanPoints[std::size_t(mesh.fanStart[t])];
  for (int i = 0; i < mesh.fanSize[t]; ++i) {
    const FanPoint& c = fan[i];
    f(previous, c.vertex, previousTo, c.toX3, c.fromPrevious, c.obtuse != 0);
    previous = c.vertex;
    previousTo = c.toX3;
  }
}

// The smallest solution over v's one-ring triangles (virtual ones for split obtuse
// angles) from the values valueOf(u) (+inf: not usable) and labels labelOf(u). With
// `through` >= 0 only the solves that read vertex `through` are computed (FMM: the
// others saw no change since v's last update).
template <typename ValueOf, typename LabelOf>
VertexUpdate updateVertex(const Mesh& mesh, SimplexId v, const ValueOf& valueOf,
                          const LabelOf& labelOf, SimplexId through = -1) {
  const ExplicitTriangulation& tri = *mesh.tri;
  VertexUpdate best{HUGE_VAL, -1, 0};
  const auto solve = [&](SimplexId a, SimplexId b, double phiA, double phiB, double l13,
                         double l23, double l12, double s, bool edgesOnly) {
    const TriangleSolution r = solveTriangle(phiA, phiB, l13, l23, l12, s, edgesOnly);
    ++best.solves;
    if (r.value < best.value) {
      best.value = r.value;
      best.label = r.lambda <= 0.5 ? labelOf(a) : labelOf(b);
    }
  };
  const int star = tri.getVertexStarNumber(v);
  for (int i = 0; i < star; ++i) {
    const SimplexId t = tri.getVertexStar(v, i);
    int k = 0;
    while (tri.getCellVertex(t, k) != v)
      ++k;
    const SimplexId v1 = tri.getCellVertex(t, (k + 1) % 3);
    const SimplexId v2 = tri.getCellVertex(t, (k + 2) % 3);
    const double s = mesh.slowness[t];
    if (mesh.splitCorner[t] != k) {
      if (through >= 0 && v1 != through && v2 != through)
        continue;
      const double* l = &mesh.length[3 * std::size_t(t)];
      solve(v1, v2, valueOf(v1), valueOf(v2), l[(k + 2) % 3], l[(k + 1) % 3], l[k], s,
            mesh.edgesOnly[t] != 0);
      continue;
    }
    forEachSolve(mesh, t, k, v1, v2,
                 [&](SimplexId a, SimplexId b, double l13, double l23, double l12,
                     bool edgesOnly) {
                   if (through < 0 || a == through || b == through)
                     solve(a, b, valueOf(a), valueOf(b), l13, l23, l12, s, edgesOnly);
                 });
  }
  return best;
}

// f(u) for every vertex u whose update reads v: its one-ring and its dependents.
template <typename F> void forEachDownwind(const Mesh& mesh, SimplexId v, const F& f) {
  const ExplicitTriangulation& tri = *mesh.tri;
  const int n = tri.getVertexNeighborNumber(v);
  for (int i = 0; i < n; ++i)
    f(tri.getVertexNeighbor(v, i));
  for (SimplexId i = mesh.dependentOffsets[v]; i < mesh.dependentOffsets[v + 1]; ++i)
    f(mesh.dependents[i]);
}

} // namespace topogpu::eikonal::detail
