#include "EikonalGpu.h"

#include "core/common/Timer.h"
#include "core/eikonal/PatchSolve.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/GpuDevice.h"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>

namespace topogpu::gpu {

namespace {

using eikonal::PatchSolve;
using eikonal::PatchUpdate;

template <typename T> T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <typename T> const T* raw(const thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

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
struct RoundState {
  double* valueIn;
  SimplexId* labelIn;
  double* valueOut;
  SimplexId* labelOut;
  double* announced;
  std::uint8_t* pending;
  unsigned long long* minPending[3]; // as the bits of non-negative doubles
  double* threshold[2];
  double band;
  std::int32_t* stamp[2];
  std::int32_t* scheduled;
  std::int32_t* list[2];
  unsigned* count[3];
  unsigned long long* solves;
  unsigned long long* patchRounds;
  unsigned long long* rounds;
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

// Round `round` (Algorithms 2.3-2.5 as runPatchFimHost does them, Patches.h): the
// blocks take the round's active patches in turn (a grid-stride loop over the device
// worklist, so the host never reads its length per round). Per patch: the local table's
// values, labels and dirty flags go to shared memory, one thread per own vertex runs
// the Jacobi sweeps (solving only the triangles that read a dirty vertex), the patch
// converges when a sweep moved no value by more than epsilon (a block-wide OR); then the
// own values go to valueOut, a converged patch announces the vertices that moved by
// more than epsilon since their last announcement to the patches that read them, and an
// unconverged one lists itself again with its last sweep's moves stamped.
// Shared memory: 17 bytes per local vertex (value, label, dirty), nLocal <= maxLocal.
__global__ void patchRoundKernel(PatchView patches, RoundState st, int round,
                                 int internalIterations, double epsilon,
                                 double stopDistance) {
  extern __shared__ double shared[];
  __shared__ unsigned long long blockSolves;
  __shared__ unsigned long long patchMin;
  const unsigned count = *st.count[round % 3];
  const double threshold = *st.threshold[round % 2];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *st.count[(round + 2) % 3] = 0; // the list after next starts empty
    *st.minPending[(round + 2) % 3] = kInfBits;
    if (count > 0) {
      atomicAdd(st.rounds, 1ull);
      atomicAdd(st.patchRounds, static_cast<unsigned long long>(count));
    }
  }
  const std::int32_t* list = st.list[round % 2];
  const std::int32_t* stampIn = st.stamp[(round + 1) % 2]; // the previous round's
  std::int32_t* stampOut = st.stamp[round % 2];
  if (threadIdx.x == 0)
    blockSolves = 0;
  __syncthreads();
  unsigned long long solved = 0;
  for (unsigned at = blockIdx.x; at < count; at += gridDim.x) {
    const std::int32_t p = list[at];
    const std::int64_t base = patches.localOffsets[p];
    const int nLocal = int(patches.localOffsets[p + 1] - base);
    const int own = patches.ownCount[p];
    double* val = shared;
    SimplexId* lab = reinterpret_cast<SimplexId*>(shared + nLocal);
    unsigned char* dirty = reinterpret_cast<unsigned char*>(lab + nLocal);
    for (int k = int(threadIdx.x); k < nLocal; k += int(blockDim.x)) {
      const std::int32_t u = patches.localVertices[base + k];
      val[k] = st.valueIn[u];
      lab[k] = st.labelIn[u];
      dirty[k] = stampIn[u] == round - 1;
      if (k < own && st.pending[u] && val[k] <= threshold) {
        st.pending[u] = 0; // the threshold reached it: propagate now
        dirty[k] = 1;
      }
    }
    if (threadIdx.x == 0)
      patchMin = kInfBits;
    __syncthreads();

    const int i = int(threadIdx.x);
    const bool mine = i < own; // blockDim.x >= maxOwn >= own
    const std::int32_t v = mine ? patches.localVertices[base + i] : -1;
    const bool fixed = !mine || patches.seed[v] != 0;
    const std::int64_t sb = fixed ? 0 : patches.solveOffsets[base + i];
    const std::int64_t se = fixed ? 0 : patches.solveOffsets[base + i + 1];
    double current = mine ? val[i] : 0.0;
    SimplexId currentLabel = mine ? lab[i] : -1;
    bool converged = false;
    for (int it = 0; it < internalIterations && !converged; ++it) {
      double next = current;
      SimplexId nextLabel = currentLabel;
      bool moved = false;
      if (!fixed) {
        const PatchUpdate u = eikonal::updateFromPatch(patches.solves, sb, se, val, lab,
                                                       dirty, current, currentLabel);
        solved += static_cast<unsigned long long>(u.solves);
        if (u.value < current && u.value <= stopDistance) {
          moved = current - u.value > epsilon && u.value <= threshold;
          next = u.value;
          nextLabel = u.label;
        }
      }
      __syncthreads(); // every read of this sweep is done
      if (mine) {
        // A value above the threshold waits (pending) until the threshold reaches it.
        const bool changedNow = next != current;
        dirty[i] = changedNow && next <= threshold;
        if (changedNow && !dirty[i])
          st.pending[v] = 1;
        else if (dirty[i])
          st.pending[v] = 0;
        val[i] = next;
        lab[i] = nextLabel;
        current = next;
        currentLabel = nextLabel;
      }
      for (int k = own + int(threadIdx.x); k < nLocal; k += int(blockDim.x))
        dirty[k] = 0; // the halo is fixed within the round
      // Also the barrier that publishes the writes to the next sweep.
      converged = __syncthreads_or(moved) == 0;
    }
    if (mine) {
      st.valueOut[v] = current;
      st.labelOut[v] = currentLabel;
      bool stamp = false;
      if (!converged) {
        stamp = dirty[i] != 0; // moved in the last sweep: still to propagate here
      } else if (!st.pending[v] && st.announced[v] - current > epsilon) {
        st.announced[v] = current;
        stamp = true;
        for (std::int32_t k = patches.readerOffsets[v]; k < patches.readerOffsets[v + 1];
             ++k)
          schedule(st, patches.readers[k], round);
      }
      if (stamp)
        stampOut[v] = round;
      if (st.pending[v])
        atomicMin(&patchMin,
                  static_cast<unsigned long long>(__double_as_longlong(current)));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      if (patchMin != kInfBits)
        atomicMin(st.minPending[(round + 1) % 3], patchMin);
      if (!converged || patchMin != kInfBits)
        schedule(st, p, round); // unconverged, or values waiting for the threshold
    }
    __syncthreads(); // the shared table is reused by the next patch
  }
  atomicAdd(&blockSolves, solved);
  __syncthreads();
  if (threadIdx.x == 0 && blockSolves > 0)
    atomicAdd(st.solves, blockSolves);
}

// The round's own values become the next round's input (Jacobi between patches).
// Also sets the next round's threshold: the smallest value left pending plus the band,
// or, when none was left, this round's threshold plus the band.
__global__ void publishKernel(PatchView patches, RoundState st, int round) {
  const unsigned count = *st.count[round % 3];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const unsigned long long bits = *st.minPending[(round + 1) % 3];
    *st.threshold[(round + 1) % 2] =
        bits != kInfBits ? __longlong_as_double(static_cast<long long>(bits)) + st.band
                         : *st.threshold[round % 2] + st.band;
  }
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

// The initial state from the seed flags alone (PatchFimState's contract: 0 and the
// seed's id at seeds, +inf and -1 elsewhere), so values and labels are not uploaded.
__global__ void initialStateKernel(const std::uint8_t* seed, std::size_t n, double* value,
                                   SimplexId* label, std::int32_t* stamp0,
                                   std::int32_t* stamp1) {
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < n;
       v += std::size_t(gridDim.x) * blockDim.x) {
    value[v] = seed[v] ? 0.0 : HUGE_VAL;
    label[v] = seed[v] ? SimplexId(v) : SimplexId(-1);
    stamp0[v] = seed[v] ? 0 : -1; // the seeds changed in round 0
    stamp1[v] = -1;
  }
}

// A device copy of a host array (one cudaMemcpy: a DMA when the host memory is pinned).
template <typename T>
thrust::device_vector<T> upload(const T* data, std::size_t n, const char* what) {
  thrust::device_vector<T> d(std::max<std::size_t>(n, 1));
  if (n > 0)
    cudaCheck(cudaMemcpy(raw(d), data, n * sizeof(T), cudaMemcpyHostToDevice), what);
  return d;
}

// Pinned upload memory: below this size the C heap is as fast.
constexpr std::size_t kPinnedMinBytes = std::size_t(1) << 20;
constexpr std::size_t kHeader = 16; // keeps 16-byte alignment; byte 0: 1 when pinned
std::atomic<bool> pinningFailed{false};

// A small pinned buffer for the asynchronous reads of the worklist's length.
struct PinnedCount {
  unsigned* host = nullptr;
  PinnedCount() {
    cudaCheck(cudaMallocHost(&host, sizeof(unsigned)), "patchFIM: pinned");
  }
  ~PinnedCount() { cudaFreeHost(host); }
  PinnedCount(const PinnedCount&) = delete;
  PinnedCount& operator=(const PinnedCount&) = delete;
};

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

} // namespace

void* allocateUploadMemory(std::size_t bytes) {
  const std::size_t total = bytes + kHeader;
  void* p = nullptr;
  if (bytes >= kPinnedMinBytes && !pinningFailed.load(std::memory_order_relaxed)) {
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

void solvePatchFim(const eikonal::PatchArrays& arrays,
                   const eikonal::PatchFimSettings& settings, const Monitor& monitor,
                   eikonal::PatchFimState& state, RunReport& report) {
  translateCudaFailures("patchFIM", [&] {
    const std::int32_t np = arrays.patches;
    const std::size_t nv = state.value.size();
    if (np == 0 || nv == 0)
      return;
    // One thread per own vertex: a block of at most 1024 threads.
    const int threads = std::max(32, (arrays.maxOwn + 31) / 32 * 32);
    if (threads > 1024)
      throw GpuError("patchFIM: a patch has " + std::to_string(arrays.maxOwn) +
                         " vertices, more than a thread block holds",
                     false);
    const std::size_t sharedBytes =
        std::size_t(arrays.maxLocal) * (sizeof(double) + sizeof(SimplexId) + 1);
    int device = 0, sharedOptIn = 0, sms = 0;
    cudaCheck(cudaGetDevice(&device), "patchFIM: device");
    cudaCheck(cudaDeviceGetAttribute(&sharedOptIn,
                                     cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
              "patchFIM: shared memory size");
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
              "patchFIM: multiprocessors");
    // The kernel's own __shared__ counter takes 8 bytes besides the dynamic part.
    if (sharedBytes + 64 > std::size_t(sharedOptIn))
      throw GpuError("patchFIM: a patch reads " + std::to_string(arrays.maxLocal) +
                         " vertices, more than the shared memory of a block holds",
                     false);
    cudaCheck(cudaFuncSetAttribute(patchRoundKernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(sharedBytes)),
              "patchFIM: shared memory size");
    // Blocks resident at once: the rounds' grid (a grid-stride loop over the worklist).
    int perSm = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, patchRoundKernel,
                                                            threads, sharedBytes),
              "patchFIM: occupancy");
    const unsigned grid =
        unsigned(std::min<long long>(np, std::max(1LL, (long long)perSm * sms)));

    Timer timer;
    // Only what the kernels read: GEO in float32 (16 bytes per solve), 32-bit vertex
    // ids, the readers instead of NBH and the border flags.
    const thrust::device_vector<std::int64_t> localOffsets(arrays.localOffsets.begin(),
                                                           arrays.localOffsets.end());
    const thrust::device_vector<std::int32_t> ownCount(arrays.ownCount.begin(),
                                                       arrays.ownCount.end());
    const thrust::device_vector<std::int32_t> localVertices = upload(
        arrays.localVertices.data(), arrays.localVertices.size(), "patchFIM: upload");
    const thrust::device_vector<std::int64_t> solveOffsets = upload(
        arrays.solveOffsets.data(), arrays.solveOffsets.size(), "patchFIM: upload");
    const thrust::device_vector<PatchSolve> solves =
        upload(arrays.solves.data(), arrays.solves.size(), "patchFIM: upload");
    const thrust::device_vector<std::int32_t> readerOffsets = upload(
        arrays.readerOffsets.data(), arrays.readerOffsets.size(), "patchFIM: upload");
    // upload gives an empty reader list a valid pointer too.
    const thrust::device_vector<std::int32_t> readers =
        upload(arrays.readers.data(), arrays.readers.size(), "patchFIM: upload");
    const thrust::device_vector<std::uint8_t> seed(state.seed.begin(), state.seed.end());
    thrust::device_vector<double> valueIn(nv), valueOut(nv), announced(nv);
    thrust::device_vector<SimplexId> labelIn(nv), labelOut(nv);
    thrust::device_vector<std::uint8_t> pending(nv, 0);
    // minPending[1] (round 1's threshold comes from threshold[1] = 0 + band) and the
    // list after round 1's start empty; threshold[1] for round 1.
    thrust::device_vector<unsigned long long> minPending(3, kInfBits);
    thrust::device_vector<double> threshold(2, 0.0);
    threshold[1] = 0 + settings.band;
    thrust::device_vector<std::int32_t> stamp0(nv), stamp1(nv);
    initialStateKernel<<<unsigned(std::min<std::size_t>((nv + 255) / 256, 4096)), 256>>>(
        raw(seed), nv, raw(valueIn), raw(labelIn), raw(stamp0), raw(stamp1));
    cudaCheck(cudaGetLastError(), "patchFIM: initial state");
    thrust::copy(valueIn.begin(), valueIn.end(), valueOut.begin());
    thrust::copy(valueIn.begin(), valueIn.end(), announced.begin());
    thrust::copy(labelIn.begin(), labelIn.end(), labelOut.begin());
    thrust::device_vector<std::int32_t> scheduled(static_cast<std::size_t>(np), 0);
    thrust::device_vector<std::int32_t> list0(static_cast<std::size_t>(np)),
        list1(static_cast<std::size_t>(np));
    thrust::device_vector<unsigned> counts(3, 0u);
    thrust::device_vector<unsigned long long> counters(
        3, 0ull); // solves, patch-rounds, rounds
    // Round 1 reads list[1] and count[1].
    const std::vector<std::int32_t> initial =
        eikonal::initialActivePatches(arrays, state);
    thrust::copy(initial.begin(), initial.end(), list1.begin());
    counts[1] = unsigned(initial.size());
    stageDone("upload");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("upload (gpu)", timer.seconds());

    timer.reset();
    const PatchView view{raw(localOffsets), raw(ownCount), raw(localVertices),
                         raw(solveOffsets), raw(solves),   raw(readerOffsets),
                         raw(readers),      raw(seed)};
    RoundState st{};
    st.valueIn = raw(valueIn);
    st.labelIn = raw(labelIn);
    st.valueOut = raw(valueOut);
    st.labelOut = raw(labelOut);
    st.announced = raw(announced);
    st.pending = raw(pending);
    for (int k = 0; k < 3; ++k)
      st.minPending[k] = raw(minPending) + k;
    st.threshold[0] = raw(threshold);
    st.threshold[1] = raw(threshold) + 1;
    st.band = settings.band;
    st.stamp[0] = raw(stamp0);
    st.stamp[1] = raw(stamp1);
    st.scheduled = raw(scheduled);
    st.list[0] = raw(list0);
    st.list[1] = raw(list1);
    for (int k = 0; k < 3; ++k)
      st.count[k] = raw(counts) + k;
    st.solves = raw(counters);
    st.patchRounds = raw(counters) + 1;
    st.rounds = raw(counters) + 2;
    // Rounds go out in batches of 16, each followed by an asynchronous read of the next
    // list's length into pinned memory; the host queues the next batch before waiting
    // for the previous one's length, so the device never idles for the host. Rounds after
    // the list ran empty do nothing (their kernels see a zero count) and are not counted.
    const long long batch = 16;
    PinnedCount nextCount[2];
    Event done[2];
    long long launched = 0, launchedAt[2] = {0, 0};
    const auto enqueue = [&](int slot) {
      const long long n = std::min<long long>(batch, settings.maxRounds - launched);
      for (long long k = 0; k < n; ++k) {
        const int round = int(++launched);
        patchRoundKernel<<<grid, unsigned(threads), sharedBytes>>>(
            view, st, round, settings.internalIterations, settings.epsilon,
            settings.stopDistance);
        publishKernel<<<grid, 64>>>(view, st, round);
      }
      cudaCheck(cudaGetLastError(), "patchFIM: rounds");
      cudaCheck(cudaMemcpyAsync(nextCount[slot].host, st.count[(launched + 1) % 3],
                                sizeof(unsigned), cudaMemcpyDeviceToHost),
                "patchFIM: active count");
      cudaCheck(cudaEventRecord(done[slot].event), "patchFIM: event");
      launchedAt[slot] = launched;
    };
    bool capped = false;
    unsigned activeAtCap = 0;
    int slot = 0;
    enqueue(slot);
    while (true) {
      // A batch is queued after `slot` unless the cap was reached with it.
      if (launchedAt[slot] < settings.maxRounds)
        enqueue(1 - slot);
      cudaCheck(cudaEventSynchronize(done[slot].event), "patchFIM: rounds");
      const unsigned next = *nextCount[slot].host;
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
    stageDone("iterate");
    report.timings.emplace_back("patchfim (gpu)", timer.seconds());

    timer.reset();
    thrust::copy(valueIn.begin(), valueIn.end(), state.value.begin());
    thrust::copy(labelIn.begin(), labelIn.end(), state.label.begin());
    unsigned long long total[3] = {0, 0, 0};
    thrust::copy(counters.begin(), counters.end(), total);
    state.solves += static_cast<long long>(total[0]);
    state.patchRounds += static_cast<long long>(total[1]);
    state.rounds = static_cast<long long>(total[2]);
    if (capped) {
      state.converged = false;
      state.activeAtCap = std::size_t(activeAtCap);
    }
    stageDone("download");
    report.timings.emplace_back("download (gpu)", timer.seconds());
  });
}

} // namespace topogpu::gpu
