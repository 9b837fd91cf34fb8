// The persistence diagram of a scalar field as VTK-free records, in TTK 1.2's
// conventions (ttkPersistenceDiagram with the Discrete Morse Sandwich backend), so that a
// thin filter or the CLI only copies them:
//  - one record per pair: PairType (0 minimum-saddle, 1 saddle-saddle in 3D, d-1
//    saddle-maximum; TTK's numbers, so 1 in 2D), both ends' critical cells, the vertices
//    that carry their values (each cell's highest vertex in the vertex order: TTK's
//    ttkVertexScalarField), CriticalType of both ends (TTK's: 0 minimum, 1 1-saddle,
//    2 2-saddle, 3 maximum, with TTK's labels for 2D and essential pairs), birth and
//    death values in the field's type promoted to double, persistence, IsFinite;
//  - essential classes as TTK writes them: an unpaired critical cell of dimension k
//    makes a pair of type k (type 2 for a surface's unpaired maximum) that dies at the
//    global maximum, IsFinite 0 (the global minimum's on a grid);
//  - records sorted by the birth vertex's rank (TTK's sortPersistenceDiagram), ties by
//    type, death rank, then the cells' ids (one order whatever found the pairs).
#pragma once

#include "base/ScalarArray.h"
#include "base/Types.h"
#include "core/persistence_diagram/DiscreteMorseSandwich.h"

#include <array>
#include <vector>

namespace topogpu::persistence_diagram {

// TTK's CriticalType values.
enum CriticalType : int {
  kLocalMinimum = 0,
  kSaddle1 = 1,
  kSaddle2 = 2,
  kLocalMaximum = 3,
};

struct DiagramPair {
  int type = 0;                                 // PairType
  bool isFinite = true;                         // IsFinite
  int birthDimension = 0, deathDimension = 0;   // of the critical cells (-1: none)
  SimplexId birthCell = -1, deathCell = -1;     // simplex / refined ids (-1: none)
  SimplexId birthVertex = -1, deathVertex = -1; // ttkVertexScalarField
  int birthType = kLocalMinimum, deathType = kLocalMaximum; // CriticalType
  double birth = 0, death = 0;                              // values at the two vertices
  double persistence() const { return death - birth; }
};

struct Diagram {
  int dimension = 0;
  std::vector<DiagramPair> pairs;
  std::array<SimplexId, 4> criticalCells{};  // per dimension
  std::array<SimplexId, 4> finitePairs{};    // per PairType
  std::array<SimplexId, 4> essentialPairs{}; // per PairType
  // Host bytes the simplicial complex's run needed by its estimate (0: not estimated,
  // the cubical complex).
  double hostMemoryEstimate = 0;
  // The extremum pairs' rounds and the saddles left to the serial sweep: minima, then
  // maxima (a CPU sweep: no rounds, every saddle).
  std::array<ElderStats, 2> elder{};
  ExpansionStats expansion; // 3D, the saddle-saddle pairs without the connections
  RunReport report;
};

// A critical cell at its filtration position: its dimension, id and highest vertex.
struct CriticalCell {
  SimplexId id = -1;
  SimplexId vertex = -1;
};

// The records of the pairs and of the cells left unpaired. cells[k][position]: the
// critical cells of dimension k in filtration order (the positions of `pairs`); rank:
// the vertex order of values.
void buildDiagram(int dimension, const std::array<std::vector<CriticalCell>, 4>& cells,
                  const SandwichResult& pairs, const ScalarArrayView& values,
                  const SimplexId* rank, Diagram& diagram);

// TTK's persistence curve: for each PairType (index 0..2) and for all pairs (index 3),
// the finite pairs' persistence values in increasing order, each with the number of
// finite pairs of at least that persistence.
struct CurvePoint {
  double persistence = 0;
  SimplexId pairs = 0;
};
std::array<std::vector<CurvePoint>, 4> persistenceCurves(const Diagram& diagram);

} // namespace topogpu::persistence_diagram
