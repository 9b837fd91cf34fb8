// The pairs of a discrete gradient, one per arrow of TTK's gradient glyphs: a cell of
// dimension k and the coface of dimension k + 1 it is paired with, grouped by k (TTK's
// PairType) and ordered by the lower cell's id, as TTK's
// DiscreteGradient::setGradientGlyphs lists them. Every cell that is not critical is in
// exactly one pair, so there are (cells - critical cells) / 2 of them.
//
// Simplicial complex: simplex ids (the critical cells' CellId). Cubical complex: refined
// ids (cubical::cellAt), ordered by the lower cell's id within its dimension
// (cubical::cellIdInDimension, the critical cells' CellId there).
#pragma once

#include "base/Types.h"
#include "core/discrete_gradient/CubicalGrid.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "triangulation/Relations.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace topogpu::discrete_gradient {

struct GradientPairs {
  // Pairs of type k (k = 0, 1, 2): lower[k][i] (dimension k) with upper[k][i] (k + 1).
  std::array<std::vector<SimplexId>, 3> lower, upper;

  std::size_t size() const { return lower[0].size() + lower[1].size() + lower[2].size(); }
};

namespace simplicial {

// What collectPairs reads besides the gradient: the faces of the paired cofaces.
constexpr Relations kPairFaceRelations = EV | FE | TF;

// The number of pairs: the simplices paired with one of their faces.
inline std::size_t countPairs(const Output& g) {
  std::size_t n = 0;
  for (int j = 1; j <= g.dimension; ++j)
    for (const std::uint8_t code : g.gradient[std::size_t(j)])
      n += code <= 3 ? 1 : 0;
  return n;
}

// Every pair, found from the coface side (its byte names the face), so only the faces
// (kPairFaceRelations) are read.
template <typename Triangulation>
void collectPairs(const Triangulation& tri, const Output& g, GradientPairs& pairs) {
  pairs = GradientPairs();
  std::vector<std::pair<SimplexId, SimplexId>> found;
  for (int j = 1; j <= g.dimension; ++j) {
    found.clear();
    const auto& bytes = g.gradient[std::size_t(j)];
    for (SimplexId id = 0; id < SimplexId(bytes.size()); ++id)
      if (bytes[std::size_t(id)] <= 3)
        found.emplace_back(getPairedCell(tri, g, j, id, true), id);
    std::sort(found.begin(), found.end());
    const std::size_t k = std::size_t(j - 1);
    pairs.lower[k].reserve(found.size());
    pairs.upper[k].reserve(found.size());
    for (const auto& [lower, upper] : found) {
      pairs.lower[k].push_back(lower);
      pairs.upper[k].push_back(upper);
    }
  }
}

} // namespace simplicial

namespace cubical_pairs {

// The partner of a cell that is not critical (its gradient byte names the direction).
inline SimplexId partner(const cubical::Grid& g, SimplexId cell, std::uint8_t code) {
  SimplexId c[3];
  cubical::cellCoords(g, cell, c);
  c[cubical::codeAxis(code)] += cubical::codeSign(code);
  return cubical::cellAt(g, c);
}

// The number of pairs: half the cells that are not critical.
inline std::size_t countPairs(const Output& out) {
  std::size_t paired = 0;
  for (const std::uint8_t code : out.gradient)
    paired += code != cubical::kCritical ? 1 : 0;
  return paired / 2;
}

// Every pair, found from the lower cell: its partner lies along an axis the cell does
// not span (an even refined coordinate there).
inline void collectPairs(const Output& out, GradientPairs& pairs) {
  pairs = GradientPairs();
  const cubical::Grid& g = out.grid;
  // Per type: (lower cell's id in its dimension, lower refined id, upper refined id).
  std::array<std::vector<std::array<SimplexId, 3>>, 3> found;
  for (SimplexId cell = 0; cell < SimplexId(out.gradient.size()); ++cell) {
    const std::uint8_t code = out.gradient[std::size_t(cell)];
    if (code == cubical::kCritical)
      continue;
    SimplexId c[3];
    cubical::cellCoords(g, cell, c);
    if ((c[cubical::codeAxis(code)] & 1) != 0)
      continue; // the upper cell of its pair
    const int k = cubical::cellDimension(g, cell);
    found[std::size_t(k)].push_back(
        {cubical::cellIdInDimension(g, cell), cell, partner(g, cell, code)});
  }
  for (std::size_t k = 0; k < 3; ++k) {
    std::sort(found[k].begin(), found[k].end());
    pairs.lower[k].reserve(found[k].size());
    pairs.upper[k].reserve(found[k].size());
    for (const auto& f : found[k]) {
      pairs.lower[k].push_back(f[1]);
      pairs.upper[k].push_back(f[2]);
    }
  }
}

} // namespace cubical_pairs

} // namespace topogpu::discrete_gradient
