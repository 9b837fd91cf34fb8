#include "core/eikonal/EikonalGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/eikonal/PatchSolve.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/HostCopy.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace topogpu::gpu {

namespace {

namespace cg = cooperative_groups;
using eikonal::PatchSolve;

struct PatchView {
  const std::int64_t* localOffsets;
  const std::int32_t* ownCount;
  const std::int32_t* localVertices;
  const std::int64_t* solveOffsets;
  const PatchSolve* solves;
  const std::int32_t* readerOffsets;
  const std::int32_t* readers;
  const std::uint8_t* seed;
};

// The per-round state: values and labels twice (the paper's VAL_in / VAL_out), the
// vertices' round stamps twice (read the previous round's, write this round's), the
// announced values, the patches' schedule stamps, two worklists and three counts.
//
// Where the values are. The multi-launch rounds write a round's values to valueOut and
// copy them to valueIn in a second kernel (publish). The persistent kernel skips that
// copy and its grid-wide barrier: each patch keeps its own vertices' latest values in
// one of the two arrays, location[p] = (the round p last ran in) * 2 + (that array),
// and a round writes to the other one. A patch loading a halo vertex u of patch q in
// round r reads the array of location[q], or the other one when q already ran in round
// r (it rewrote location[q] meanwhile): either way the values at the end of round r-1,
// which nobody writes during round r. So a round reads exactly what the multi-launch
// round reads, whatever the timing.
struct RoundState {
  double* valueIn; // value[0]
  SimplexId* labelIn;
  double* valueOut; // value[1]
  SimplexId* labelOut;
  std::int32_t* patchOf;   // per vertex (persistent kernel only)
  std::int32_t* slotPatch; // per local slot: patchOf its vertex (persistent kernel only)
  unsigned* location;      // per patch (persistent kernel only)
  // Patches [0, *ready) have their tables on the device (persistent kernel only: the
  // staged upload goes on while it runs).
  const unsigned* ready;
  double* announced;
  std::uint8_t* pending;
  unsigned long long* minPending[3]; // as the bits of non-negative doubles
  double* threshold[2];
  double band;
  std::int32_t* stamp[2];
  std::int32_t* scheduled;
  std::int32_t* list[2];
  unsigned* count[3];
  unsigned* next; // the persistent kernel's: the list length after its last round
  unsigned long long* solves;
  unsigned long long* patchRounds;
  unsigned long long* rounds;
};

struct SolveSettings {
  int internalIterations;
  double epsilon;
  double stopDistance;
  int lanes; // threads per own vertex: 1, 2, 4 or 8
};

// +inf as the bits of a double: above those of every non-negative double.
constexpr unsigned long long kInfBits = 0x7ff0000000000000ull;

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

// Phase A of round `round` (Algorithms 2.3-2.5 as runPatchFimHost does them, Patches.h):
// the blocks take the round's active patches in turn (a grid-stride loop over the device
// worklist, so the host never reads its length per round). Per patch: the local table's
// values, labels and dirty flags go to shared memory, `lanes` threads per own vertex run
// the Jacobi sweeps (solving only the triangles that read a dirty vertex), the patch
// converges when a sweep moved no value by more than epsilon (a block-wide OR); then the
// own values go to valueOut, a converged patch announces the vertices that moved by
// more than epsilon since their last announcement to the patches that read them, and an
// unconverged one lists itself again with its last sweep's moves stamped.
//
// Why lanes: a round costs about the critical path of one patch (the active patches run
// side by side), and that path is sweeps x (a vertex's dirty solves, run one after the
// other by its thread) x (one solve: two double divisions and square roots, a few
// hundred cycles). Splitting a vertex's solves over `lanes` threads (solve k to lane
// k % lanes) shortens it about lanes-fold (6-7 solves per vertex: 2 per lane with 4).
// The lanes' results are combined by a butterfly of shuffles keeping the smallest value
// and, among equal ones, the lowest solve index: the value and label updateFromPatch's
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
  const std::int32_t* stampIn = st.stamp[(round + 1) % 2]; // the previous round's
  std::int32_t* stampOut = st.stamp[round % 2];
  const int lanes = s.lanes;
  const int i = int(threadIdx.x) / lanes; // the own vertex of this thread
  const int lane = int(threadIdx.x) % lanes;
  unsigned long long solved = 0;
  for (unsigned at = blockIdx.x; at < count; at += gridDim.x) {
    const std::int32_t p = at == blockIdx.x ? firstPatch : list[at];
    if (kLocated && unsigned(p) >= readySeen) {
      // The staged upload: wait for p's tables (the copy engine writes *ready after
      // them; their 128-byte lines are never read before, so no stale cache line). The
      // count only grows: the block remembers the last one it read (the same in all
      // its threads, so they skip or wait together), and once the upload is complete
      // no patch polls, fences or waits at this barrier any more.
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
    const std::int64_t base = patches.localOffsets[p];
    const int nLocal = int(patches.localOffsets[p + 1] - base);
    const int own = patches.ownCount[p];
    double* val = shared;
    SimplexId* lab = reinterpret_cast<SimplexId*>(shared + nLocal);
    unsigned char* dirty = reinterpret_cast<unsigned char*>(lab + nLocal);
    // The own vertex's data, its GEO entries and what the end of the round reads go out
    // before the local table's loads so that all are in flight together: none depends
    // on the sweeps (only p writes its own vertices' pending flags and announced values,
    // and p runs once per round).
    const bool mine = i < own;             // blockDim.x >= lanes * maxOwn >= lanes * own
    const bool leader = mine && lane == 0; // writes the vertex's shared and global state
    std::int32_t v = -1;
    std::int64_t sb = 0, se = 0;
    PatchSolve cached[kCachedSolves];
    // Every lane of a vertex tracks its pending flag and announcement (the lanes agree
    // on its value after each sweep), so that they can split its readers' schedules.
    bool fixed = true, pend = false;
    double announced = 0.0;
    std::int32_t readerBegin = 0, readerEnd = 0, firstReader = -1;
    if (mine) {
      v = patches.localVertices[base + i];
      sb = patches.solveOffsets[base + i];
      se = patches.solveOffsets[base + i + 1];
#pragma unroll
      for (int c = 0; c < kCachedSolves; ++c) {
        const std::int64_t k = sb + lane + std::int64_t(c) * lanes;
        if (k < se)
          cached[c] = patches.solves[k];
      }
      fixed = patches.seed[v] != 0;
      pend = st.pending[v] != 0;
      announced = st.announced[v];
      readerBegin = patches.readerOffsets[v];
      readerEnd = patches.readerOffsets[v + 1];
      if (readerBegin + lane < readerEnd)
        firstReader = patches.readers[readerBegin + lane];
    }
    if (fixed)
      se = sb;
    // Located: p's own values are in the array of location[p] (only p rewrites it, at
    // the end of its round); this round's go to the other one.
    const unsigned ownLocation = kLocated ? st.location[p] & 1u : 0u;
    for (int k = int(threadIdx.x); k < nLocal; k += int(blockDim.x)) {
      const std::int32_t u = patches.localVertices[base + k];
      if (kLocated) {
        // Both arrays are read along with the location (the slot's patch comes with the
        // vertex id), so locating adds no dependent load to the table's.
        const double value0 = st.valueIn[u], value1 = st.valueOut[u];
        const SimplexId label0 = st.labelIn[u], label1 = st.labelOut[u];
        unsigned where = ownLocation;
        if (k >= own) {
          const unsigned w = st.location[st.slotPatch[base + k]];
          where = (w >> 1) == unsigned(round) ? 1u - (w & 1u) : w & 1u;
        }
        val[k] = where != 0 ? value1 : value0;
        lab[k] = where != 0 ? label1 : label0;
      } else {
        val[k] = st.valueIn[u];
        lab[k] = st.labelIn[u];
      }
      dirty[k] = stampIn[u] == round - 1;
      if (k < own && st.pending[u] && val[k] <= threshold) {
        st.pending[u] = 0; // the threshold reached it: propagate now
        dirty[k] = 1;
      }
    }
    if (threadIdx.x == 0)
      patchMin = kInfBits;
    __syncthreads();

    double current = mine ? val[i] : 0.0;
    SimplexId currentLabel = mine ? lab[i] : -1;
    if (pend && current <= threshold)
      pend = false; // as the table's loop did to st.pending[v] above
    bool converged = false;
    for (int it = 0; it < s.internalIterations && !converged; ++it) {
      // This lane's share of updateFromPatch (PatchSolve.h), the same strict-< scan.
      double best = current;
      SimplexId bestLabel = currentLabel;
      int bestIndex = INT_MAX;
      for (int c = 0;; ++c) {
        const std::int64_t k = sb + lane + std::int64_t(c) * lanes;
        if (k >= se)
          break;
        const PatchSolve e =
            c < kCachedSolves ? cachedSolve(cached, c) : patches.solves[k];
        if (!dirty[e.a] && !dirty[e.b])
          continue;
        const eikonal::TriangleSolution t =
            eikonal::solvePatchTriangle(val[e.a], val[e.b], e);
        ++solved;
        if (t.value < best) {
          best = t.value;
          bestLabel = t.lambda <= 0.5 ? lab[e.a] : lab[e.b];
          bestIndex = int(k - sb);
        }
      }
      // The lanes of a vertex are aligned groups of a warp; every thread of the block
      // gets here (the sweep loop is block-uniform), so the full mask is right.
      for (int offset = lanes / 2; offset > 0; offset /= 2) {
        const double otherBest = __shfl_xor_sync(0xffffffffu, best, offset);
        const long long otherLabel =
            __shfl_xor_sync(0xffffffffu, static_cast<long long>(bestLabel), offset);
        const int otherIndex = __shfl_xor_sync(0xffffffffu, bestIndex, offset);
        if (otherBest < best || (otherBest == best && otherIndex < bestIndex)) {
          best = otherBest;
          bestLabel = SimplexId(otherLabel);
          bestIndex = otherIndex;
        }
      }
      double next = current;
      SimplexId nextLabel = currentLabel;
      bool moved = false;
      if (!fixed && best < current && best <= s.stopDistance) {
        moved = current - best > s.epsilon && best <= threshold;
        next = best;
        nextLabel = bestLabel;
      }
      __syncthreads(); // every read of this sweep is done
      // A value above the threshold waits (pending) until the threshold reaches it.
      const bool changedNow = next != current;
      const bool nowDirty = changedNow && next <= threshold;
      if (changedNow)
        pend = !nowDirty;
      if (leader) {
        dirty[i] = nowDirty;
        if (changedNow)
          st.pending[v] = pend ? 1 : 0;
        val[i] = next;
        lab[i] = nextLabel;
      }
      current = next;
      currentLabel = nextLabel;
      for (int k = own + int(threadIdx.x); k < nLocal; k += int(blockDim.x))
        dirty[k] = 0; // the halo is fixed within the round
      // Also the barrier that publishes the writes to the next sweep. A sweep that
      // moved nothing ends the patch's round here (no sweep is run for nothing).
      converged = __syncthreads_or(moved) == 0;
    }
    // An unconverged patch lists itself again at once, by a thread that is no vertex's
    // leader (lanes > 1), while the leaders write; a converged one waits for patchMin.
    if (!converged && threadIdx.x == blockDim.x - 1)
      schedule(st, p, round);
    if (mine) {
      // A converged patch announces the vertices that moved by more than epsilon since
      // their last announcement: each lane schedules every lanes-th reader (a
      // schedule is two dependent atomics: the lanes overlap them).
      const bool announce = converged && !pend && announced - current > s.epsilon;
      if (announce)
        for (std::int32_t k = readerBegin + lane; k < readerEnd; k += lanes)
          schedule(st, k == readerBegin + lane ? firstReader : patches.readers[k], round);
      if (leader) {
        if (kLocated && ownLocation != 0) {
          st.valueIn[v] = current;
          st.labelIn[v] = currentLabel;
        } else {
          st.valueOut[v] = current;
          st.labelOut[v] = currentLabel;
        }
        if (announce)
          st.announced[v] = current;
        // Unconverged: the moves of the last sweep are still to propagate here.
        if (converged ? announce : dirty[i] != 0)
          stampOut[v] = round;
        if (pend)
          atomicMin(&patchMin,
                    static_cast<unsigned long long>(__double_as_longlong(current)));
      }
    }
    // The last read of the shared table: the next patch may overwrite it. Thread 0's
    // tail below reads patchMin only, which it resets itself before the next patch's
    // barrier, so the other threads go on to the next patch's loads meanwhile.
    __syncthreads();
    if (threadIdx.x == 0) {
      if (patchMin != kInfBits) {
        atomicMin(st.minPending[(round + 1) % 3], patchMin);
        if (converged)
          schedule(st, p, round); // values waiting for the threshold
      }
      if (kLocated)
        st.location[p] = (unsigned(round) << 1) | (1u - ownLocation);
    }
  }
  return solved;
}

// The next round's threshold: the smallest value left pending plus the band, or, when
// none was left, this round's threshold plus the band.
__device__ double nextThreshold(const RoundState& st, int round, double threshold) {
  const unsigned long long bits = *st.minPending[(round + 1) % 3];
  return bits != kInfBits ? __longlong_as_double(static_cast<long long>(bits)) + st.band
                          : threshold + st.band;
}

// Phase B of the multi-launch rounds: the round's own values become the next round's
// input (Jacobi between patches), and the next round's threshold is set.
__device__ void publish(const PatchView& patches, const RoundState& st, int round) {
  const unsigned count = *st.count[round % 3];
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *st.threshold[(round + 1) % 2] = nextThreshold(st, round, *st.threshold[round % 2]);
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
      threshold = nextThreshold(st, round, threshold);
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

// The transfer block (DeviceState::transfer, page-locked): the two list lengths, the
// staged upload's ready counts (one per chunk), then the run's three 64-bit counters
// (8-byte aligned: the block is).
constexpr std::int32_t kReadyCounts = 32;
constexpr std::size_t kTransferTotals = 2 + kReadyCounts;
constexpr std::size_t kTransferCounts = kTransferTotals + 6;
static_assert(kTransferTotals % 2 == 0, "the counters are 8-byte aligned");

// Pinned upload memory: below this size the C heap is as fast.
constexpr std::size_t kPinnedMinBytes = std::size_t(1) << 20;
constexpr std::size_t kHeader = 16; // keeps 16-byte alignment; byte 0: 1 when pinned
std::atomic<bool> pinningFailed{false};

struct Event {
  cudaEvent_t event = nullptr;
  Event() {
    cudaCheck(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
              "patchFIM: event");
  }
  ~Event() { cudaEventDestroy(event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

struct Stream {
  cudaStream_t stream = nullptr;
  Stream() {
    cudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
              "patchFIM: stream");
  }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// Device arrays in one allocation (one cudaMalloc instead of one per array; each
// allocation of this size costs tens to hundreds of microseconds).
class DeviceBlock {
public:
  // Reserves n elements of T (at least one, so every pointer is valid); returns the
  // offset, turned into a pointer by at() once allocate() ran.
  template <typename T> std::size_t reserve(std::size_t n) {
    const std::size_t at = (bytes_ + 255) / 256 * 256;
    bytes_ = at + std::max<std::size_t>(n, 1) * sizeof(T);
    return at;
  }
  void allocate() { cudaCheck(cudaMalloc(&base_, bytes_), "patchFIM: device memory"); }
  template <typename T> T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(base_) + offset);
  }
  DeviceBlock() = default;
  ~DeviceBlock() {
    if (base_ != nullptr)
      cudaFree(base_);
  }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;

private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
};

using LaunchMode = eikonal::PatchFimLaunchMode;

// How the rounds are launched for a patch table on this device (solvePatchFim): the
// settings' launch knobs (eikonal::PatchFimLaunch), then what follows from them, the
// device and the table.
struct Launch {
  LaunchMode mode = LaunchMode::Auto;
  int capPerSm = 0, forcedLanes = 0;
  std::size_t sharedBytes = 0;
  int lanes = 1, threads = 32;
  unsigned grid = 1, persistentGrid = 0;
  bool persistent = false;
  bool operator==(const Launch& o) const {
    return mode == o.mode && capPerSm == o.capPerSm && forcedLanes == o.forcedLanes &&
           sharedBytes == o.sharedBytes && lanes == o.lanes && threads == o.threads &&
           grid == o.grid && persistentGrid == o.persistentGrid &&
           persistent == o.persistent;
  }
};

Launch configureLaunch(const eikonal::PatchArrays& arrays,
                       const eikonal::PatchFimLaunch& knobs) {
  Launch l;
  l.mode = knobs.mode;
  const std::int32_t np = arrays.patches;
  l.sharedBytes = std::size_t(arrays.maxLocal) * (sizeof(double) + sizeof(SimplexId) + 1);
  int device = 0, sharedOptIn = 0, sms = 0, cooperative = 0;
  cudaCheck(cudaGetDevice(&device), "patchFIM: device");
  cudaCheck(cudaDeviceGetAttribute(&sharedOptIn, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                   device),
            "patchFIM: shared memory size");
  cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
            "patchFIM: multiprocessors");
  cudaCheck(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
            "patchFIM: cooperative launch");
  // The kernels' own __shared__ counters take 16 bytes besides the dynamic part.
  if (l.sharedBytes + 64 > std::size_t(sharedOptIn))
    throw GpuError("patchFIM: a patch reads " + std::to_string(arrays.maxLocal) +
                       " vertices, more than the shared memory of a block holds",
                   false);
  for (const void* kernel : {reinterpret_cast<const void*>(patchRoundKernel),
                             reinterpret_cast<const void*>(persistentKernel)})
    cudaCheck(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(l.sharedBytes)),
              "patchFIM: shared memory size");
  // knobs.blocksPerSm caps the persistent kernel's blocks per multiprocessor
  // (benchmarks: fewer blocks make grid.sync cheaper, more run more patches side by
  // side).
  l.capPerSm = knobs.blocksPerSm;
  // Blocks resident at once with `lanes` threads per own vertex, for the kernel that
  // will run (the rounds' grid-stride loop, or the cooperative grid, which must be
  // resident as a whole).
  const auto threadsFor = [&](int lanes) {
    return std::max(32, int((arrays.maxOwn * (long long)lanes + 31) / 32 * 32));
  };
  const auto residentBlocks = [&](int lanes, bool persistentKernelRuns) {
    int perSm = 0;
    if (persistentKernelRuns)
      cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &perSm, persistentKernel, threadsFor(lanes), l.sharedBytes),
                "patchFIM: occupancy");
    else
      cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &perSm, patchRoundKernel, threadsFor(lanes), l.sharedBytes),
                "patchFIM: occupancy");
    if (persistentKernelRuns && l.capPerSm > 0)
      perSm = std::min(perSm, l.capPerSm);
    return (long long)perSm * sms;
  };
  // Threads per own vertex (see patchRound): 4, or fewer when a block would exceed
  // 1024 threads. Only the active patches need blocks, and they are a band around the
  // front, far fewer than all patches: 4 lanes halve the rounds' time on the 1M-vertex
  // meshes (docs/filters/geodesic-distance.md). knobs.lanes = 1|2|4|8 forces it
  // (benchmarks; the core's validate checks the value).
  l.forcedLanes = knobs.lanes;
  l.lanes = l.forcedLanes;
  if (l.lanes == 0) {
    l.lanes = 4;
    while (l.lanes > 1 && threadsFor(l.lanes) > 1024)
      l.lanes /= 2;
  }
  l.threads = threadsFor(l.lanes);
  if (l.threads > 1024)
    throw GpuError("patchFIM: a patch has " + std::to_string(arrays.maxOwn) +
                       " vertices, more than a thread block holds",
                   false);
  l.grid =
      unsigned(std::min<long long>(np, std::max(1LL, residentBlocks(l.lanes, false))));
  l.persistentGrid =
      cooperative != 0 ? unsigned(std::min<long long>(np, residentBlocks(l.lanes, true)))
                       : 0u;
  const bool persistentPossible = l.persistentGrid > 0;
  if (l.mode == LaunchMode::Persistent && !persistentPossible)
    throw GpuError(std::string("patchFIM: the persistent launch is forced, but ") +
                       (cooperative == 0 ? "the device has no cooperative launch"
                                         : "a block of the persistent kernel does not "
                                           "fit on a multiprocessor"),
                   false);
  l.persistent = l.mode != LaunchMode::Rounds && persistentPossible;
  return l;
}

// The small state, set by one copy per run: minPending[3], counters[3] (solves,
// patch-rounds, rounds), threshold[2], counts[3], next.
struct Small {
  unsigned long long minPending[3];
  unsigned long long counters[3];
  double threshold[2];
  unsigned counts[3];
  unsigned next;
};

std::atomic<int> liveResidents{0};

// What solvePatchFim keeps between runs on one PatchArrays (PatchFimResident): one
// device allocation holding the patch tables (uploaded by the first run, read by every
// later one) and the per-vertex and per-patch state (set again by each run's kernels
// from the start list), a growable one for the start list, the streams and events, and
// the page-locked transfer and staging blocks (a cudaMallocHost costs as much as the
// rest of a million-vertex upload).
class DeviceState final : public PatchFimResident {
public:
  DeviceState(const eikonal::PatchArrays& a, const Launch& l)
      : arrays_(&a), np(a.patches), nv(a.patchOf.size()), slots(a.localVertices.size()),
        solveCount(a.solves.size()), readerCount(a.readers.size()), launch(l) {
    oLocalOffsets = block.reserve<std::int64_t>(std::size_t(np) + 1);
    oOwnCount = block.reserve<std::int32_t>(std::size_t(np));
    oLocalVertices = block.reserve<std::int32_t>(slots);
    oSolveOffsets = block.reserve<std::int64_t>(a.solveOffsets.size());
    oSolves = block.reserve<PatchSolve>(solveCount);
    oReaderOffsets = block.reserve<std::int32_t>(a.readerOffsets.size());
    oReaders = block.reserve<std::int32_t>(readerCount);
    oSeed = block.reserve<std::uint8_t>(nv);
    oValueIn = block.reserve<double>(nv);
    oValueOut = block.reserve<double>(nv);
    oAnnounced = block.reserve<double>(nv);
    oLabelIn = block.reserve<SimplexId>(nv);
    oLabelOut = block.reserve<SimplexId>(nv);
    oPending = block.reserve<std::uint8_t>(nv);
    oStamp0 = block.reserve<std::int32_t>(nv);
    oStamp1 = block.reserve<std::int32_t>(nv);
    oScheduled = block.reserve<std::int32_t>(std::size_t(np));
    oList0 = block.reserve<std::int32_t>(std::size_t(np));
    oList1 = block.reserve<std::int32_t>(std::size_t(np));
    // The persistent kernel's value locations (RoundState) and ready count.
    oPatchOf = block.reserve<std::int32_t>(l.persistent ? nv : 0);
    oLocation = block.reserve<unsigned>(std::size_t(np));
    oSlotPatch = block.reserve<std::int32_t>(l.persistent ? slots : 0);
    oReady = block.reserve<unsigned>(1);
    oSmall = block.reserve<Small>(1);
    block.allocate();
    transfer.resize(kTransferCounts);
    // The download (values, then labels) and the start list's upload when it fits.
    staging.resize(nv * (sizeof(double) + sizeof(SimplexId)));

    view = PatchView{
        block.at<std::int64_t>(oLocalOffsets),  block.at<std::int32_t>(oOwnCount),
        block.at<std::int32_t>(oLocalVertices), block.at<std::int64_t>(oSolveOffsets),
        block.at<PatchSolve>(oSolves),          block.at<std::int32_t>(oReaderOffsets),
        block.at<std::int32_t>(oReaders),       block.at<std::uint8_t>(oSeed)};
    st = RoundState{};
    st.valueIn = block.at<double>(oValueIn);
    st.labelIn = block.at<SimplexId>(oLabelIn);
    st.valueOut = block.at<double>(oValueOut);
    st.labelOut = block.at<SimplexId>(oLabelOut);
    st.announced = block.at<double>(oAnnounced);
    st.pending = block.at<std::uint8_t>(oPending);
    // Device addresses inside the small state (never dereferenced here).
    const auto field = [&](std::size_t member) { return oSmall + member; };
    for (int k = 0; k < 3; ++k) {
      st.minPending[k] =
          block.at<unsigned long long>(field(offsetof(Small, minPending))) + k;
      st.count[k] = block.at<unsigned>(field(offsetof(Small, counts))) + k;
    }
    st.threshold[0] = block.at<double>(field(offsetof(Small, threshold)));
    st.threshold[1] = st.threshold[0] + 1;
    st.stamp[0] = block.at<std::int32_t>(oStamp0);
    st.stamp[1] = block.at<std::int32_t>(oStamp1);
    st.scheduled = block.at<std::int32_t>(oScheduled);
    st.list[0] = block.at<std::int32_t>(oList0);
    st.list[1] = block.at<std::int32_t>(oList1);
    st.patchOf = block.at<std::int32_t>(oPatchOf);
    st.location = block.at<unsigned>(oLocation);
    st.slotPatch = block.at<std::int32_t>(oSlotPatch);
    st.ready = block.at<unsigned>(oReady);
    st.next = block.at<unsigned>(field(offsetof(Small, next)));
    st.solves = block.at<unsigned long long>(field(offsetof(Small, counters)));
    st.patchRounds = st.solves + 1;
    st.rounds = st.solves + 2;
    liveResidents.fetch_add(1);
  }

  ~DeviceState() override {
    drain();
    liveResidents.fetch_sub(1);
  }

  // Made for these arrays (the same object and sizes) and these launch settings.
  bool serves(const eikonal::PatchArrays& a, const Launch& l) const {
    return arrays_ == &a && np == a.patches && nv == a.patchOf.size() &&
           slots == a.localVertices.size() && solveCount == a.solves.size() &&
           readerCount == a.readers.size() && launch == l;
  }

  // Waits for everything queued on the streams (before memory they use is released or
  // rewritten; errors are left to the next check).
  void drain() noexcept {
    cudaStreamSynchronize(main.stream);
    cudaStreamSynchronize(copies.stream);
    cudaGetLastError();
  }

  // Room for a start list of `count` entries (a new allocation when it grows; nothing
  // queued reads the old one: every run ends synchronized).
  void reserveFixed(std::size_t count) {
    if (count <= fixedCapacity)
      return;
    const std::size_t capacity = std::max({count, 2 * fixedCapacity, std::size_t(4096)});
    fixedBlock.reset();
    auto grown = std::make_unique<DeviceBlock>();
    oFixedVertex = grown->reserve<std::int64_t>(capacity);
    oFixedValue = grown->reserve<double>(capacity);
    oFixedLabel = grown->reserve<SimplexId>(capacity);
    grown->allocate();
    fixedBlock = std::move(grown);
    fixedCapacity = capacity;
  }

private:
  const eikonal::PatchArrays* arrays_;

public:
  const std::int32_t np;
  const std::size_t nv, slots, solveCount, readerCount;
  const Launch launch;
  Stream main, copies;
  Event copied, readyZero, done[2];
  DeviceBlock block;
  std::size_t oLocalOffsets = 0, oOwnCount = 0, oLocalVertices = 0, oSolveOffsets = 0,
              oSolves = 0, oReaderOffsets = 0, oReaders = 0, oSeed = 0, oValueIn = 0,
              oValueOut = 0, oAnnounced = 0, oLabelIn = 0, oLabelOut = 0, oPending = 0,
              oStamp0 = 0, oStamp1 = 0, oScheduled = 0, oList0 = 0, oList1 = 0,
              oPatchOf = 0, oLocation = 0, oSlotPatch = 0, oReady = 0, oSmall = 0;
  std::unique_ptr<DeviceBlock> fixedBlock;
  std::size_t fixedCapacity = 0, oFixedVertex = 0, oFixedValue = 0, oFixedLabel = 0;
  PatchView view{};
  RoundState st{};
  eikonal::PinnedVector<unsigned> transfer;
  eikonal::PinnedVector<unsigned char> staging;
  // The tables' upload was queued by an earlier run (it completed: runs end
  // synchronized), so they are on the device and the ready count is np.
  bool tablesUp = false;
};

} // namespace

void* allocateUploadMemory(std::size_t bytes, bool alwaysPin) {
  const std::size_t total = bytes + kHeader;
  void* p = nullptr;
  if ((alwaysPin || bytes >= kPinnedMinBytes) &&
      !pinningFailed.load(std::memory_order_relaxed)) {
    if (cudaMallocHost(&p, total) == cudaSuccess) {
      static_cast<unsigned char*>(p)[0] = 1;
      return static_cast<unsigned char*>(p) + kHeader;
    }
    cudaGetLastError(); // no device, or no pinned memory left: the C heap
    pinningFailed.store(true, std::memory_order_relaxed);
    p = nullptr;
  }
  p = std::malloc(total);
  if (p == nullptr)
    throw std::bad_alloc();
  static_cast<unsigned char*>(p)[0] = 0;
  return static_cast<unsigned char*>(p) + kHeader;
}

void releaseUploadMemory(void* memory) noexcept {
  if (memory == nullptr)
    return;
  unsigned char* p = static_cast<unsigned char*>(memory) - kHeader;
  if (p[0] == 1)
    cudaFreeHost(p);
  else
    std::free(p);
}

int livePatchFimResidents() {
  return liveResidents.load();
}

void solvePatchFim(const eikonal::PatchArrays& arrays,
                   const eikonal::PatchFimSettings& settings,
                   const eikonal::FixedVertices& fixed, const Monitor& monitor,
                   eikonal::PatchFimState& out, RunReport& report,
                   std::unique_ptr<PatchFimResident>& resident) {
  translateCudaFailures("patchFIM", [&] {
    Timer timer;
    const std::int32_t np = arrays.patches;
    const std::size_t nv = arrays.patchOf.size();
    out.value.clear();
    out.label.clear();
    out.rounds = out.patchRounds = out.solves = 0;
    out.converged = true;
    out.activeAtCap = 0;
    if (np == 0 || nv == 0) {
      // Nothing to solve: the start as it is.
      out.value.assign(nv, HUGE_VAL);
      out.label.assign(nv, -1);
      for (std::size_t i = 0; i < fixed.vertex.size(); ++i) {
        out.value[std::size_t(fixed.vertex[i])] = fixed.value[i];
        out.label[std::size_t(fixed.vertex[i])] = fixed.label[i];
      }
      return;
    }
    // The upload: the device state kept from an earlier run on these arrays, or a new
    // one whose tables go up now, staged on a stream of their own (below) while the
    // start and the per-vertex arrays go up on the main one. "upload (gpu)" times the
    // state's making and the queueing of the copies, and, for the multi-launch rounds,
    // the copies themselves; the persistent kernel is queued behind the main stream's
    // copies, so its copies and the staged ones go on during the rounds (inside
    // "patchfim (gpu)").
    const Launch launchSettings = configureLaunch(arrays, settings.launch);
    auto* kept = dynamic_cast<DeviceState*>(resident.get());
    if (kept == nullptr || !kept->serves(arrays, launchSettings)) {
      resident.reset(); // its device memory first
      auto made = std::make_unique<DeviceState>(arrays, launchSettings);
      kept = made.get();
      resident = std::move(made);
    }
    DeviceState& d = *kept;
    // Nothing stays queued behind a run, even one that throws.
    struct Drain {
      DeviceState& d;
      ~Drain() { d.drain(); }
    } drain{d};
    const bool persistent = d.launch.persistent;
    const bool uploadTables = !d.tablesUp;
    const int threads = d.launch.threads;
    const std::size_t sharedBytes = d.launch.sharedBytes;
    const unsigned grid = d.launch.grid, persistentGrid = d.launch.persistentGrid;
    const SolveSettings solveSettings{settings.internalIterations, settings.epsilon,
                                      settings.stopDistance, d.launch.lanes};
    cudaStream_t mainStream = d.main.stream, copyStream = d.copies.stream;
    const std::size_t slots = d.slots;
    const PatchView view = d.view;
    RoundState st = d.st;
    st.band = settings.band;
    std::uint8_t* const seedFlags = d.block.at<std::uint8_t>(d.oSeed);
    // The rounds' reads of the list length (2), then the staged upload's ready counts,
    // in the state's page-locked transfer block.
    const std::int32_t chunks = std::min<std::int32_t>(np, kReadyCounts);
    unsigned* const nextCount = d.transfer.data();
    unsigned* const readyCounts = nextCount + 2;

    const auto put = [&](std::size_t offset, const void* data, std::size_t bytes,
                         cudaStream_t stream) {
      if (bytes > 0)
        cudaCheck(cudaMemcpyAsync(d.block.at<unsigned char>(offset), data, bytes,
                                  cudaMemcpyHostToDevice, stream),
                  "patchFIM: upload");
    };
    // The staged upload of the tables read per patch (local vertices, solve offsets,
    // GEO, slot patches), in chunks of patches, each followed by the count of patches
    // it completed, on a stream of their own, queued after the main stream's copies
    // (they share the copy engine: the small ones go first). The persistent kernel
    // starts as soon as the rest is up and waits per patch for its chunk
    // (buildPatchArrays numbered the patches from the seeds, so the front meets them
    // about in upload order); the multi-launch rounds wait for the whole upload. Chunks
    // end on 128-byte boundaries of every array (a cache line is in one chunk: no line
    // is read before it is whole); a patch counts as ready once all its bytes are up.
    // Later runs find the tables there and the ready count at np.
    if (uploadTables) {
      cudaCheck(cudaMemsetAsync(d.block.at<unsigned>(d.oReady), 0, sizeof(unsigned),
                                copyStream),
                "patchFIM: upload");
      cudaCheck(cudaEventRecord(d.readyZero.event, copyStream), "patchFIM: event");
      cudaCheck(cudaStreamWaitEvent(mainStream, d.readyZero.event, 0),
                "patchFIM: upload");
    }

    // The main stream: every vertex cleared, then the start list scattered.
    const unsigned vertexBlocks = unsigned(std::min<std::size_t>((nv + 255) / 256, 4096));
    clearStateKernel<<<vertexBlocks, 256, 0, mainStream>>>(seedFlags, nv, st);
    cudaCheck(cudaGetLastError(), "patchFIM: initial state");
    const std::size_t fixedCount = fixed.vertex.size();
    if (fixedCount > 0) {
      d.reserveFixed(fixedCount);
      DeviceBlock& list = *d.fixedBlock;
      // Through the page-locked staging block when it holds the list (it is idle until
      // the download, which the main stream orders after these copies); else from the
      // pageable vectors, each copy returning once its bytes are staged by the driver.
      const std::size_t vertexBytes = fixedCount * sizeof(std::int64_t);
      const std::size_t valueBytes = fixedCount * sizeof(double);
      const std::size_t labelBytes = fixedCount * sizeof(SimplexId);
      static_assert(sizeof(SimplexId) == sizeof(std::int64_t), "64-bit vertex ids");
      const void* vertices = fixed.vertex.data();
      const void* values = fixed.value.data();
      const void* labels = fixed.label.data();
      if (d.staging.size() >= vertexBytes + valueBytes + labelBytes) {
        unsigned char* pinned = d.staging.data();
        std::memcpy(pinned, vertices, vertexBytes);
        std::memcpy(pinned + vertexBytes, values, valueBytes);
        std::memcpy(pinned + vertexBytes + valueBytes, labels, labelBytes);
        vertices = pinned;
        values = pinned + vertexBytes;
        labels = pinned + vertexBytes + valueBytes;
      }
      const std::pair<std::size_t, std::pair<const void*, std::size_t>> parts[3] = {
          {d.oFixedVertex, {vertices, vertexBytes}},
          {d.oFixedValue, {values, valueBytes}},
          {d.oFixedLabel, {labels, labelBytes}}};
      for (const auto& [offset, source] : parts)
        cudaCheck(cudaMemcpyAsync(list.at<unsigned char>(offset), source.first,
                                  source.second, cudaMemcpyHostToDevice, mainStream),
                  "patchFIM: upload");
      fixedStateKernel<<<unsigned(std::min<std::size_t>((fixedCount + 255) / 256, 4096)),
                         256, 0, mainStream>>>(
          list.at<std::int64_t>(d.oFixedVertex), list.at<double>(d.oFixedValue),
          list.at<SimplexId>(d.oFixedLabel), fixedCount, seedFlags, st);
      cudaCheck(cudaGetLastError(), "patchFIM: fixed start");
    }
    cudaCheck(cudaMemsetAsync(st.scheduled, 0, std::size_t(np) * sizeof(std::int32_t),
                              mainStream),
              "patchFIM: upload");
    // A block reads its first list entry before knowing the list's length: defined.
    for (std::int32_t* list : st.list)
      cudaCheck(
          cudaMemsetAsync(list, 0, std::size_t(np) * sizeof(std::int32_t), mainStream),
          "patchFIM: upload");
    if (uploadTables) {
      put(d.oLocalOffsets, arrays.localOffsets.data(),
          arrays.localOffsets.size() * sizeof(std::int64_t), mainStream);
      put(d.oOwnCount, arrays.ownCount.data(),
          arrays.ownCount.size() * sizeof(std::int32_t), mainStream);
    }
    // Round 1 reads list[1] and count[1]; minPending[1] (round 1's threshold comes
    // from threshold[1] = 0 + band) and the list after round 1's start empty.
    const std::vector<std::int32_t> initial =
        eikonal::initialActivePatches(arrays, fixed.vertex);
    put(d.oList1, initial.data(), initial.size() * sizeof(std::int32_t), mainStream);
    const Small smallInit{{kInfBits, kInfBits, kInfBits},
                          {0, 0, 0},
                          {0.0, 0 + settings.band},
                          {0u, unsigned(initial.size()), 0u},
                          unsigned(initial.size())};
    put(d.oSmall, &smallInit, sizeof(Small), mainStream); // pageable: staged at once
    if (uploadTables) {
      put(d.oReaderOffsets, arrays.readerOffsets.data(),
          arrays.readerOffsets.size() * sizeof(std::int32_t), mainStream);
      put(d.oReaders, arrays.readers.data(), arrays.readers.size() * sizeof(std::int32_t),
          mainStream);
    }
    if (persistent) {
      // All values start in valueIn (location 0, round 0).
      cudaCheck(
          cudaMemsetAsync(st.location, 0, std::size_t(np) * sizeof(unsigned), mainStream),
          "patchFIM: upload");
    }
    // Both schemes go out in batches, each followed by an asynchronous read of the next
    // list's length into pinned memory; the host queues the next batch before waiting
    // for the previous one's length, so the device never idles for the host, and checks
    // the Monitor's abort between batches.
    //  - rounds: 16 rounds of two launches each (patchRoundKernel, publishKernel); rounds
    //    after the list ran empty do nothing (zero count) and are not counted.
    //  - persistent: one cooperative launch runs up to settings.launch.chunk (128)
    //    rounds, one grid-wide barrier each, the end detected on the device. Chunks
    //    rather than a kernel polling a pinned abort flag: the Monitor may only be called
    //    from this thread, so the host would have to spin on it anyway, and the flag
    //    (mapped host memory) would put a PCIe read (about a microsecond) on every
    //    round's critical path, read by every block or broadcast through an extra
    //    barrier so that all blocks stop in the same round. A chunk boundary costs one
    //    launch (a few microseconds, hidden as the next chunk is already queued) per 128
    //    rounds and delays an abort by at most a chunk (a few milliseconds). A chunk
    //    queued after the run ended returns at once.
    const long long batch = persistent ? settings.launch.chunk : 16;
    long long launched = 0, launchedAt[2] = {0, 0};
    // launch(slot) queues a batch, finish(slot) the read of its list length and its
    // event: the first persistent batch is launched before the staged upload is queued
    // (below) and finished after, so that the rounds start as soon as the main stream's
    // uploads are done, and no call that may block (a read into pageable memory, when
    // pinning failed) comes before every copy the rounds wait for is queued.
    const auto launch = [&](int slot) {
      const long long n = std::min<long long>(batch, settings.maxRounds - launched);
      if (persistent) {
        int first = int(launched + 1), last = int(launched + n);
        SolveSettings s = solveSettings;
        RoundState roundState = st;
        PatchView patches = view;
        void* args[] = {&patches, &roundState, &first, &last, &s};
        cudaCheck(cudaLaunchCooperativeKernel(
                      reinterpret_cast<const void*>(persistentKernel), persistentGrid,
                      unsigned(threads), args, sharedBytes, mainStream),
                  "patchFIM: rounds");
        launched += n;
      } else {
        for (long long k = 0; k < n; ++k) {
          const int round = int(++launched);
          patchRoundKernel<<<grid, unsigned(threads), sharedBytes, mainStream>>>(
              view, st, round, solveSettings);
          publishKernel<<<grid, 64, 0, mainStream>>>(view, st, round);
        }
        cudaCheck(cudaGetLastError(), "patchFIM: rounds");
      }
      launchedAt[slot] = launched;
    };
    const auto finish = [&](int slot) {
      cudaCheck(cudaMemcpyAsync(nextCount + slot,
                                persistent ? st.next : st.count[(launched + 1) % 3],
                                sizeof(unsigned), cudaMemcpyDeviceToHost, mainStream),
                "patchFIM: active count");
      cudaCheck(cudaEventRecord(d.done[slot].event, mainStream), "patchFIM: event");
    };
    const auto enqueue = [&](int slot) {
      launch(slot);
      finish(slot);
    };
    const bool startEarly = persistent && !initial.empty() && settings.maxRounds > 0;
    if (startEarly)
      launch(0);

    // The staged tables, queued after the main stream's copies so that those go first.
    if (uploadTables) {
      struct Table {
        std::size_t offset;
        const unsigned char* data;
        std::size_t elementBytes, elements;
        // The elements patch p reads end here (monotone in p).
        std::size_t endOf(std::int32_t p, const eikonal::PatchArrays& a, int kind) const {
          const std::int64_t slotEnd = a.localOffsets[p + 1];
          switch (kind) {
          case 1:
            return std::size_t(slotEnd) + 1; // solveOffsets[s + 1] of its last slot
          case 2:
            return std::size_t(a.solveOffsets[std::size_t(slotEnd)]);
          default:
            return std::size_t(slotEnd);
          }
        }
      };
      const Table tables[4] = {
          {d.oLocalVertices,
           reinterpret_cast<const unsigned char*>(arrays.localVertices.data()),
           sizeof(std::int32_t), slots},
          {d.oSolveOffsets,
           reinterpret_cast<const unsigned char*>(arrays.solveOffsets.data()),
           sizeof(std::int64_t), arrays.solveOffsets.size()},
          {d.oSolves, reinterpret_cast<const unsigned char*>(arrays.solves.data()),
           sizeof(PatchSolve), arrays.solves.size()},
          {d.oSlotPatch, reinterpret_cast<const unsigned char*>(arrays.slotPatch.data()),
           sizeof(std::int32_t), persistent ? slots : 0}};
      const int kinds[4] = {0, 1, 2, 0};
      std::size_t sent[4] = {0, 0, 0, 0};
      for (std::int32_t c = 0; c < chunks; ++c) {
        const bool last = c + 1 == chunks;
        const std::int32_t end = std::int32_t(std::int64_t(np) * (c + 1) / chunks);
        std::int32_t complete = np;
        for (int t = 0; t < 4; ++t) {
          const Table& table = tables[t];
          const std::size_t total = table.elements * table.elementBytes;
          const std::size_t upTo =
              last ? total
                   : std::min(total, table.endOf(end - 1, arrays, kinds[t]) *
                                         table.elementBytes / 128 * 128);
          if (upTo > sent[t]) {
            put(table.offset + sent[t], table.data + sent[t], upTo - sent[t], copyStream);
            sent[t] = upTo;
          }
          if (table.elements == 0)
            continue;
          // Patches whose bytes of this table are all up: a binary search on p.
          std::int32_t lo = 0, hi = np;
          while (lo < hi) {
            const std::int32_t mid = lo + (hi - lo) / 2;
            if (table.endOf(mid, arrays, kinds[t]) * table.elementBytes <= sent[t])
              lo = mid + 1;
            else
              hi = mid;
          }
          complete = std::min(complete, lo);
        }
        readyCounts[c] = unsigned(last ? np : complete);
        cudaCheck(cudaMemcpyAsync(d.block.at<unsigned>(d.oReady), readyCounts + c,
                                  sizeof(unsigned), cudaMemcpyHostToDevice, copyStream),
                  "patchFIM: upload");
      }
    }
    if (uploadTables) {
      // The patch of each vertex is read by the gather after the rounds only: it goes
      // last, off the path to the first round.
      if (persistent)
        put(d.oPatchOf, arrays.patchOf.data(), nv * sizeof(std::int32_t), copyStream);
      cudaCheck(cudaEventRecord(d.copied.event, copyStream), "patchFIM: event");
      if (!persistent) {
        cudaCheck(cudaStreamWaitEvent(mainStream, d.copied.event, 0), "patchFIM: upload");
        cudaCheck(cudaStreamSynchronize(mainStream), "patchFIM: upload");
      }
      d.tablesUp = true;
    }
    stageDone("upload");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("upload (gpu)", timer.seconds());

    timer.reset();

    bool capped = false;
    unsigned activeAtCap = 0;
    if (!initial.empty() && settings.maxRounds <= 0) {
      capped = true; // as the host twin: the cap before the first round
      activeAtCap = unsigned(initial.size());
    } else if (!initial.empty()) {
      int slot = 0;
      if (startEarly)
        finish(slot);
      else
        enqueue(slot);
      while (true) {
        // A batch is queued after `slot` unless the cap was reached with it.
        if (launchedAt[slot] < settings.maxRounds)
          enqueue(1 - slot);
        cudaCheck(cudaEventSynchronize(d.done[slot].event), "patchFIM: rounds");
        const unsigned next = nextCount[slot];
        if (next == 0)
          break;
        if (launchedAt[slot] == settings.maxRounds) {
          capped = true;
          activeAtCap = next;
          break;
        }
        monitor.checkAbort();
        slot = 1 - slot;
      }
    }
    cudaCheck(cudaStreamSynchronize(mainStream), "patchFIM: rounds");
    stageDone("iterate");
    report.timings.emplace_back("patchfim (gpu)", timer.seconds());

    timer.reset();
    if (persistent) {
      // (After the first run the event has long completed: no wait.)
      cudaCheck(cudaStreamWaitEvent(mainStream, d.copied.event, 0), "patchFIM: download");
      gatherKernel<<<unsigned(std::min<std::size_t>((nv + 255) / 256, 4096)), 256, 0,
                     mainStream>>>(st, nv);
      cudaCheck(cudaGetLastError(), "patchFIM: download");
    }
    // The counters go to the transfer block's tail (pinned: an asynchronous copy into
    // pageable memory would wait for the values ahead of it).
    unsigned long long* const total =
        reinterpret_cast<unsigned long long*>(d.transfer.data() + kTransferTotals);
    const std::size_t valueBytes = nv * sizeof(double),
                      labelBytes = nv * sizeof(SimplexId);
    // Through the state's page-locked staging block: the DMA at full bus speed, then
    // copies by all cores, the values' while the labels come down (faster than the DMA
    // straight into pageable vectors).
    unsigned char* const values = d.staging.data();
    unsigned char* const labels = d.staging.data() + valueBytes;
    cudaCheck(cudaMemcpyAsync(values, st.valueIn, valueBytes, cudaMemcpyDeviceToHost,
                              mainStream),
              "patchFIM: download");
    cudaCheck(cudaEventRecord(d.done[0].event, mainStream), "patchFIM: event");
    cudaCheck(cudaMemcpyAsync(labels, st.labelIn, labelBytes, cudaMemcpyDeviceToHost,
                              mainStream),
              "patchFIM: download");
    cudaCheck(cudaMemcpyAsync(total, st.solves, 3 * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, mainStream),
              "patchFIM: download");
    out.value.resize(nv);
    out.label.resize(nv);
    cudaCheck(cudaEventSynchronize(d.done[0].event), "patchFIM: download");
    copyInParallel(out.value.data(), values, valueBytes);
    cudaCheck(cudaStreamSynchronize(mainStream), "patchFIM: download");
    copyInParallel(out.label.data(), labels, labelBytes);
    out.solves = static_cast<long long>(total[0]);
    out.patchRounds = static_cast<long long>(total[1]);
    out.rounds = static_cast<long long>(total[2]);
    if (capped) {
      out.converged = false;
      out.activeAtCap = std::size_t(activeAtCap);
    }
    stageDone("download");
    report.timings.emplace_back("download (gpu)", timer.seconds());
  });
}

} // namespace topogpu::gpu
