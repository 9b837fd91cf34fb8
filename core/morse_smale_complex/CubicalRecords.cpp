#include "CubicalRecords.h"

#include "core/morse_smale_complex/GradientForest.h"
#include "core/morse_smale_complex/RecordBuilders.h"

#include <string>
#include <unordered_map>
#include <utility>

namespace topogpu::morse_smale_complex {

namespace {

// Refined cells of the grid, for RecordBuilders.h.
struct CubicalCells {
  using Cell = SimplexId;
  const cubical::Grid& g;
  const SimplexId* rank;
  const PointGeometry& points;

  int dimension(Cell c) const { return cubical::cellDimension(g, c); }
  SimplexId id(Cell c) const { return cubical::cellIdInDimension(g, c); }
  SimplexId vertex(Cell c) const { return highestVertex(g, c, rank); }
  std::pair<int, SimplexId> key(Cell c) const { return {0, c}; }

  // The centre: halfway between the cell's lowest and highest corners.
  void centre(Cell cell, double p[3]) const {
    SimplexId c[3], low[3], high[3];
    cubical::cellCoords(g, cell, c);
    for (int a = 0; a < 3; ++a) {
      low[a] = c[a] / 2;
      high[a] = (c[a] + 1) / 2;
    }
    double a[3], b[3];
    points.position(low[0] + g.n[0] * (low[1] + g.n[1] * low[2]), a);
    points.position(high[0] + g.n[0] * (high[1] + g.n[1] * high[2]), b);
    for (int k = 0; k < 3; ++k)
      p[k] = 0.5 * (a[k] + b[k]);
  }

  // On the box's boundary: on an extreme plane of an axis it does not span (axes of
  // one vertex excepted: a 2D image is all boundary otherwise).
  bool onBoundary(Cell cell) const {
    SimplexId c[3];
    cubical::cellCoords(g, cell, c);
    for (int a = 0; a < 3; ++a)
      if (g.n[a] > 1 && (c[a] & 1) == 0 &&
          (c[a] == 0 || c[a] == cubical::refinedSize(g, a) - 1))
        return true;
    return false;
  }
};

const SimplexId* vertexOrderOf(const Output& result) {
  const cubical::Grid& g = result.gradient.grid;
  if (SimplexId(result.rank.size()) != g.n[0] * g.n[1] * g.n[2])
    throw Error("internal error: the Morse-Smale complex kept no vertex order for its "
                "output records (Parameters::keepVertexOrder)");
  return result.rank.data();
}

void addCriticalPoints(const Output& result, const CubicalCells& cells,
                       const ScalarArrayView& values, bool sizes,
                       CriticalPointRecords& out) {
  const discrete_gradient::Output& dg = result.gradient;
  const int d = dg.grid.dimension;
  const auto minimumSize =
      labelSizes(result.descendingManifold, dg.criticalCells[0].size());
  const auto maximumSize = labelSizes(result.ascendingManifold, result.maxima.size());
  for (int k = 0; k <= d; ++k)
    for (std::size_t j = 0; j < dg.criticalCells[k].size(); ++j)
      addCriticalPoint(cells, values, dg.criticalCells[k][j],
                       !sizes ? -1
                              : (k == 0 ? minimumSize[j] : (k == d ? maximumSize[j] : 0)),
                       false, out);
  for (std::size_t j = dg.criticalCells[d].size(); j < result.maxima.size(); ++j)
    addCriticalPoint(cells, values, result.maxima[j], sizes ? maximumSize[j] : -1, true,
                     out);
}

} // namespace

void buildRecords(const Output& result, const ScalarArrayView& values,
                  const PointGeometry& points, const RecordSwitches& on, Records& out) {
  namespace cb = cubical;
  out = Records();
  const discrete_gradient::Output& dg = result.gradient;
  const cb::Grid& g = dg.grid;
  const int d = g.dimension;
  const SimplexId* rank = vertexOrderOf(result);
  const CubicalCells cells{g, rank, points};
  if (on.criticalPoints)
    addCriticalPoints(result, cells, values, on.manifoldSizes, out.criticalPoints);

  Separatrix1Builder<CubicalCells> separatrices(cells, values, out.separatrices1);
  if (on.descending1) {
    for (const SimplexId e : dg.criticalCells[1]) {
      SimplexId c[3];
      cb::cellCoords(g, e, c);
      const SimplexId step = cb::refinedStride(g, c[0] & 1 ? 0 : (c[1] & 1 ? 1 : 2));
      std::vector<std::vector<SimplexId>> paths{
          descendingPath(dg, cb::vertexOfCell(g, e - step)),
          descendingPath(dg, cb::vertexOfCell(g, e + step))};
      separatrices.addSaddle(e, paths, 0);
    }
  }
  if (on.ascending1) {
    for (const SimplexId s : dg.criticalCells[d - 1]) {
      SimplexId c[3];
      cb::cellCoords(g, s, c);
      const int a = cb::unspannedAxis(g, c);
      std::vector<std::vector<SimplexId>> paths;
      for (int k = 0; k < 2; ++k) {
        SimplexId p[3] = {c[0], c[1], c[2]};
        p[a] += k ? 1 : -1;
        if (p[a] < 0 || p[a] >= cb::refinedSize(g, a))
          continue; // a boundary saddle: one coface, one path
        const SimplexId t = cb::topIndexAt(g, p);
        std::vector<SimplexId> path = ascendingPath(dg, rank, t);
        // A boundary path whose root facet bounds a critical maximum ends there.
        const SimplexId label = result.cellAscendingManifold[std::size_t(t)];
        if (label >= 0 && path.back() != result.maxima[std::size_t(label)])
          path.push_back(result.maxima[std::size_t(label)]);
        paths.push_back(std::move(path));
      }
      separatrices.addSaddle(s, paths, d - 1);
    }
  }
  // Saddle-saddle arcs (3D): one separatrix per connected pair along one of its V-paths,
  // from the 2-saddle down to the 1-saddle; Multiplicity counts them all.
  if (on.saddleConnectors && d == 3) {
    for (const saddle_connections::Arc& arc : result.saddleConnections.arcs) {
      const std::vector<SimplexId> path = saddle_connections::tracePath(dg, arc);
      if (path.size() < 2)
        continue; // the core found paths, so a trace exists; never draw a broken one
      separatrices.addOwn(path.front(), {path.begin() + 1, path.end()}, 1,
                          clampedMultiplicity(arc.multiplicity));
    }
  }
}

namespace {

// One wall's cell data: the function range over its cells and the saddles on its border
// (TTK's separatricesSaddles), and how many of those critical cells are on the boundary.
void addWall(const separatrices2::Walls& walls, std::size_t i, const CubicalCells& cells,
             const ScalarArrayView& values, int type, SimplexId separatrixId,
             Separatrix2Records& out) {
  const SimplexId saddle = walls.saddles[i];
  double lowest = valueAt(values, cells.vertex(saddle)), highest = lowest;
  int onBoundary = int(cells.onBoundary(saddle));
  auto extend = [&](SimplexId cell) {
    const double x = valueAt(values, cells.vertex(cell));
    lowest = std::min(lowest, x);
    highest = std::max(highest, x);
  };
  for (std::size_t k = walls.reachedOffsets[i]; k < walls.reachedOffsets[i + 1]; ++k) {
    extend(walls.reached[k]);
    onBoundary += int(cells.onBoundary(walls.reached[k]));
  }
  for (std::size_t k = walls.offsets[i]; k < walls.offsets[i + 1]; ++k)
    extend(walls.cells[k]);
  const std::size_t n = walls.offsets[i + 1] - walls.offsets[i];
  out.sourceId.insert(out.sourceId.end(), n, cells.id(saddle));
  out.separatrixId.insert(out.separatrixId.end(), n, separatrixId);
  out.separatrixType.insert(out.separatrixType.end(), n, static_cast<signed char>(type));
  out.functionMaximum.insert(out.functionMaximum.end(), n, highest);
  out.functionMinimum.insert(out.functionMinimum.end(), n, lowest);
  out.onBoundary.insert(out.onBoundary.end(), n,
                        static_cast<signed char>(std::min(onBoundary, 127)));
}

// The polygons of the wall cells, corners shared: grid vertices (quads), voxel centres
// (edges) or, where an edge's dual quad is clipped by the box, boundary cells; dense
// maps for the first two, so the corners are shared in one pass without sorting.
class Polygons {
public:
  Polygons(const CubicalCells& cells, Separatrix2Records& out)
      : cells_(cells), out_(out) {}

  void add(SimplexId cell) {
    const cubical::Grid& g = cells_.g;
    SimplexId corners[4];
    separatrices2::polygonCorners(g, cell, corners);
    for (const SimplexId corner : corners) {
      SimplexId x[3];
      cubical::cellCoords(g, corner, x);
      const int dimension = cubical::cellDimension(g, corner);
      SimplexId* slot = nullptr;
      if (dimension == 0 || dimension == 3) {
        std::vector<SimplexId>& map = dimension == 0 ? vertexPoint_ : voxelPoint_;
        if (map.empty())
          map.assign(std::size_t(dimension == 0 ? g.n[0] * g.n[1] * g.n[2]
                                                : cubical::topCellCount(g)),
                     -1);
        slot = &map[std::size_t(dimension == 0 ? cubical::vertexOfCell(g, corner)
                                               : cubical::topIndexAt(g, x))];
      } else {
        slot = &otherPoint_.emplace(corner, -1).first->second;
      }
      if (*slot < 0) {
        double p[3];
        cells_.centre(corner, p);
        *slot = SimplexId(out_.points.size() / 3);
        out_.points.insert(out_.points.end(), p, p + 3);
      }
      out_.connectivity.push_back(*slot);
    }
    out_.offsets.push_back(SimplexId(out_.connectivity.size()));
  }

private:
  const CubicalCells& cells_;
  Separatrix2Records& out_;
  std::vector<SimplexId> vertexPoint_, voxelPoint_;
  std::unordered_map<SimplexId, SimplexId> otherPoint_;
};

} // namespace

void buildSeparatrices2(const Output& result, const separatrices2::Output& walls,
                        const ScalarArrayView& values, const PointGeometry& points,
                        Separatrix2Records& out) {
  out = Separatrix2Records();
  const CubicalCells cells{result.gradient.grid, vertexOrderOf(result), points};
  Polygons polygons(cells, out);
  SimplexId separatrixId = 0;
  for (const auto& [kind, type] :
       {std::pair<const separatrices2::Walls*, int>{&walls.descending, 2},
        {&walls.ascending, 1}}) {
    for (std::size_t i = 0; i < kind->size(); ++i, ++separatrixId) {
      addWall(*kind, i, cells, values, type, separatrixId, out);
      for (std::size_t k = kind->offsets[i]; k < kind->offsets[i + 1]; ++k)
        polygons.add(kind->cells[k]);
    }
  }
}

} // namespace topogpu::morse_smale_complex
