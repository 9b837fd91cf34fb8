// What the solvers precompute once per run (internal to core/eikonal): per triangle its
// edge lengths and slowness, in the mesh's own units (powers of two away from the
// input's, so any scale solves alike), per obtuse angle its virtual edge, per vertex
// the vertices whose update reads it, and the one-ring update of a vertex shared by
// every solver.
#pragma once

#include "core/eikonal/Eikonal.h"
#include "core/eikonal/LocalSolver.h"

#include <cstdint>
#include <vector>

namespace topogpu::eikonal::detail {

// The split of an obtuse angle at x3 of a triangle (x1, x2, x3) by a vertex c unfolded
// into the triangle's plane (the paper's figure 2.2): two virtual triangles (x1, c, x3)
// and (c, x2, x3), each with an angle of at most 90 degrees at x3.
struct VirtualEdge {
  SimplexId vertex = -1; // c
  double toC = 0;        // |x3 c| in the unfolded plane
  double fromX1 = 0;     // |x1 c|
  double toX2 = 0;       // |c x2|
};

struct Mesh {
  const ExplicitTriangulation* tri = nullptr;
  SimplexId vertices = 0, triangles = 0;
  // A travel time t in the mesh's units is t * 2^unitExponent in the input's: lengths
  // are scaled so that the largest edge component is in [0.5, 1), slownesses so that
  // the largest is (exact scalings: the arithmetic is the input's up to powers of two).
  int unitExponent = 0;
  int lengthExponent = 0; // a length in the mesh's units is length * 2^lengthExponent
  // length[3t + j]: the edge of triangle t opposite its local vertex j.
  std::vector<double> length;
  std::vector<double> slowness; // 1 / speed, per triangle
  // Triangles solved through their two edges only: degenerate ones, and obtuse ones
  // that found no virtual edge (their own solution could read a larger value through
  // the obtuse angle, which breaks causality and lets meshFIM and FMM part).
  std::vector<std::uint8_t> edgesOnly;
  // Per triangle: the local index of its obtuse angle that has a virtual edge, and that
  // edge's index in virtualEdges (-1 when none).
  std::vector<std::int8_t> splitCorner;
  std::vector<std::int32_t> virtualIndex;
  std::vector<VirtualEdge> virtualEdges;
  // The vertices x3 whose obtuse angle uses v as c, as compressed rows (v's update
  // changes theirs, beyond its one-ring).
  std::vector<SimplexId> dependentOffsets, dependents;
  double meanEdgeTime = 0; // mean of length * slowness over the edges of the triangles
  SimplexId obtuseAngles = 0, unfoldedAngles = 0, degenerateTriangles = 0;
  SimplexId unfoldingStops[4] = {0, 0, 0, 0}; // boundary, non-manifold, apex, steps
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
template <typename ValueOf, typename LabelOf>
VertexUpdate updateVertex(const Mesh& mesh, SimplexId v, const ValueOf& valueOf,
                          const LabelOf& labelOf, SimplexId through = -1) {
  const ExplicitTriangulation& tri = *mesh.tri;
  VertexUpdate best{HUGE_VAL, -1, 0};
  const int star = tri.getVertexStarNumber(v);
  for (int i = 0; i < star; ++i) {
    const SimplexId t = tri.getVertexStar(v, i);
    int k = 0;
    while (tri.getCellVertex(t, k) != v)
      ++k;
    const SimplexId v1 = tri.getCellVertex(t, (k + 1) % 3);
    const SimplexId v2 = tri.getCellVertex(t, (k + 2) % 3);
    const bool split = mesh.splitCorner[t] == k;
    if (through >= 0 && v1 != through && v2 != through &&
        !(split && mesh.virtualEdges[mesh.virtualIndex[t]].vertex == through))
      continue;
    const double* l = &mesh.length[3 * std::size_t(t)];
    const double l12 = l[k], l13 = l[(k + 2) % 3], l23 = l[(k + 1) % 3];
    const double s = mesh.slowness[t];
    const double phi1 = valueOf(v1), phi2 = valueOf(v2);
    if (split) {
      const VirtualEdge& e = mesh.virtualEdges[mesh.virtualIndex[t]];
      const double phic = valueOf(e.vertex);
      const TriangleSolution a =
          solveTriangle(phi1, phic, l13, e.toC, e.fromX1, s, false);
      const TriangleSolution b = solveTriangle(phic, phi2, e.toC, l23, e.toX2, s, false);
      best.solves += 2;
      if (a.value < best.value)
        best = {a.value, a.lambda <= 0.5 ? labelOf(v1) : labelOf(e.vertex), best.solves};
      if (b.value < best.value)
        best = {b.value, b.lambda <= 0.5 ? labelOf(e.vertex) : labelOf(v2), best.solves};
    } else {
      const TriangleSolution a =
          solveTriangle(phi1, phi2, l13, l23, l12, s, mesh.edgesOnly[t] != 0);
      best.solves += 1;
      if (a.value < best.value)
        best = {a.value, a.lambda <= 0.5 ? labelOf(v1) : labelOf(v2), best.solves};
    }
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
