// patchFIM's kernels (PatchFimKernels.cuh): a round's patches (phase A), the publish of
// their values (phase B of the multi-launch rounds), the persistent rounds, and the
// per-vertex state's setup and gather. Compiled with -fmad=false (CMakeLists.txt): the
// double arithmetic is then the host twin's.
#include "PatchFimKernels.cuh"

#include "core/eikonal/PatchRound.h"
#include "cuda/common/CudaCheck.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <cmath>

namespace topogpu::gpu::patchfim {

namespace {

namespace cg = cooperative_groups;
using eikonal::PatchSolve;

// Lists patch q for round `round` + 1 once (its schedule stamp) by appending it to the
// next worklist. The list's order depends on timing, but nothing computed does: every
// patch reads the previous round's values only.
__device__ void schedule(const RoundState& st, std::int32_t q, int round) {
  if (atomicExch(&st.scheduled[q], round + 1) != round + 1) {
    const unsigned at = atomicAdd(st.count[(round + 1) % 3], 1u);
    st.list[(round + 1) % 2][at] = q;
  }
}

// The entries of GEO a lane keeps in registers (its first kCachedSolves solves: all of
// them with 4 lanes and up to 16 solves per vertex), loaded once per patch and round
// along with the local table instead of once per sweep after it.
constexpr int kCachedSolves = 4;

__device__ PatchSolve cachedSolve(const PatchSolve (&cached)[kCachedSolves], int c) {
  // Constant indices only, so the array stays in registers.
  switch (c) {
  case 0:
    return cached[0];
  case 1:
    return cached[1];
  case 2:
    return cached[2];
  default:
    return cached[3];
  }
}

// What a thread holds of the patch p it works on in a round: the local table (shared
// memory: values, labels, dirty flags) and, when it is one of the `lanes` threads of an
// own vertex (mine), that vertex's data. The lanes of a vertex track its pending flag
// and announcement alike (they agree on its value after each sweep), so that they can
// split its readers' schedules.
struct PatchThread {
  std::int32_t p;
  std::int64_t base;
  int nLocal, own;
  double* val;
  SimplexId* lab;
  unsigned char* dirty;
  int i, lane, lanes; // the own vertex (local index) and this thread's lane of it
  bool mine, leader;  // the leader writes the vertex's shared and global state
  std::int32_t v;
  std::int64_t sb, se; // its GEO entries (none when fixed)
  PatchSolve cached[kCachedSolves];
  bool fixed, pend;
  double announced;
  std::int32_t readerBegin, readerEnd, firstReader;
  unsigned ownLocation; // located: the array holding p's own values
  double current;
  SimplexId currentLabel;
};

// The staged upload: waits for p's tables (the copy engine writes *ready after them;
// their 128-byte lines are never read before, so no stale cache line). The count only
// grows: the block remembers the last one it read (the same in all its threads, so
// they skip or wait together), and once the upload is complete no patch polls, fences
// or waits at this barrier any more.
__device__ __forceinline__ void waitForTables(const RoundState& st, std::int32_t p,
                                              unsigned& readySeen) {
  if (unsigned(p) < readySeen)
    return;
  __shared__ unsigned readyRead;
  if (threadIdx.x == 0) {
    unsigned ready;
    while ((ready = *static_cast<const volatile unsigned*>(st.ready)) <= unsigned(p))
      __nanosleep(256);
    __threadfence();
    readyRead = ready;
  }
  __syncthreads();
  readySeen = readyRead;
}

// The thread's own vertex: its data, its GEO entries and what the end of the round
// reads go out before the local table's loads so that all are in flight together: none
// depends on the sweeps (only p writes its own vertices' pending flags and announced
// values, and p runs once per round).
__device__ __forceinline__ void loadOwnVertex(const PatchView& patches,
                                              const RoundState& st, PatchThread& t) {
  t.mine = t.i < t.own; // blockDim.x >= lanes * maxOwn >= lanes * own
  t.leader = t.mine && t.lane == 0;
  t.v = -1;
  t.sb = t.se = 0;
  t.fixed = true;
  t.pend = false;
  t.announced = 0.0;
  t.readerBegin = t.readerEnd = 0;
  t.firstReader = -1;
  if (t.mine) {
    t.v = patches.localVertices[t.base + t.i];
    t.sb = patches.solveOffsets[t.base + t.i];
    t.se = patches.solveOffsets[t.base + t.i + 1];
#pragma unroll
    for (int c = 0; c < kCachedSolves; ++c) {
      const std::int64_t k = t.sb + t.lane + std::int64_t(c) * t.lanes;
      if (k < t.se)
        t.cached[c] = patches.solves[k];
    }
    t.fixed = patches.seed[t.v] != 0;
    t.pend = st.pending[t.v] != 0;
    t.announced = st.announced[t.v];
    t.readerBegin = patches.readerOffsets[t.v];
    t.readerEnd = patches.readerOffsets[t.v + 1];
    if (t.readerBegin + t.lane < t.readerEnd)
      t.firstReader = patches.readers[t.readerBegin + t.lane];
  }
  if (t.fixed)
    t.se = t.sb;
}

// The local table's values and labels (the previous round's: PatchRound.h), dirty
// flags from the stamps, and the own pending vertices the threshold now reaches
// released.
template <bool kLocated>
__device__ __forceinline__ void loadTable(const PatchView& patches, const RoundState& st,
                                          int round, double threshold,
                                          const PatchThread& t) {
  const std::int32_t* stampIn = st.stamp[(round + 1) % 2]; // the previous round's
  for (int k = int(threadIdx.x); k < t.nLocal; k += int(blockDim.x)) {
    const std::int32_t u = patches.localVertices[t.base + k];
    if (kLocated) {
      // Both arrays are read along with the location (the slot's patch comes with the
      // vertex id), so locating adds no dependent load to the table's.
      const double value0 = st.valueIn[u], value1 = st.valueOut[u];
      const SimplexId label0 = st.labelIn[u], label1 = st.labelOut[u];
      unsigned where = t.ownLocation;
      if (k >= t.own) {
        const unsigned w = st.location[st.slotPatch[t.base + k]];
        where = (w >> 1) == unsigned(round) ? 1u - (w & 1u) : w & 1u;
      }
      t.val[k] = where != 0 ? value1 : value0;
      t.lab[k] = where != 0 ? label1 : label0;
    } else {
      t.val[k] = st.valueIn[u];
      t.lab[k] = st.labelIn[u];
    }
    t.dirty[k] = eikonal::changedLastRound(stampIn[u], round);
    if (k < t.own &&
        eikonal::releasedByThreshold(st.pending[u] != 0, t.val[k], threshold)) {
      st.pending[u] = 0; // the threshold reached it: propagate now
      t.dirty[k] = 1;
    }
  }
}

// Up to internalIterations Jacobi sweeps over the patch's own vertices, `lanes` threads
// per vertex (see patchRound), solving only the triangles that read a dirty vertex;
// true when a sweep moved no value by more than epsilon (a block-wide OR). Adds the
// thread's solves to `solved`.
__device__ __forceinline__ bool sweepPatch(const PatchView& patches, const RoundState& st,
                                           double threshold, const SolveSettings& s,
                                           PatchThread& t, unsigned long long& solved) {
  bool converged = false;
  for (int it = 0; it < s.internalIterations && !converged; ++it) {
    // This lane's share of the vertex's update (PatchRound.h), the same strict-< scan.
    const eikonal::PatchUpdate own = eikonal::updateFromPatchLane(
        [&](int c, std::int64_t k) {
          return c < kCachedSolves ? cachedSolve(t.cached, c) : patches.solves[k];
        },
        t.sb, t.se, t.lane, t.lanes, t.val, t.lab, t.dirty, t.current, t.currentLabel);
    solved += static_cast<unsigned long long>(own.solves);
    double best = own.value;
    SimplexId bestLabel = own.label;
    int bestIndex = own.index;
    // The lanes of a vertex are aligned groups of a warp; every thread of the block
    // gets here (the sweep loop is block-uniform), so the full mask is right.
    for (int offset = t.lanes / 2; offset > 0; offset /= 2) {
      const double otherBest = __shfl_xor_sync(0xffffffffu, best, offset);
      const long long otherLabel =
          __shfl_xor_sync(0xffffffffu, static_cast<long long>(bestLabel), offset);
      const int otherIndex = __shfl_xor_sync(0xffffffffu, bestIndex, offset);
      if (eikonal::laneWins(otherBest, otherIndex, best, bestIndex)) {
        best = otherBest;
        bestLabel = SimplexId(otherLabel);
        bestIndex = otherIndex;
      }
    }
    const eikonal::SweepStep step =
        eikonal::acceptUpdate(t.fixed, t.current, t.currentLabel,
                              eikonal::PatchUpdate{best, bestLabel, 0, bestIndex},
                              s.stopDistance, s.epsilon, threshold);
    __syncthreads(); // every read of this sweep is done
    // A value above the threshold waits (pending) until the threshold reaches it.
    const eikonal::SweepMark mark =
        eikonal::markAfterSweep(step.value, t.current, threshold, t.pend);
    if (t.leader) {
      t.dirty[t.i] = mark.dirty;
      if (mark.changed)
        st.pending[t.v] = t.pend ? 1 : 0;
      t.val[t.i] = step.value;
      t.lab[t.i] = step.label;
    }
    t.current = step.value;
    t.currentLabel = step.label;
    for (int k = t.own + int(threadIdx.x); k < t.nLocal; k += int(blockDim.x))
      t.dirty[k] = 0; // the halo is fixed within the round
    // Also the barrier that publishes the writes to the next sweep. A sweep that
    // moved nothing ends the patch's round here (no sweep is run for nothing).
    converged = __syncthreads_or(step.moved) == 0;
  }
  return converged;
}

// The end of the patch's round for the thread's own vertex (PatchRound.h's
// endOfRound): its value out, the announcement to its readers, its stamp, and its
// value into the patch's smallest pending one.
template <bool kLocated>
__device__ __forceinline__ void
endVertexRound(const PatchView& patches, const RoundState& st, int round,
               const SolveSettings& s, bool converged, const PatchThread& t,
               unsigned long long& patchMin) {
  const eikonal::VertexRoundEnd end = eikonal::endOfRound(
      converged, t.pend, t.announced, t.current, t.dirty[t.i] != 0, s.epsilon);
  // Each lane schedules every lanes-th reader (a schedule is two dependent atomics:
  // the lanes overlap them).
  if (end.announce)
    for (std::int32_t k = t.readerBegin + t.lane; k < t.readerEnd; k += t.lanes)
      schedule(st, k == t.readerBegin + t.lane ? t.firstReader : patches.readers[k],
               round);
  if (t.leader) {
    if (kLocated && t.ownLocation != 0) {
      st.valueIn[t.v] = t.current;
      st.labelIn[t.v] = t.currentLabel;
    } else {
      st.valueOut[t.v] = t.current;
      st.labelOut[t.v] = t.currentLabel;
    }
    if (end.announce)
      st.announced[t.v] = t.current;
    if (end.stamp)
      st.stamp[round % 2][t.v] = round;
    if (t.pend)
      atomicMin(&patchMin,
                static_cast<unsigned long long>(__double_as_longlong(t.current)));
  }
}

// Phase A of round `round` (Algorithms 2.3-2.5 as runPatchFimHost does them, through
// PatchRound.h): the blocks take the round's active patches in turn (a grid-stride
// loop over the device worklist, so the host never reads its length per round). Per
// patch: the local table's values, labels and dirty flags go to shared memory, `lanes`
// threads per own vertex run the Jacobi sweeps (solving only the triangles that read a
// dirty vertex), the patch converges when a sweep moved no value by more than epsilon
// (a block-wide OR); then the own values go to valueOut, a converged patch announces
// the vertices that moved by more than epsilon since their last announcement to the
// patches that read them, and an unconverged one lists itself again with its last
// sweep's moves stamped.
//
// Why lanes: a round costs about the critical path of one patch (the active patches run
// side by side), and that path is sweeps x (a vertex's dirty solves, run one after the
// other by its thread) x (one solve: two double divisions and square roots, a few
// hundred cycles). Splitting a vertex's solves over `lanes` threads (solve k to lane
// k % lanes) shortens it about lanes-fold (6-7 solves per vertex: 2 per lane with 4).
// The lanes' results are combined by a butterfly of shuffles keeping the smallest value
// and, among equal ones, the lowest solve index (laneWins): the value and label the
// serial strict-< scan returns (the first solve reaching the minimum), so the host twin
// is still matched bit for bit. Shared memory: 17 bytes per local vertex (value, label,
// dirty), nLocal <= maxLocal. Returns the thread's solve count.
template <bool kLocated>
__device__ unsigned long long patchRound(const PatchView& patches, const RoundState& st,
                                         int round, double threshold,
                                         const SolveSettings& s, unsigned& readySeen) {
  static_assert(kCachedSolves == 4, "cachedSolve has four cases");
  extern __shared__ double shared[];
  __shared__ unsigned long long patchMin;
  const std::int32_t* list = st.list[round % 2];
  // The block's first patch is read along with the list's length (in bounds: the grid
  // has at most one block per patch), not after it: a round is a chain of dependent
  // loads, and this takes one off it.
  const std::int32_t firstPatch = list[blockIdx.x];
  const unsigned count = *st.count[round % 3];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *st.count[(round + 2) % 3] = 0; // the list after next starts empty
    *st.minPending[(round + 2) % 3] = kInfBits;
    if (count > 0) {
      atomicAdd(st.rounds, 1ull);
      atomicAdd(st.patchRounds, static_cast<unsigned long long>(count));
    }
  }
  PatchThread t;
  t.lanes = s.lanes;
  t.i = int(threadIdx.x) / t.lanes;
  t.lane = int(threadIdx.x) % t.lanes;
  unsigned long long solved = 0;
  for (unsigned at = blockIdx.x; at < count; at += gridDim.x) {
    t.p = at == blockIdx.x ? firstPatch : list[at];
    if (kLocated)
      waitForTables(st, t.p, readySeen);
    t.base = patches.localOffsets[t.p];
    t.nLocal = int(patches.localOffsets[t.p + 1] - t.base);
    t.own = patches.ownCount[t.p];
    t.val = shared;
    t.lab = reinterpret_cast<SimplexId*>(shared + t.nLocal);
    t.dirty = reinterpret_cast<unsigned char*>(t.lab + t.nLocal);
    loadOwnVertex(patches, st, t);
    // Located: p's own values are in the array of location[p] (only p rewrites it, at
    // the end of its round); this round's go to the other one.
    t.ownLocation = kLocated ? st.location[t.p] & 1u : 0u;
    loadTable<kLocated>(patches, st, round, threshold, t);
    if (threadIdx.x == 0)
      patchMin = kInfBits;
    __syncthreads();

    t.current = t.mine ? t.val[t.i] : 0.0;
    t.currentLabel = t.mine ? t.lab[t.i] : -1;
    if (eikonal::releasedByThreshold(t.pend, t.current, threshold))
      t.pend = false; // as the table's loop did to st.pending[v] above
    const bool converged = sweepPatch(patches, st, threshold, s, t, solved);
    // An unconverged patch lists itself again at once, by a thread that is no vertex's
    // leader (lanes > 1), while the leaders write; a converged one waits for patchMin.
    if (!converged && threadIdx.x == blockDim.x - 1)
      schedule(st, t.p, round);
    if (t.mine)
      endVertexRound<kLocated>(patches, st, round, s, converged, t, patchMin);
    // The last read of the shared table: the next patch may overwrite it. Thread 0's
    // tail below reads patchMin only, which it resets itself before the next patch's
    // barrier, so the other threads go on to the next patch's loads meanwhile.
    __syncthreads();
    if (threadIdx.x == 0) {
      if (patchMin != kInfBits) {
        atomicMin(st.minPending[(round + 1) % 3], patchMin);
        if (converged)
          schedule(st, t.p, round); // values waiting for the threshold
      }
      if (kLocated)
        st.location[t.p] = (unsigned(round) << 1) | (1u - t.ownLocation);
    }
  }
  return solved;
}

// The next round's threshold (PatchRound.h) from the round's smallest pending value.
__device__ double roundThreshold(const RoundState& st, int round, double threshold) {
  const unsigned long long bits = *st.minPending[(round + 1) % 3];
  return eikonal::nextThreshold(__longlong_as_double(static_cast<long long>(bits)),
                                threshold, st.band);
}

// Phase B of the multi-launch rounds: the round's own values become the next round's
// input (Jacobi between patches), and the next round's threshold is set.
__device__ void publish(const PatchView& patches, const RoundState& st, int round) {
  const unsigned count = *st.count[round % 3];
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *st.threshold[(round + 1) % 2] = roundThreshold(st, round, *st.threshold[round % 2]);
  const std::int32_t* list = st.list[round % 2];
  for (unsigned at = blockIdx.x; at < count; at += gridDim.x) {
    const std::int32_t p = list[at];
    const std::int64_t base = patches.localOffsets[p];
    for (int i = int(threadIdx.x); i < patches.ownCount[p]; i += int(blockDim.x)) {
      const std::int32_t v = patches.localVertices[base + i];
      st.valueIn[v] = st.valueOut[v];
      st.labelIn[v] = st.labelOut[v];
    }
  }
}

// The block's solve count into the run's (one global atomic per block).
__device__ void addSolves(const RoundState& st, unsigned long long solved) {
  __shared__ unsigned long long blockSolves;
  if (threadIdx.x == 0)
    blockSolves = 0;
  __syncthreads();
  if (solved > 0)
    atomicAdd(&blockSolves, solved);
  __syncthreads();
  if (threadIdx.x == 0 && blockSolves > 0)
    atomicAdd(st.solves, blockSolves);
}

// The multi-launch path: one launch per phase and round.
__global__ void patchRoundKernel(PatchView patches, RoundState st, int round,
                                 SolveSettings s) {
  unsigned readySeen = 0; // unused: the multi-launch rounds start after the upload
  addSolves(
      st, patchRound<false>(patches, st, round, *st.threshold[round % 2], s, readySeen));
}

__global__ void publishKernel(PatchView patches, RoundState st, int round) {
  publish(patches, st, round);
}

// The persistent path: rounds first..last in one cooperative launch, all blocks
// resident, one grid-wide barrier per round (grid.sync also orders the global memory
// accesses, as a kernel boundary does): phase A with the values located (RoundState),
// so no publish phase and no second barrier. After the barrier every block reads the
// next list's length and the smallest pending value (nothing writes them until the next
// barrier) and derives the next threshold as publish does, so all blocks agree and leave
// the loop together when the list is empty or at `last`; block 0 then leaves the length
// and the threshold for the host and the next chunk. A chunk started after the run
// ended (*st.next == 0 at entry; written only after a grid.sync, so after every block
// has read it) returns at once. Phase A's code is the multi-launch path's, so the two
// paths compute the same, bit for bit.
__global__ void persistentKernel(PatchView patches, RoundState st, int first, int last,
                                 SolveSettings s) {
  cg::grid_group grid = cg::this_grid();
  unsigned long long solved = 0;
  unsigned readySeen = 0; // the largest ready count this block has read
  if (*st.next != 0) {
    double threshold = *st.threshold[first % 2];
    for (int round = first;; ++round) {
      solved += patchRound<true>(patches, st, round, threshold, s, readySeen);
      grid.sync();
      const unsigned next = *st.count[(round + 1) % 3];
      threshold = roundThreshold(st, round, threshold);
      if (next == 0 || round == last) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
          *st.next = next;
          *st.threshold[(round + 1) % 2] = threshold;
        }
        break;
      }
    }
  }
  addSolves(st, solved);
}

// After the persistent kernel: every vertex's latest value and label into valueIn.
__global__ void gatherKernel(RoundState st, std::size_t n) {
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < n;
       v += std::size_t(gridDim.x) * blockDim.x) {
    if ((st.location[st.patchOf[v]] & 1u) != 0) {
      st.valueIn[v] = st.valueOut[v];
      st.labelIn[v] = st.labelOut[v];
    }
  }
}

// Every vertex before the start: not fixed, +inf with label -1 in both value/label
// copies and the announced values, unchanged (both round stamps -1), nothing pending.
// With fixedStateKernel after it, the per-vertex state comes from the start list alone
// (no per-vertex upload).
__global__ void clearStateKernel(std::uint8_t* seed, std::size_t n, RoundState st) {
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < n;
       v += std::size_t(gridDim.x) * blockDim.x) {
    seed[v] = 0;
    st.valueIn[v] = HUGE_VAL;
    st.valueOut[v] = HUGE_VAL;
    st.announced[v] = HUGE_VAL;
    st.labelIn[v] = -1;
    st.labelOut[v] = -1;
    st.pending[v] = 0;
    st.stamp[0][v] = -1;
    st.stamp[1][v] = -1;
  }
}

// The start list (FixedVertices): each vertex fixed, its value and label in both copies
// and the announced values, changed in round 0 (its readers start from it).
__global__ void fixedStateKernel(const std::int64_t* vertex, const double* value,
                                 const SimplexId* label, std::size_t count,
                                 std::uint8_t* seed, RoundState st) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::int64_t v = vertex[i];
    seed[v] = 1;
    st.valueIn[v] = value[i];
    st.valueOut[v] = value[i];
    st.announced[v] = value[i];
    st.labelIn[v] = label[i];
    st.labelOut[v] = label[i];
    st.stamp[0][v] = 0;
  }
}

// Blocks of 256 threads over n items, at most 4096 (the kernels loop).
unsigned itemBlocks(std::size_t n) {
  return unsigned(std::min<std::size_t>((n + 255) / 256, 4096));
}

} // namespace

void setRoundSharedMemory(std::size_t sharedBytes) {
  for (const void* kernel : {reinterpret_cast<const void*>(patchRoundKernel),
                             reinterpret_cast<const void*>(persistentKernel)})
    cudaCheck(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(sharedBytes)),
              "patchFIM: shared memory size");
}

int roundBlocksPerSm(bool persistentKernelRuns, int threads, std::size_t sharedBytes) {
  int perSm = 0;
  if (persistentKernelRuns)
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, persistentKernel,
                                                            threads, sharedBytes),
              "patchFIM: occupancy");
  else
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, patchRoundKernel,
                                                            threads, sharedBytes),
              "patchFIM: occupancy");
  return perSm;
}

void launchRounds(unsigned grid, int threads, std::size_t sharedBytes,
                  cudaStream_t stream, const PatchView& patches, const RoundState& st,
                  int first, long long count, const SolveSettings& s) {
  for (long long k = 0; k < count; ++k) {
    const int round = first + int(k);
    patchRoundKernel<<<grid, unsigned(threads), sharedBytes, stream>>>(patches, st, round,
                                                                       s);
    publishKernel<<<grid, 64, 0, stream>>>(patches, st, round);
  }
  cudaCheck(cudaGetLastError(), "patchFIM: rounds");
}

void launchPersistentRounds(unsigned grid, int threads, std::size_t sharedBytes,
                            cudaStream_t stream, const PatchView& patches,
                            const RoundState& st, int first, int last,
                            const SolveSettings& s) {
  PatchView patchesArg = patches;
  RoundState stateArg = st;
  SolveSettings settingsArg = s;
  void* args[] = {&patchesArg, &stateArg, &first, &last, &settingsArg};
  cudaCheck(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(persistentKernel),
                                        grid, unsigned(threads), args, sharedBytes,
                                        stream),
            "patchFIM: rounds");
}

void launchClearState(std::uint8_t* seed, std::size_t n, const RoundState& st,
                      cudaStream_t stream) {
  clearStateKernel<<<itemBlocks(n), 256, 0, stream>>>(seed, n, st);
  cudaCheck(cudaGetLastError(), "patchFIM: initial state");
}

void launchFixedState(const std::int64_t* vertex, const double* value,
                      const SimplexId* label, std::size_t count, std::uint8_t* seed,
                      const RoundState& st, cudaStream_t stream) {
  fixedStateKernel<<<itemBlocks(count), 256, 0, stream>>>(vertex, value, label, count,
                                                          seed, st);
  cudaCheck(cudaGetLastError(), "patchFIM: fixed start");
}

void launchGather(const RoundState& st, std::size_t n, cudaStream_t stream) {
  gatherKernel<<<itemBlocks(n), 256, 0, stream>>>(st, n);
  cudaCheck(cudaGetLastError(), "patchFIM: download");
}

} // namespace topogpu::gpu::patchfim
