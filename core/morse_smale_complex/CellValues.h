// A grid cell's value in the lower-star filtration: the value of its highest vertex in
// the vertex order (the persistence pairs' values, the output records' values and
// ttkVertexScalarField).
#pragma once

#include "base/ScalarArray.h"
#include "core/discrete_gradient/CubicalGrid.h"

namespace topogpu::morse_smale_complex {

// The vertex of highest rank among the corners of a cubical cell (refined id).
inline SimplexId highestVertex(const cubical::Grid& g, SimplexId cell,
                               const SimplexId* rank) {
  SimplexId c[3];
  cubical::cellCoords(g, cell, c);
  SimplexId best = -1;
  for (int corner = 0; corner < 8; ++corner) {
    SimplexId v[3];
    bool used = true;
    for (int a = 0; a < 3; ++a) {
      const bool high = (corner >> a) & 1;
      if (c[a] & 1)
        v[a] = (c[a] + (high ? 1 : -1)) / 2;
      else {
        used = used && !high;
        v[a] = c[a] / 2;
      }
    }
    if (!used)
      continue;
    const SimplexId id = v[0] + g.n[0] * (v[1] + g.n[1] * v[2]);
    if (best < 0 || rank[id] > rank[best])
      best = id;
  }
  return best;
}

inline double valueAt(const ScalarArrayView& values, SimplexId v) {
  double x = 0;
  TOPOGPU_DISPATCH_SCALAR(values.type,
                          x = double(static_cast<const ValueT*>(values.data)[v]));
  return x;
}

} // namespace topogpu::morse_smale_complex
