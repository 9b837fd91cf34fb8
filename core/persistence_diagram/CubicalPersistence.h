// Persistence pairs of the cubical Morse-Smale complex (a grid's vertices, edges,
// squares and voxels: the gMSC paper's complex) by the Discrete Morse Sandwich
// (DiscreteMorseSandwich.h), on the saddle-extremum arcs of stage 2 and, in 3D, the
// saddle connections of stage 3 (V-path counts mod 2):
//  * dimension 0: the 1-saddle -> minimum arcs as they are (descending paths never
//    leave the box);
//  * dimension d-1: the (d-1)-saddles' ascending paths traced again (an arc of the
//    complex records where a path that left the box ends on the boundary surface, while
//    for the filtration of the box every exit is the one virtual maximum "outside"), as
//    is the missing side of a saddle on the boundary; a boundary maximum of the
//    complex's output is such an exit;
//  * dimension 1 in 3D, when the complex has its saddle connections: the Morse
//    complex's boundary reduced over Z/2. The Morse complex of a gradient of the
//    lower-star filtration has the filtration's persistent homology.
// The filtration order of the critical cells is (rank of the highest vertex, refined
// id). The pairs are those of the lower-star filtration's persistence diagram in every
// dimension with positive persistence (checked against GUDHI by
// tests/cli/test_msc_persistence.py); a face and coface of equal rank (one lower star)
// pair with zero persistence: such saddle-saddle pairs are not listed but their saddles
// are not "left" either.
#pragma once

#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/persistence_diagram/PersistenceDiagram.h"

#include <vector>

namespace topogpu::persistence_diagram {

using morse_smale_complex::Output;

struct PersistencePair {
  int dimension = 0;    // of the homology class: 0 or d-1
  SimplexId birth = -1; // refined id of the creator: a minimum or a (d-1)-saddle
  SimplexId death = -1; // refined id of the destroyer: a 1-saddle or a maximum top cell
  // Cell values in the vertex order (rank of the cell's highest vertex) and in f.
  SimplexId birthRank = -1, deathRank = -1;
  double birthValue = 0, deathValue = 0;
  SimplexId rankPersistence() const { return deathRank - birthRank; }
  double persistence() const { return deathValue - birthValue; }
};

struct Persistence {
  // Dimension 0 in the order of the deaths, dimension d-1 in the reverse order of the
  // births, then (3D with saddle connections) dimension 1 in the order of the deaths.
  std::vector<PersistencePair> pairs;
  bool saddlePairs = false; // dimension 1 was computed (3D, stage 3 present)
  // Critical cells no cancellation removed (refined ids): the essential minimum (one on
  // a connected grid), 1-saddles and (d-1)-saddles left (in 3D without saddlePairs those
  // of the H1 pairs, none otherwise on a box), maxima left (none on a box: each dies
  // into a saddle or "outside").
  std::vector<SimplexId> minima, saddles1, saddlesTop, maxima;
};

// rank: the vertex order of values (computeVertexOrderCpu). complex: execute()'s output
// for the same values. Throws Error when the sizes disagree.
void computePersistence(const Output& complex, const ScalarArrayView& values,
                        const SimplexId* rank, Persistence& persistence);

// The same, computing the vertex order first.
void computePersistence(const Output& complex, const ScalarArrayView& values,
                        Persistence& persistence);

// The diagram records (PersistenceDiagram.h) of the same pairs.
void diagramOfCubicalComplex(const Output& complex, const ScalarArrayView& values,
                             const SimplexId* rank, const Monitor& monitor,
                             Diagram& diagram);

} // namespace topogpu::persistence_diagram
