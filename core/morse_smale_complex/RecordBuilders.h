// The record assembly both complexes share (OutputRecords.h), over a cell description
// `Cells` that says, for its Cell type: dimension(c), id(c) (among the cells of its
// dimension), vertex(c) (the highest vertex in the vertex order), centre(c, p),
// onBoundary(c) and key(c) (the order in which a saddle's extrema are numbered).
#pragma once

#include "core/morse_smale_complex/CellValues.h"
#include "core/morse_smale_complex/OutputRecords.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace topogpu::morse_smale_complex {

template <typename Cells>
void addCriticalPoint(const Cells& cells, const ScalarArrayView& values,
                      const typename Cells::Cell& c, SimplexId manifoldSize,
                      bool boundaryMaximum, CriticalPointRecords& out) {
  double p[3];
  cells.centre(c, p);
  out.points.insert(out.points.end(), p, p + 3);
  out.cellDimension.push_back(static_cast<signed char>(cells.dimension(c)));
  out.cellId.push_back(cells.id(c));
  const SimplexId v = cells.vertex(c);
  out.vertexId.push_back(v);
  out.value.push_back(valueAt(values, v));
  out.isOnBoundary.push_back(static_cast<signed char>(cells.onBoundary(c)));
  out.manifoldSize.push_back(manifoldSize);
  out.isBoundaryMaximum.push_back(static_cast<signed char>(boundaryMaximum));
}

inline SimplexId clampedMultiplicity(std::uint64_t m) {
  return SimplexId(
      std::min<std::uint64_t>(m, std::uint64_t(std::numeric_limits<SimplexId>::max())));
}

// Port 1, one V-path at a time.
template <typename Cells> class Separatrix1Builder {
public:
  using Cell = typename Cells::Cell;
  Separatrix1Builder(const Cells& cells, const ScalarArrayView& values,
                     Separatrix1Records& out)
      : cells_(cells), values_(values), out_(out) {}

  // The paths of one saddle (each from the saddle's face or coface to its extremum),
  // one separatrix each, in the order given; Multiplicity counts the saddle's paths
  // that reach the same extremum.
  void addSaddle(const Cell& saddle, const std::vector<std::vector<Cell>>& paths,
                 int type) {
    auto end = [&](const std::vector<Cell>& p) { return cells_.key(p.back()); };
    for (const auto& path : paths) {
      SimplexId same = 0;
      for (const auto& q : paths)
        same += end(q) == end(path);
      add(saddle, path, type, same);
    }
  }

  // One path (a saddle connector: path from the 2-saddle's face down to the 1-saddle).
  void addOwn(const Cell& saddle, const std::vector<Cell>& path, int type,
              SimplexId multiplicity) {
    add(saddle, path, type, multiplicity);
  }

private:
  void addPoint(const Cell& c, bool end) {
    double p[3];
    cells_.centre(c, p);
    out_.points.insert(out_.points.end(), p, p + 3);
    out_.cellDimension.push_back(static_cast<signed char>(cells_.dimension(c)));
    out_.cellId.push_back(cells_.id(c));
    out_.mask.push_back(end ? 0 : 1);
  }

  // TTK's layout: the path's points, then a line per step with the separatrix's data.
  void add(const Cell& saddle, const std::vector<Cell>& path, int type,
           SimplexId multiplicity) {
    if (path.empty())
      return;
    const SimplexId first = SimplexId(out_.cellId.size());
    addPoint(saddle, true);
    for (std::size_t k = 0; k < path.size(); ++k)
      addPoint(path[k], k + 1 == path.size());
    const std::size_t n = path.size();
    for (std::size_t k = 0; k < n; ++k) {
      out_.connectivity.push_back(first + SimplexId(k));
      out_.connectivity.push_back(first + SimplexId(k) + 1);
    }
    const Cell& extremum = path.back();
    auto repeat = [n](auto& column, auto value) {
      column.insert(column.end(), n, value);
    };
    repeat(out_.sourceId, cells_.id(saddle));
    repeat(out_.destinationId, cells_.id(extremum));
    repeat(out_.separatrixId, out_.separatrices++);
    repeat(out_.separatrixType, static_cast<signed char>(type));
    repeat(out_.multiplicity, multiplicity);
    repeat(out_.onBoundary, static_cast<signed char>(int(cells_.onBoundary(saddle)) +
                                                     int(cells_.onBoundary(extremum))));
    // A V-path is monotone: its range is that of its two critical ends (TTK's).
    const double a = valueAt(values_, cells_.vertex(saddle));
    const double b = valueAt(values_, cells_.vertex(extremum));
    repeat(out_.functionMaximum, std::max(a, b));
    repeat(out_.functionMinimum, std::min(a, b));
  }

  const Cells& cells_;
  const ScalarArrayView& values_;
  Separatrix1Records& out_;
};

} // namespace topogpu::morse_smale_complex
