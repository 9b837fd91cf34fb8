// patchFIM's round (Algorithms 2.3-2.5 of Fu et al. 2011, with the band of
// Patches.h) per vertex and per patch: the update of an own vertex from its GEO entries
// and the decisions a round takes on it (dirty, pending, moved, announced, stamped),
// and the band's next threshold. The host-side patchFIM (PatchFimHost.cpp, the tests'
// reference) and the CUDA kernel (cuda/eikonal/PatchFimKernels.cu) both call these
// (host + device), so that a change of the scheme is made once and both keep taking
// the same decisions on the same doubles, bit for bit. Comparisons and one addition
// here; the arithmetic of a solve is PatchSolve.h's.
#pragma once

#include "base/Types.h"
#include "core/eikonal/PatchSolve.h"

#include <climits>
#include <cmath>
#include <cstdint>

namespace topogpu::eikonal {

// Loading a patch's local table in round `round` (from 1): a local vertex is dirty when
// it was stamped in the previous round (it changed there; the seeds are stamped 0).
TOPOGPU_HD bool changedLastRound(std::int32_t stamp, int round) {
  return stamp == round - 1;
}

// An own vertex left pending (its value was above an earlier round's threshold) is
// released, and dirty, once the threshold reaches its value.
TOPOGPU_HD bool releasedByThreshold(bool pending, double value, double threshold) {
  return pending && value <= threshold;
}

// The update of an own vertex from its entries [begin, end) of GEO, or one thread's
// share of it: the solves begin + lane, begin + lane + lanes, ... below end, each read
// through load(c, k) (the c-th of this lane, k its index in GEO; the kernel keeps the
// first ones in registers). Only the solves that read a local vertex flagged in `dirty`
// (changed since this vertex was last solved) are computed, and the result is the
// smaller of the current value and theirs. The other solves would repeat their last
// results, which are not below the current value (values only decrease), so this is the
// full one-ring minimum at a fraction of the solves. The first strictly smaller solution
// wins (PatchUpdate::index: its solve's place from begin); its label is the seed of the
// upwind vertex nearer the characteristic's foot. With lane 0 of 1 this is the
// vertex's serial scan; the lanes' results combine into it by laneWins.
template <typename Load>
TOPOGPU_HD PatchUpdate updateFromPatchLane(const Load& load, std::int64_t begin,
                                           std::int64_t end, int lane, int lanes,
                                           const double* value, const SimplexId* label,
                                           const unsigned char* dirty, double current,
                                           SimplexId currentLabel) {
  PatchUpdate best{current, currentLabel, 0, INT_MAX};
  for (int c = 0;; ++c) {
    const std::int64_t k = begin + lane + std::int64_t(c) * lanes;
    if (k >= end)
      break;
    const PatchSolve e = load(c, k);
    if (!dirty[e.a] && !dirty[e.b])
      continue;
    const TriangleSolution s = solvePatchTriangle(value[e.a], value[e.b], e);
    ++best.solves;
    if (s.value < best.value) {
      best.value = s.value;
      best.label = s.lambda <= 0.5 ? label[e.a] : label[e.b];
      best.index = int(k - begin);
    }
  }
  return best;
}

// The serial update (the host's; the kernel splits it over lanes).
TOPOGPU_HD PatchUpdate updateFromPatch(const PatchSolve* solves, std::int64_t begin,
                                       std::int64_t end, const double* value,
                                       const SimplexId* label, const unsigned char* dirty,
                                       double current, SimplexId currentLabel) {
  return updateFromPatchLane([solves](int, std::int64_t k) { return solves[k]; }, begin,
                             end, 0, 1, value, label, dirty, current, currentLabel);
}

// Whether another lane's result (value, solve index) replaces this lane's: the smaller
// value, and among equal ones the lower solve index, which is what the serial strict-<
// scan over all the solves returns (its first solve reaching the minimum).
TOPOGPU_HD bool laneWins(double otherValue, int otherIndex, double value, int index) {
  return otherValue < value || (otherValue == value && otherIndex < index);
}

// A sweep's new value of an own vertex from its update `best`: values only decrease, a
// fixed vertex (seed or exact start) never changes, an update beyond stopDistance is
// dropped. moved: by more than epsilon and within the round's threshold (a patch has
// converged when a sweep moved none of its vertices).
struct SweepStep {
  double value;
  SimplexId label;
  bool moved;
};
TOPOGPU_HD SweepStep acceptUpdate(bool fixed, double current, SimplexId currentLabel,
                                  const PatchUpdate& best, double stopDistance,
                                  double epsilon, double threshold) {
  SweepStep step{current, currentLabel, false};
  if (!fixed && best.value < current && best.value <= stopDistance) {
    step.moved = current - best.value > epsilon && best.value <= threshold;
    step.value = best.value;
    step.label = best.label;
  }
  return step;
}

// After a sweep, a vertex whose value changed from `current` to `next` is dirty for the
// next sweep when within the threshold, else it waits (pending) until the threshold
// reaches it; an unchanged vertex keeps its pending flag.
struct SweepMark {
  bool changed, dirty;
};
TOPOGPU_HD SweepMark markAfterSweep(double next, double current, double threshold,
                                    bool& pending) {
  const bool changed = next != current;
  const bool dirty = changed && next <= threshold;
  if (changed)
    pending = !dirty;
  return {changed, dirty};
}

// The end of a patch's round for an own vertex at `value`. A converged patch announces
// the vertices not pending that moved by more than epsilon since their last
// announcement: they are stamped with the round and their readers (the patches holding
// them in their halo) join the next list. An unconverged patch stamps the vertices that
// moved in its last sweep (dirty: still to propagate in the patch, which stays listed).
// A patch stays listed too while one of its vertices is pending.
struct VertexRoundEnd {
  bool announce, stamp;
};
TOPOGPU_HD VertexRoundEnd endOfRound(bool converged, bool pending, double announced,
                                     double value, bool dirty, double epsilon) {
  const bool announce = converged && !pending && announced - value > epsilon;
  return {announce, converged ? announce : dirty};
}

// The band's threshold of the next round: the smallest value the round left pending
// plus the band, or, when none was left (+inf), this round's threshold plus the band.
TOPOGPU_HD double nextThreshold(double minPending, double threshold, double band) {
  return minPending < HUGE_VAL ? minPending + band : threshold + band;
}

} // namespace topogpu::eikonal
