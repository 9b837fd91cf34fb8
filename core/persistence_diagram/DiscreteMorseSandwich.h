// The persistence pairs of a Morse complex by the Discrete Morse Sandwich (Guillou,
// Vidal and Tierny 2023, TTK's PersistenceDiagram default), on any complex: the input
// numbers each dimension's critical cells by their position in the filtration, so the
// simplicial and the cubical complexes share this routine.
//  * type 0: (minimum, 1-saddle) by the union-find over the 1-saddles in filtration
//    order, each joining the minima its two descending paths reach; a saddle joining two
//    components kills the younger one (the elder rule), in parallel rounds on the CPU
//    or the GPU (core/morse_smale_complex/ElderRounds.h);
//  * type d-1: ((d-1)-saddle, maximum) by the dual union-find over the (d-1)-saddles not
//    yet paired, in reverse order, with the maxima their two ascending paths reach;
//    every exit through the boundary reaches one virtual maximum "outside", older than
//    every maximum, so it never dies (TTK's boundary rule);
//  * type 1 in 3D: (1-saddle, 2-saddle) by the Z/2 reduction of the Morse boundary
//    (2-saddle columns, 1-saddle rows, an entry per odd number of V-paths) restricted to
//    the saddles left: 2-saddles paired with maxima create H2 classes and their columns
//    reduce to zero (clearing), 1-saddles paired with minima are never a reduced column's
//    pivot (compression).
// Cells left unpaired are the essential classes.
#pragma once

#include "base/Types.h"
#include "core/morse_smale_complex/ElderRounds.h"

#include <array>
#include <utility>
#include <vector>

namespace topogpu::persistence_diagram {

// The extremum pairs' elder rule (core/morse_smale_complex/ElderRounds.h).
using morse_smale_complex::ElderGraph;
using morse_smale_complex::ElderSchedule;
using morse_smale_complex::ElderStats;

// An ascending path that leaves the domain (or the missing side of a boundary facet).
constexpr SimplexId kOutside = -1;

struct SandwichInput {
  int dimension = 0;                 // 2 or 3
  std::array<SimplexId, 4> counts{}; // critical cells per dimension
  // Per 1-saddle (by position), the positions of the minima of its two descending
  // paths (equal when both reach one minimum).
  std::vector<SimplexId> saddle1Minima;
  // Per (d-1)-saddle (by position), the positions of the maxima of its two ascending
  // paths, kOutside for an exit.
  std::vector<SimplexId> saddleMaxima;
  // 3D: the Morse boundary over Z/2, (2-saddle position, 1-saddle position) for each
  // pair joined by an odd number of V-paths, each pair at most once.
  std::vector<std::pair<SimplexId, SimplexId>> boundary;
  bool hasBoundary = false; // 3D: the saddle connections were computed
  // The extremum pairs already found (the device's rounds, numbered as
  // SimplicialMorseSmaleComplexGpu.h's SimplicialGridSaddleEnds says), read in place
  // from the complex: when given, the two sweeps read these kills and the ends above
  // may be empty.
  const std::vector<SimplexId>* minimumKills = nullptr;
  const std::vector<SimplexId>* maximumKills = nullptr;
  bool killsGiven() const { return minimumKills != nullptr || maximumKills != nullptr; }
};

struct SandwichPair {
  int type = 0;        // TTK's PairType: 0, 1 (3D), d-1
  SimplexId birth = 0; // position of the creator (dimension type)
  SimplexId death = 0; // position of the destroyer (dimension type + 1)
};

// The saddle-saddle pairs' boundary expansion (SaddleBoundaryExpansion.h): its parallel
// rounds, the 2-saddles they settled, those left to the serial reduction, the expansion
// steps (V-path steps and added boundaries, every edge toggled counted) and the seconds
// of the two parts.
struct ExpansionStats {
  int rounds = 0;
  SimplexId settledInRounds = 0;
  SimplexId serialSaddles = 0;
  SimplexId toggles = 0;
  double roundsSeconds = 0;
  double serialSeconds = 0;
};

struct SandwichResult {
  std::vector<SandwichPair> pairs;         // type 0, then type d-1, then (3D) type 1
  std::array<std::vector<char>, 4> paired; // per dimension, per position
  // Where the extremum pairs ran (backend), a GPU failure's fallback (warnings), and
  // each sweep's rounds: minima first, then maxima.
  RunReport report;
  std::array<ElderStats, 2> elder{};
  ExpansionStats expansion;
};

struct PairingOptions {
  // Where the extremum pairs run: Gpu (when the complex came from the device) falls
  // back to the CPU on a GPU failure, with a warning.
  Backend backend = Backend::Cpu;
  // The GPU runs the rounds. The CPU's rounds (the same kills) cost more than its
  // serial sweep on 16 cores, so the CPU sweeps by default. In 3D the minima's and the
  // maxima's sweeps run side by side.
  ElderSchedule gpu{};
  ElderSchedule cpu{0, 0};
};

// Throws Error when the input is inconsistent (an end out of range), Aborted on abort.
void pairCriticalCells(const SandwichInput& input, const Monitor& monitor,
                       SandwichResult& result, const PairingOptions& options = {});

} // namespace topogpu::persistence_diagram
