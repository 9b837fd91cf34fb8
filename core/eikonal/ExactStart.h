// Exact polyhedral distances near the seeds, the solvers' start (Problem.h). The local
// solver interpolates a value linearly along the edge a characteristic crosses; near a
// point source the distance is far from linear over an edge (its level sets are circles
// of a few edges' radius), so the first-order error there is a fixed fraction of the
// distance whatever the refinement (4.7% at the second ring of a torus). The vertices
// within a small geodesic radius of the seeds therefore start from their exact distance
// on the piecewise-flat surface and are never updated.
//
// The distances come from continuous Dijkstra over windows (Mitchell, Mount and
// Papadimitriou 1987, with the filtering of Xin and Wang 2009, "Improving Chen and
// Han's algorithm on the discrete geodesic problem", against the ends of a window's
// edge): a window is an interval of an edge lit straight from one (pseudo-)source
// unfolded into the edge's plane; it is propagated across the next triangle into at most
// two windows on its other edges, and lights that triangle's third vertex when the
// straight line reaches it. Shortest paths bend only at saddle vertices (angle sum above
// 2 pi), boundary and non-manifold vertices: those become pseudo-sources when reached.
// Windows are processed in increasing distance (a heap), so every vertex whose distance
// is at most the radius reached is final.
#pragma once

#include "core/eikonal/EikonalMesh.h"

#include <cstddef>
#include <vector>

namespace topogpu::eikonal::detail {

struct ExactBall {
  std::vector<SimplexId> vertices; // within the radius, in no particular order
  double radius = 0;               // every vertex at most this far from a seed is listed
  std::size_t windows = 0;         // windows propagated
};

// The exact distances (lengths in the mesh's units: Mesh::length) from `seeds` to every
// vertex within `radius` of them, into distance[v] and their nearest seed into label[v]
// (per vertex, +inf and -1 on entry, left so outside the ball). At most `maxWindows`
// windows are propagated: when that stops it earlier, `radius` shrinks to the distance
// reached (still exact within).
void exactDistancesNearSeeds(const Mesh& mesh, const std::vector<SimplexId>& seeds,
                             double radius, std::size_t maxWindows, double* distance,
                             SimplexId* label, ExactBall& ball);

} // namespace topogpu::eikonal::detail
