// Small pieces shared by the mesh backends' builders (explicit and GALE): a parallel
// loop over ids, the sort of a simplex's few vertices, and the connectivity's cell count.
#pragma once

#include "base/Types.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstddef>
#include <string>
#include <utility>

namespace topogpu::mesh_building {

template <typename Body> void parallelFor(SimplexId n, Body body) {
  using Range = tbb::blocked_range<SimplexId>;
  tbb::parallel_for(Range(0, n), [&](const Range& r) {
    for (SimplexId i = r.begin(); i < r.end(); ++i)
      body(i);
  });
}

// Insertion sort of a few ids (on fixed arrays of up to 4, std::sort trips GCC 12's
// -Warray-bounds).
inline void sortSmall(SimplexId* ids, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && ids[j] < ids[j - 1]; --j)
      std::swap(ids[j], ids[j - 1]);
}

// The number of cells in a connectivity of `ids` vertex ids, dimension + 1 per cell;
// Error when it is empty or not a multiple.
inline SimplexId cellCount(std::size_t ids, int dimension) {
  const std::size_t arity = std::size_t(dimension) + 1;
  if (ids == 0 || ids % arity != 0)
    throw Error(ids == 0 ? "mesh has no cells"
                         : "cell connectivity is not a multiple of " +
                               std::to_string(arity) + " vertex ids");
  return SimplexId(ids / arity);
}

} // namespace topogpu::mesh_building
