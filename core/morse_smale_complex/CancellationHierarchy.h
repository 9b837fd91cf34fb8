// The cancellation hierarchy of a simplicial Morse-Smale complex (Gyulassy, Natarajan,
// Pascucci and Hamann 2008): its extremum-saddle persistence pairs, each with the
// extremum's surviving partner, so that the complex of the field simplified at any
// persistence threshold T is answered without recomputing the gradient.
//
//  - A pair (extremum e, saddle s) of persistence < T is cancelled: e and s leave the
//    complex, and e's region joins that of its partner, the extremum that s's other arc
//    reaches (the other minimum of a 1-saddle's two descending paths; the other maximum,
//    or a boundary maximum when the path leaves the domain, of a (d-1)-saddle's two
//    ascending paths; "outside" when a boundary facet has no other side). Cancelling in
//    increasing persistence (Gyulassy et al.'s order) sends e to its partner's own
//    representative, so each removed extremum's representative is found by following the
//    partners until a kept extremum: a union-find over the cancelled pairs. The side of
//    s that leads to e is found by replaying the elder rule: the pairs in their
//    saddles' filtration order (decreasing for maxima), each extremum merged into its
//    partner's set, so that e is the root on one side of s and the other side's arc end
//    is the partner.
//  - A (1-saddle, 2-saddle) pair (3D) of persistence < T is cancelled too: both saddles
//    leave the complex with their arcs, saddle connections and walls. No label changes
//    (the regions are the extrema's); Gyulassy et al. would also join each 2-saddle
//    connected to the 1-saddle to each 1-saddle connected to the 2-saddle: those new
//    saddle connections are not made here.
//  - The answer relabels the per-vertex DescendingManifold and AscendingManifold and the
//    per-cell AscendingManifold (extrema numbered again in the order of the kept ones),
//    reroutes the arcs of the kept saddles to the representatives of their ends and
//    keeps the saddle connections between kept saddles. Under TTK's segmentation rule a
//    region whose representative is a boundary maximum or the outside gets -1, TTK's
//    label for paths that leave through the boundary.
//
// Building costs O(pairs + arcs); an answer O(pairs + vertices + cells), the relabelling
// in parallel (TBB), on the host whichever backend computed the complex.
#pragma once

#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"

#include <array>
#include <utility>
#include <vector>

namespace topogpu::morse_smale_complex::simplicial {

// An extremum-saddle persistence pair of the complex (from its persistence diagram).
struct ExtremumPair {
  bool maximum = false;    // (d-1)-saddle and maximum, else minimum and 1-saddle
  SimplexId extremum = -1; // index into the minima (criticalCells[0]) or Output::maxima
  SimplexId saddle = -1;   // the saddle's simplex id
  double persistence = 0;
  // The saddle's filtration key (its vertices' ranks, decreasing: detail::keyOf): the
  // order in which the elder rule met the saddles.
  std::array<SimplexId, 4> saddleKey{};
};

// A (1-saddle, 2-saddle) persistence pair (3D), simplex ids.
struct SaddlePair {
  SimplexId saddle1 = -1, saddle2 = -1;
  double persistence = 0;
};

// The partner "outside": a boundary facet's missing side.
constexpr SimplexId kOutsidePartner = -2;

struct CancellationHierarchy {
  // Per side (0: minima, 1: maxima), the cancellable pairs in increasing persistence.
  struct Side {
    std::vector<SimplexId> extremum, saddle, partner;
    std::vector<double> persistence;
    std::vector<SimplexId> saddlePosition; // the saddle's position in criticalCells
    std::vector<SimplexId> pairOf; // per extremum: its pair, -1 when never cancelled
    SimplexId extrema = 0;         // minima, or maxima with the boundary maxima
    SimplexId criticalExtrema = 0; // minima, or critical maxima only
  };
  int dimension = 0;
  std::array<Side, 2> sides;
  // Pairs of the diagram dropped because the complex's arcs do not show the saddle
  // joining its extremum to another one (cannot happen on a consistent complex).
  SimplexId inconsistentPairs = 0;
  double largestPersistence = 0; // the largest finite extremum-saddle persistence
  // The complex's arcs' saddle positions (saddle1Minimum, saddleMaximum) and its
  // connections' (1-saddle, 2-saddle) positions, so an answer looks nothing up.
  std::array<std::vector<SimplexId>, 2> arcPosition;
  // The saddle-saddle pairs (positions in criticalCells[1] and [2]) in increasing
  // persistence.
  std::vector<std::pair<SimplexId, SimplexId>> saddlePairs;
  std::vector<double> saddlePersistence;
  std::vector<std::pair<SimplexId, SimplexId>> connectionPosition;
};

// The complex of the simplified field at one threshold.
struct SimplifiedComplex {
  double threshold = 0;
  AscendingSegmentation rule = AscendingSegmentation::Ttk;
  // Per side: each extremum's representative (itself when kept, kOutsidePartner for the
  // outside) and its index among the kept ones (-1 when removed).
  std::array<std::vector<SimplexId>, 2> representative, newIndex;
  std::array<std::vector<SimplexId>, 2> kept; // indices of the kept extrema, in order
  // Per critical 1-saddle and (d-1)-saddle (positions in criticalCells): cancelled.
  std::array<std::vector<char>, 2> saddleCancelled;
  std::array<SimplexId, 4> counts{}; // the kept critical cells per dimension
  SimplexId boundaryMaxima = 0;
  std::vector<ManifoldLabel> descendingManifold, ascendingManifold, cellAscendingManifold;
  std::vector<SimplexId> morseSmaleManifold;
  std::vector<Arc> saddle1Minimum, saddleMaximum; // extremum: the new index
  std::vector<Connection> connections;            // between kept saddles
  std::vector<SimplexId> keptConnections;         // their indices in the complex's list
  std::uint64_t connectionMultiplicitySum = 0;
  SimplexId cancelledPairs = 0, cycles = 0;
  RunReport report; // the answer's timings
};

// Throws Error when a pair names a cell the complex does not have.
void buildHierarchy(const Output& complex, const std::vector<ExtremumPair>& pairs,
                    const std::vector<SaddlePair>& saddlePairs,
                    CancellationHierarchy& hierarchy);

// The complex at threshold T (>= 0; 0 keeps it whole). rule: the complex's own
// segmentation rule. Throws Error for a negative or NaN threshold.
void simplify(const Output& complex, const CancellationHierarchy& hierarchy, double T,
              AscendingSegmentation rule, SimplifiedComplex& answer);

// The smallest threshold that leaves at most `minima` minima and `maxima` critical
// maxima (0 when the complex has no more): the automatic default of the filter and of
// the CLI's "auto", with kLegibleExtrema for both.
constexpr SimplexId kLegibleExtrema = 20;
double legibleThreshold(const CancellationHierarchy& hierarchy, SimplexId minima,
                        SimplexId maxima);

} // namespace topogpu::morse_smale_complex::simplicial
