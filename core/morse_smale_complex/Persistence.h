// Persistence pairs of the Morse-Smale complex by arc cancellation in order of
// persistence (Edelsbrunner, Harer and Zomorodian 2003; Gyulassy et al. 2008), on the
// saddle-extremum arcs of stage 2:
//  * dimension 0: the graph of 1-saddle -> minimum arcs. The valid cancellation of lowest
//    persistence f(saddle) - f(minimum) is taken first: a 1-saddle whose two descending
//    paths reach two different minima (after the earlier cancellations) is cancelled with
//    the higher of them, whose arcs then end at the lower one (a union-find). The minimum
//    left is the essential class.
//  * dimension d-1: the dual, with the (d-1)-saddle -> maximum arcs (2-saddles in 3D,
//    1-saddles in 2D). Every ascending path that leaves the box ends at one virtual
//    maximum "outside" (value +inf, never cancelled), as does the missing side of a
//    saddle on the boundary; a boundary maximum of the complex's output is such an exit.
//    A saddle is cancelled with the lower of its two maxima.
// Values are compared by the vertex order (a cell's value is the rank of its highest
// vertex), so they are distinct per vertex and the pairs are those of the lower-star
// filtration's persistence diagram in H0 and H_{d-1} with positive persistence (checked
// against GUDHI by tests/cli/test_msc_persistence.py). Ties in persistence: the saddle
// met first by the sweep (lower rank in dimension 0, higher rank in the dual), then the
// smaller refined id in dimension 0, the larger in the dual: both sweeps follow the one
// total order (rank, refined id) of the cells, so in 2D each 1-saddle is in at most one
// pair. A saddle whose two paths reach the same (merged) extremum is never
// cancelled here: in 3D it pairs with a saddle of the other index (H1):
//  * dimension 1 in 3D, when the complex has its saddle connections (stage 3): the
//    algebraic form of the saddle-saddle cancellations, a Z/2 reduction of the Morse
//    complex's boundary from 2-saddles to 1-saddles, whose entries are the V-path counts
//    mod 2 (the saddle connections' multiplicities). The Morse complex of a gradient of
//    the lower-star filtration has the filtration's persistent homology, so its pairs
//    are the H1 pairs. Columns (2-saddles) and rows (1-saddles) are ordered by (rank,
//    refined id); a face and coface of equal rank (one lower star) pair with zero
//    persistence: such pairs are not listed but their saddles are not "left" either.
#pragma once

#include "core/morse_smale_complex/MorseSmaleComplex.h"

#include <vector>

namespace topogpu::morse_smale_complex {

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
  // Dimension 0 in cancellation order, dimension d-1 in cancellation order, then (3D
  // with saddle connections) dimension 1 in the order of the deaths.
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

} // namespace topogpu::morse_smale_complex
