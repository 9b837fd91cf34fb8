// The CPU engine's vocabulary: a simplex of the filtration (diameter and combinatorial
// index), the filtration order within one dimension and the vertex buffer of a simplex.
#pragma once

#include "RipsPersistence.h"

#include "base/Types.h"

#include <array>
#include <limits>

namespace topogpu::rips_persistence::detail {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
constexpr int kMaxVertices = 72; // the overflow check keeps simplices far below this

// A simplex in the filtration: its diameter and combinatorial index (the type the GPU
// backend hands over, RipsPersistence.h).
using Entry = Simplex;

// The filtration order within one dimension: diameter, then the larger combinatorial
// index first (Ripser's tie-break; with it the first equal-diameter cofacet met in
// decreasing index order is the oldest one). Any tie-break gives the same nonzero bars.
inline bool before(const Entry& a, const Entry& b) {
  return a.diameter < b.diameter || (a.diameter == b.diameter && a.index > b.index);
}

using Vertices = std::array<SimplexId, kMaxVertices>;

} // namespace topogpu::rips_persistence::detail
