// The host-side patchFIM (Patches.h: runPatchFimHost), the device solver's twin: the
// round's per-vertex decisions are PatchRound.h's, which the kernel calls too; this
// file holds the host's loops over the patches and their vertices (TBB over the
// active patches) and the round's bookkeeping (stamps, lists, threshold).
#include "PatchRound.h"
#include "Patches.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace topogpu::eikonal {

std::vector<std::int32_t> initialActivePatches(const PatchArrays& arrays,
                                               const std::vector<SimplexId>& fixed) {
  std::vector<std::uint8_t> flag(std::size_t(arrays.patches), 0);
  for (SimplexId v : fixed) {
    flag[arrays.patchOf[v]] = 1;
    for (std::int32_t i = arrays.readerOffsets[v]; i < arrays.readerOffsets[v + 1]; ++i)
      flag[arrays.readers[i]] = 1;
  }
  std::vector<std::int32_t> active;
  for (std::int32_t p = 0; p < arrays.patches; ++p) {
    if (flag[p])
      active.push_back(p);
  }
  return active;
}

std::vector<std::int32_t> initialActivePatches(const PatchArrays& arrays,
                                               const PatchFimState& state) {
  std::vector<SimplexId> fixed;
  for (std::size_t v = 0; v < state.seed.size(); ++v)
    if (state.seed[v])
      fixed.push_back(SimplexId(v));
  return initialActivePatches(arrays, fixed);
}

namespace {

// The run's state between rounds, as on the device: the values at the end of the
// previous round (state.value, the paper's VAL_in) and this round's (valueNext,
// VAL_out), the round stamps twice (changed[v]: the last round v moved by more than
// epsilon in, -1 never, the seeds 0; stampNext: this round's), the announced values
// (a patch tells its readers when it converges, Algorithm 2.4; they then see the
// vertex dirty), the pending flags (changed while above the round's threshold, not
// yet propagated), the patches' schedule stamps (the round each is listed for) and the
// band's threshold.
struct HostRun {
  const PatchArrays& arrays;
  const PatchFimSettings& settings;
  PatchFimState& state;
  std::vector<double> valueNext;
  std::vector<SimplexId> labelNext;
  std::vector<std::int32_t> changed, stampNext;
  std::vector<double> announced;
  std::vector<std::uint8_t> pending;
  std::vector<std::atomic<std::int32_t>> scheduled;
  // Round 1 propagates the seeds' 0 plus the band.
  double threshold;

  HostRun(const PatchArrays& a, const PatchFimSettings& s, PatchFimState& st)
      : arrays(a), settings(s), state(st), valueNext(st.value), labelNext(st.label),
        changed(st.value.size(), -1), announced(st.value), pending(st.value.size(), 0),
        scheduled(std::size_t(a.patches)), threshold(0 + s.band) {
    for (std::size_t v = 0; v < changed.size(); ++v)
      if (st.seed[v])
        changed[v] = 0;
    stampNext = changed;
    for (auto& f : scheduled)
      f.store(0, std::memory_order_relaxed);
  }
};

// A thread's patch table and what it gathers over a round.
struct Local {
  std::vector<double> val, next;
  std::vector<SimplexId> lab, nextLab;
  std::vector<unsigned char> dirty;
  std::vector<std::int32_t> list; // patches scheduled for the next round
  long long solves = 0;
  double minPending = HUGE_VAL;
};

// Patch p's local table from the values at the end of round - 1 (Jacobi between
// patches), its dirty flags from the stamps, and its own pending vertices the
// threshold now reaches released.
void loadTable(HostRun& run, std::int32_t p, int round, Local& L) {
  const PatchArrays& arrays = run.arrays;
  const std::int64_t base = arrays.localOffsets[p];
  const std::int32_t nLocal = std::int32_t(arrays.localOffsets[p + 1] - base);
  const std::int32_t ownN = arrays.ownCount[p];
  L.val.resize(std::size_t(nLocal));
  L.lab.resize(std::size_t(nLocal));
  L.dirty.resize(std::size_t(nLocal));
  L.next.resize(std::size_t(ownN));
  L.nextLab.resize(std::size_t(ownN));
  for (std::int32_t i = 0; i < nLocal; ++i) {
    const std::int32_t u = arrays.localVertices[base + i];
    L.val[i] = run.state.value[u];
    L.lab[i] = run.state.label[u];
    L.dirty[i] = changedLastRound(run.changed[u], round);
  }
  for (std::int32_t i = 0; i < ownN; ++i) {
    const std::int32_t v = arrays.localVertices[base + i];
    if (releasedByThreshold(run.pending[v] != 0, L.val[i], run.threshold)) {
      run.pending[v] = 0;
      L.dirty[i] = 1;
    }
  }
}

// Up to internalIterations Jacobi sweeps over p's own vertices; true when a sweep
// moved no value by more than epsilon (the patch converged).
bool sweepPatch(HostRun& run, std::int32_t p, Local& L) {
  const PatchArrays& arrays = run.arrays;
  const PatchFimSettings& settings = run.settings;
  const std::int64_t base = arrays.localOffsets[p];
  const std::int32_t nLocal = std::int32_t(arrays.localOffsets[p + 1] - base);
  const std::int32_t ownN = arrays.ownCount[p];
  bool converged = false;
  for (int it = 0; it < settings.internalIterations && !converged; ++it) {
    bool moved = false;
    for (std::int32_t i = 0; i < ownN; ++i) {
      // A fixed vertex solves nothing (as the kernel's empty range).
      const bool fixed = run.state.seed[arrays.localVertices[base + i]] != 0;
      const std::int64_t begin = arrays.solveOffsets[base + i];
      const PatchUpdate u = updateFromPatch(
          arrays.solves.data(), begin, fixed ? begin : arrays.solveOffsets[base + i + 1],
          L.val.data(), L.lab.data(), L.dirty.data(), L.val[i], L.lab[i]);
      L.solves += u.solves;
      const SweepStep step =
          acceptUpdate(fixed, L.val[i], L.lab[i], u, settings.stopDistance,
                       settings.epsilon, run.threshold);
      moved = moved || step.moved;
      L.next[i] = step.value;
      L.nextLab[i] = step.label;
    }
    for (std::int32_t i = 0; i < ownN; ++i) {
      const std::int32_t v = arrays.localVertices[base + i];
      bool pending = run.pending[v] != 0;
      L.dirty[i] = markAfterSweep(L.next[i], L.val[i], run.threshold, pending).dirty;
      run.pending[v] = pending ? 1 : 0;
      L.val[i] = L.next[i];
      L.lab[i] = L.nextLab[i];
    }
    for (std::int32_t i = ownN; i < nLocal; ++i)
      L.dirty[i] = 0; // the halo is fixed within the round
    converged = !moved;
  }
  return converged;
}

// The end of p's round: its own values into this round's arrays, announcements (the
// readers listed), stamps, and p listed again when unconverged or with pending values.
void endPatchRound(HostRun& run, std::int32_t p, int round, bool converged, Local& L) {
  const PatchArrays& arrays = run.arrays;
  const std::int64_t base = arrays.localOffsets[p];
  const std::int32_t ownN = arrays.ownCount[p];
  const auto schedule = [&](std::int32_t q) {
    if (run.scheduled[q].exchange(round + 1, std::memory_order_relaxed) != round + 1)
      L.list.push_back(q);
  };
  double patchMin = HUGE_VAL;
  for (std::int32_t i = 0; i < ownN; ++i) {
    const std::int32_t v = arrays.localVertices[base + i];
    run.valueNext[v] = L.val[i];
    run.labelNext[v] = L.lab[i];
    const bool pending = run.pending[v] != 0;
    const VertexRoundEnd end = endOfRound(converged, pending, run.announced[v], L.val[i],
                                          L.dirty[i] != 0, run.settings.epsilon);
    if (end.announce) {
      run.announced[v] = L.val[i];
      for (std::int32_t k = arrays.readerOffsets[v]; k < arrays.readerOffsets[v + 1]; ++k)
        schedule(arrays.readers[k]);
    }
    run.stampNext[v] = end.stamp ? round : run.changed[v];
    if (pending)
      patchMin = std::min(patchMin, L.val[i]);
  }
  if (!converged || patchMin < HUGE_VAL)
    schedule(p);
  L.minPending = std::min(L.minPending, patchMin);
}

// The round's values and stamps become visible to the next round only (the device
// keeps two stamp arrays).
void publishRound(HostRun& run, const std::vector<std::int32_t>& active) {
  const PatchArrays& arrays = run.arrays;
  tbb::parallel_for(std::size_t(0), active.size(), [&](std::size_t at) {
    const std::int32_t p = active[at];
    const std::int64_t base = arrays.localOffsets[p];
    for (std::int32_t i = 0; i < arrays.ownCount[p]; ++i) {
      const std::int32_t v = arrays.localVertices[base + i];
      run.changed[v] = run.stampNext[v];
      run.state.value[v] = run.valueNext[v];
      run.state.label[v] = run.labelNext[v];
    }
  });
}

} // namespace

void runPatchFimHost(const PatchArrays& arrays, const PatchFimSettings& settings,
                     const Monitor& monitor, PatchFimState& state) {
  HostRun run(arrays, settings, state);
  std::vector<std::int32_t> active = initialActivePatches(arrays, state);
  for (std::int32_t p : active)
    run.scheduled[p].store(1, std::memory_order_relaxed);
  tbb::enumerable_thread_specific<Local> locals;
  while (!active.empty()) {
    if (state.rounds == settings.maxRounds) {
      state.converged = false;
      state.activeAtCap = active.size();
      break;
    }
    const std::int32_t round = std::int32_t(++state.rounds);
    state.patchRounds += static_cast<long long>(active.size());
    monitor.checkAbort();
    tbb::parallel_for(std::size_t(0), active.size(), [&](std::size_t at) {
      Local& L = locals.local();
      const std::int32_t p = active[at];
      loadTable(run, p, round, L);
      const bool converged = sweepPatch(run, p, L);
      endPatchRound(run, p, round, converged, L);
    });
    publishRound(run, active);
    active.clear();
    double minPending = HUGE_VAL;
    for (Local& L : locals) {
      active.insert(active.end(), L.list.begin(), L.list.end());
      L.list.clear();
      minPending = std::min(minPending, L.minPending);
      L.minPending = HUGE_VAL;
    }
    run.threshold = nextThreshold(minPending, run.threshold, settings.band);
    std::sort(active.begin(), active.end());
  }
  for (Local& L : locals)
    state.solves += L.solves;
}

} // namespace topogpu::eikonal
