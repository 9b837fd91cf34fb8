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
#include <memory>
#include <vector>

namespace topogpu::eikonal::detail {

// The propagation's memory, kept between runs on one mesh (a Preparation's) so that a
// run costs about its ball rather than the mesh: per vertex the distance and label (+inf
// and -1 between runs: a run resets what it touched) and whether shortest paths may bend
// there (it depends on the mesh only, so it is computed once, when first needed), and
// the windows, the heap and the lists, whose capacity is reused.
class ExactWorkspace {
public:
  ExactWorkspace();
  ~ExactWorkspace();
  ExactWorkspace(ExactWorkspace&&) noexcept;
  ExactWorkspace& operator=(ExactWorkspace&&) noexcept;
  std::size_t bytes() const; // host memory held

  struct Data;                    // ExactStart.cpp
  Data& data(SimplexId vertices); // sized for a mesh of this many vertices

private:
  std::unique_ptr<Data> data_;
};

struct ExactBall {
  // Within the radius, in increasing order, with their distance (lengths in the mesh's
  // units) and nearest seed.
  std::vector<SimplexId> vertices;
  std::vector<double> distance;
  std::vector<SimplexId> label;
  double radius = 0;       // every vertex at most this far from a seed is listed
  std::size_t windows = 0; // windows propagated
};

// The exact distances (lengths in the mesh's units: Mesh::length) from `seeds` to every
// vertex within `radius` of them, and their nearest seed. At most `maxWindows` windows
// are propagated: when that stops it earlier, `radius` shrinks to the distance reached
// (still exact within). The workspace belongs to this mesh (a new one, or one used on
// this mesh only).
void exactDistancesNearSeeds(const Mesh& mesh, const std::vector<SimplexId>& seeds,
                             double radius, std::size_t maxWindows,
                             ExactWorkspace& workspace, ExactBall& ball);

} // namespace topogpu::eikonal::detail
