// GALE's segmentation (section 4.1): a PR octree over the vertices, at most N per leaf,
// its leaves in Z-order packed into segments, and the renumbering that makes each
// segment a contiguous range of new ids.
#include "GaleTriangulation.h"

#include "triangulation/explicit/MeshBuilding.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace topogpu {

using mesh_building::parallelFor;

namespace {

struct Box {
  double lo[3], hi[3];
};

// PR octree leaves over order[first, last): children in fixed octant order, so the leaf
// sequence (and the renumbering) is deterministic; large nodes split in parallel.
void splitOctree(const std::vector<double>& points, SimplexId* order, SimplexId first,
                 SimplexId last, const Box& box, int depth, SimplexId capacity,
                 std::vector<SimplexId>& leafStarts) {
  const SimplexId count = last - first;
  double center[3];
  bool splittable = false;
  for (int a = 0; a < 3; ++a) {
    center[a] = 0.5 * (box.lo[a] + box.hi[a]);
    splittable |= center[a] > box.lo[a] && center[a] < box.hi[a];
  }
  // Coincident points cannot be separated: such a leaf may hold more than N.
  if (count <= capacity || depth >= 48 || !splittable) {
    leafStarts.push_back(first);
    return;
  }
  SimplexId bounds[9];
  bounds[0] = first;
  bounds[8] = last;
  auto split = [&](SimplexId a, SimplexId b, int axis) {
    return SimplexId(
        std::partition(order + a, order + b,
                       [&](SimplexId v) { return points[3 * v + axis] < center[axis]; }) -
        order);
  };
  // the halves' and quarters' partitions are independent: in parallel on large nodes
  const bool wide = count > (SimplexId(1) << 17);
  auto both = [&](auto&& a, auto&& b) {
    if (wide)
      tbb::parallel_invoke(a, b);
    else {
      a();
      b();
    }
  };
  bounds[4] = split(first, last, 2);
  both([&] { bounds[2] = split(first, bounds[4], 1); },
       [&] { bounds[6] = split(bounds[4], last, 1); });
  both(
      [&] {
        both([&] { bounds[1] = split(bounds[0], bounds[2], 0); },
             [&] { bounds[3] = split(bounds[2], bounds[4], 0); });
      },
      [&] {
        both([&] { bounds[5] = split(bounds[4], bounds[6], 0); },
             [&] { bounds[7] = split(bounds[6], bounds[8], 0); });
      });
  std::array<std::vector<SimplexId>, 8> children;
  auto child = [&](int k) {
    if (bounds[k + 1] == bounds[k])
      return;
    Box sub = box;
    for (int a = 0; a < 3; ++a) {
      if ((k >> a) & 1)
        sub.lo[a] = center[a];
      else
        sub.hi[a] = center[a];
    }
    splitOctree(points, order, bounds[k], bounds[k + 1], sub, depth + 1, capacity,
                children[k]);
  };
  if (count > (SimplexId(1) << 15))
    tbb::parallel_for(0, 8, child);
  else
    for (int k = 0; k < 8; ++k)
      child(k);
  for (const auto& c : children)
    leafStarts.insert(leafStarts.end(), c.begin(), c.end());
}

} // namespace

void GaleTriangulation::buildSegments(const std::vector<double>& points) {
  const SimplexId n = numberOfVertices_;
  std::vector<SimplexId> order(n);
  std::iota(order.begin(), order.end(), SimplexId(0));
  const SimplexId capacity = parameters_.segmentCapacity;
  segmentStart_.clear();
  if (points.empty()) {
    for (SimplexId s = 0; s < n; s += capacity)
      segmentStart_.push_back(s);
  } else {
    // The bounding box, and the lowest vertex with a non-finite coordinate (if any).
    struct Bounds {
      Box box{{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
               std::numeric_limits<double>::max()},
              {std::numeric_limits<double>::lowest(),
               std::numeric_limits<double>::lowest(),
               std::numeric_limits<double>::lowest()}};
      SimplexId bad = std::numeric_limits<SimplexId>::max();
    };
    const Bounds bounds = tbb::parallel_reduce(
        tbb::blocked_range<SimplexId>(0, n), Bounds{},
        [&](const tbb::blocked_range<SimplexId>& r, Bounds b) {
          for (SimplexId v = r.begin(); v < r.end(); ++v) {
            for (int a = 0; a < 3; ++a) {
              const double x = points[3 * v + a];
              if (!std::isfinite(x))
                b.bad = std::min(b.bad, v);
              b.box.lo[a] = std::min(b.box.lo[a], x);
              b.box.hi[a] = std::max(b.box.hi[a], x);
            }
          }
          return b;
        },
        [](Bounds a, const Bounds& b) {
          for (int k = 0; k < 3; ++k) {
            a.box.lo[k] = std::min(a.box.lo[k], b.box.lo[k]);
            a.box.hi[k] = std::max(a.box.hi[k], b.box.hi[k]);
          }
          a.bad = std::min(a.bad, b.bad);
          return a;
        });
    if (bounds.bad != std::numeric_limits<SimplexId>::max())
      throw Error("GALE triangulation: vertex " + std::to_string(bounds.bad) +
                  " has a non-finite coordinate");
    const Box& box = bounds.box;
    std::vector<SimplexId> leaves;
    splitOctree(points, order.data(), 0, n, box, 0, capacity, leaves);
    // Consecutive leaves (neighbours along the octree's Z-order) packed into segments
    // of at most N vertices: on a grid the leaves are often far below N (a split of
    // 8 x 8 x 4 = 256 vertices gives leaves of 32), and each segment costs its touching
    // cells outside it and a request, so fuller segments are cheaper per vertex.
    leaves.push_back(n);
    for (std::size_t k = 0; k + 1 < leaves.size(); ++k)
      if (!parameters_.packLeaves || segmentStart_.empty() ||
          leaves[k + 1] - segmentStart_.back() > capacity)
        segmentStart_.push_back(leaves[k]);
  }
  segmentStart_.push_back(n);
  const SimplexId segments = SimplexId(segmentStart_.size()) - 1;
  newOfOld_.allocate(n, n - 1, false);
  oldOfNew_.allocate(n, n - 1, false);
  segmentOfNew_.allocate(n, segments - 1, false);
  parallelFor(n, [&](SimplexId i) {
    oldOfNew_.set(i, order[i]);
    newOfOld_.set(order[i], i);
  });
  parallelFor(segments, [&](SimplexId s) {
    for (SimplexId i = segmentStart_[s]; i < segmentStart_[s + 1]; ++i)
      segmentOfNew_.set(i, s);
  });
}

} // namespace topogpu
