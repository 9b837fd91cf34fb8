#include "PersistenceDiagram.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <string>

namespace topogpu::persistence_diagram {

namespace {

double valueAt(const ScalarArrayView& values, SimplexId v) {
  double x = 0;
  TOPOGPU_DISPATCH_SCALAR(values.type,
                          x = double(static_cast<const ValueT*>(values.data)[v]));
  return x;
}

// TTK's CriticalType of a finite pair's ends (ttk::PersistenceDiagram's conversion of
// the sandwich's pairs): type 1 is the saddle-maximum pair in 2D, whose saddle TTK
// labels Saddle2.
int birthCriticalType(int type, int dimension, bool finite) {
  if (type == 0)
    return kLocalMinimum;
  if (type == 1)
    return dimension == 3 ? kSaddle1 : kSaddle2;
  return finite || dimension == 3 ? kSaddle2 : kLocalMaximum;
}

int deathCriticalType(int type, int dimension, bool finite) {
  if (type == 0)
    return finite ? kSaddle1 : kLocalMaximum;
  if (type == 1)
    return finite && dimension == 3 ? kSaddle2 : kLocalMaximum;
  return kLocalMaximum;
}

} // namespace

void buildDiagram(int dimension, const std::array<std::vector<CriticalCell>, 4>& cells,
                  const SandwichResult& pairs, const ScalarArrayView& values,
                  const SimplexId* rank, Diagram& diagram) {
  diagram.dimension = dimension;
  diagram.pairs.clear();
  diagram.criticalCells = {};
  diagram.finitePairs = {};
  diagram.essentialPairs = {};
  for (int k = 0; k <= dimension; ++k)
    diagram.criticalCells[std::size_t(k)] = SimplexId(cells[std::size_t(k)].size());
  // The essential pairs die at the global maximum (the last vertex of the order).
  const SimplexId globalMax = tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, values.size), SimplexId(-1),
      [&](const tbb::blocked_range<SimplexId>& r, SimplexId found) {
        for (SimplexId v = r.begin(); v < r.end() && found < 0; ++v)
          if (rank[v] == values.size - 1)
            found = v;
        return found;
      },
      [](SimplexId a, SimplexId b) { return a >= 0 ? a : b; });
  auto record = [&](int type, int birthDim, const CriticalCell& b, int deathDim,
                    const CriticalCell* d) {
    DiagramPair p;
    p.type = type;
    p.isFinite = d != nullptr;
    p.birthDimension = birthDim;
    p.birthCell = b.id;
    p.birthVertex = b.vertex;
    p.deathDimension = d ? deathDim : -1;
    p.deathCell = d ? d->id : -1;
    p.deathVertex = d ? d->vertex : globalMax;
    p.birthType = birthCriticalType(type, dimension, p.isFinite);
    p.deathType = deathCriticalType(type, dimension, p.isFinite);
    p.birth = valueAt(values, p.birthVertex);
    p.death = valueAt(values, p.deathVertex);
    return p;
  };
  for (const SandwichPair& s : pairs.pairs) {
    if (s.birth < 0 || s.birth >= SimplexId(cells[std::size_t(s.type)].size()) ||
        s.death < 0 || s.death >= SimplexId(cells[std::size_t(s.type) + 1].size()))
      throw Error("persistence diagram: a pair (type " + std::to_string(s.type) +
                  ") names a cell outside the critical cells");
    ++diagram.finitePairs[std::size_t(s.type)];
  }
  // The finite pairs' records in parallel (the sort below fixes the order), then the
  // essential classes (TTK: unpaired minima, 1-saddles, 2-saddles in 3D and maxima in
  // 2D; a tet mesh's unpaired maxima are not written).
  diagram.pairs.resize(pairs.pairs.size());
  tbb::parallel_for(std::size_t(0), pairs.pairs.size(), [&](std::size_t i) {
    const SandwichPair& s = pairs.pairs[i];
    diagram.pairs[i] =
        record(s.type, s.type, cells[std::size_t(s.type)][std::size_t(s.birth)],
               s.type + 1, &cells[std::size_t(s.type) + 1][std::size_t(s.death)]);
  });
  for (int k = 0; k <= dimension; ++k) {
    if (k == dimension && dimension == 3)
      break;
    const auto& paired = pairs.paired[std::size_t(k)];
    for (std::size_t i = 0; i < cells[std::size_t(k)].size(); ++i)
      if (i >= paired.size() || !paired[i]) {
        diagram.pairs.push_back(record(k, k, cells[std::size_t(k)][i], -1, nullptr));
        ++diagram.essentialPairs[std::size_t(k)];
      }
  }
  tbb::parallel_sort(diagram.pairs.begin(), diagram.pairs.end(),
                     [&](const DiagramPair& a, const DiagramPair& b) {
                       if (a.birthVertex != b.birthVertex)
                         return rank[a.birthVertex] < rank[b.birthVertex];
                       if (a.type != b.type)
                         return a.type < b.type;
                       if (a.deathVertex != b.deathVertex)
                         return rank[a.deathVertex] < rank[b.deathVertex];
                       if (a.birthCell != b.birthCell)
                         return a.birthCell < b.birthCell;
                       return a.deathCell < b.deathCell;
                     });
}

std::array<std::vector<CurvePoint>, 4> persistenceCurves(const Diagram& diagram) {
  std::array<std::vector<double>, 4> persistence;
  for (const DiagramPair& p : diagram.pairs) {
    if (!p.isFinite)
      continue;
    persistence[std::size_t(std::min(p.type, 2))].push_back(p.persistence());
    persistence[3].push_back(p.persistence());
  }
  std::array<std::vector<CurvePoint>, 4> curves;
  for (std::size_t t = 0; t < 4; ++t) {
    std::vector<double>& values = persistence[t];
    std::sort(values.begin(), values.end());
    const SimplexId n = SimplexId(values.size());
    for (SimplexId i = 0; i < n; ++i)
      curves[t].push_back({values[std::size_t(i)], n - i});
  }
  return curves;
}

} // namespace topogpu::persistence_diagram
