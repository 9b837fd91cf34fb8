// A cell's place in GALE's cell lists (I_T), the one rule the host (CellLists.cpp) and
// the GPU producer's kernel (cuda/gale) both build the lists by: a cell is internal to
// the segment of its lowest vertex, and external to every other segment one of its
// vertices is in, each named once.
#pragma once

#include "base/Types.h"

namespace topogpu::gale {

// cell: its arity vertices (new ids, in any order); segmentOf(v): new vertex v's segment.
// Sets own to the cell's own segment and writes the other segments it touches to
// others[0, n) (at most 3: the segments of the other vertices, in the cell's vertex
// order, own and repeats left out); returns n.
template <typename Id, typename SegmentOf>
TOPOGPU_HD int cellSegments(const Id* cell, int arity, const SegmentOf& segmentOf,
                            Id& own, Id others[3]) {
  Id lowest = cell[0];
  for (int k = 1; k < arity; ++k)
    lowest = cell[k] < lowest ? cell[k] : lowest;
  own = segmentOf(lowest);
  int n = 0;
  for (int k = 0; k < arity; ++k) {
    const Id s = segmentOf(cell[k]);
    bool known = s == own;
    for (int j = 0; j < n; ++j)
      known |= others[j] == s;
    if (!known)
      others[n++] = s;
  }
  return n;
}

} // namespace topogpu::gale
