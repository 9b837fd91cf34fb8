// The persistence pairs of a simplicial complex's diagram in the form the cancellation
// hierarchy reads (core/morse_smale_complex/CancellationHierarchy.h): the extremum-saddle
// pairs
// type 0 (minimum, 1-saddle) and type d-1 ((d-1)-saddle, maximum), finite ones only
// (an essential extremum is never cancelled), extrema as indices into the complex's
// minima and maxima.
#pragma once

#include "core/morse_smale_complex/CancellationHierarchy.h"
#include "core/persistence_diagram/PersistenceDiagram.h"

#include <algorithm>
#include <vector>

namespace topogpu::persistence_diagram {

template <typename Triangulation>
std::vector<morse_smale_complex::simplicial::ExtremumPair>
extremumPairs(const Triangulation& tri, const Diagram& diagram,
              const morse_smale_complex::simplicial::Output& complex) {
  const auto& cells = complex.gradient.criticalCells;
  const int d = complex.gradient.dimension;
  auto indexOf = [](const std::vector<SimplexId>& sorted, SimplexId id) {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), id);
    return it == sorted.end() || *it != id ? SimplexId(-1)
                                           : SimplexId(it - sorted.begin());
  };
  std::vector<morse_smale_complex::simplicial::ExtremumPair> pairs;
  for (const DiagramPair& p : diagram.pairs) {
    if (!p.isFinite)
      continue;
    namespace smsc = morse_smale_complex::simplicial;
    if (p.type == 0)
      pairs.push_back({false, indexOf(cells[0], p.birthCell), p.deathCell,
                       p.persistence(),
                       smsc::detail::keyOf(tri, 1, p.deathCell, complex.rank.data())});
    else if (p.type == d - 1)
      pairs.push_back(
          {true, indexOf(cells[std::size_t(d)], p.deathCell), p.birthCell,
           p.persistence(),
           smsc::detail::keyOf(tri, d - 1, p.birthCell, complex.rank.data())});
  }
  return pairs;
}

// The (1-saddle, 2-saddle) pairs (3D), finite ones.
inline std::vector<morse_smale_complex::simplicial::SaddlePair>
saddlePairs(const Diagram& diagram) {
  std::vector<morse_smale_complex::simplicial::SaddlePair> pairs;
  if (diagram.dimension == 3)
    for (const DiagramPair& p : diagram.pairs)
      if (p.isFinite && p.type == 1)
        pairs.push_back({p.birthCell, p.deathCell, p.persistence()});
  return pairs;
}

} // namespace topogpu::persistence_diagram
