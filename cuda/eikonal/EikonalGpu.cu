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
  const SimplexId* localVertices;
  const std::int64_t* solveOffsets;
  const PatchSolve* solves;
  const std::int32_t* neighborOffsets;
  const std::int32_t* neighbors;
  const std::uint8_t* seed;
  const std::uint8_t* border;
};

// One block per active patch (Algorithms 2.3-2.4): the local table's values and labels
// go to shared memory (VAL), each thread updates one own vertex per Jacobi sweep from
// GEO, and the sweeps stop when none moved a value by more than epsilon (a block-wide
// OR: the patch's convergence). Reads come from the previous round's arrays (valueIn,
// labelIn) only and each patch writes its own vertices of valueOut/labelOut only, so
// blocks never race on values; flags are raised with atomicOr (Algorithm 2.5: the patch
// itself when unconverged, its NBH when a border value, one that other patches read,
// moved by more than epsilon this round).
// Shared memory: 17 bytes per local vertex (value, label, changed flag), nLocal <=
// maxLocal (the launch's size).
__global__ void patchRoundKernel(PatchView patches, const std::int32_t* active,
                                 const double* valueIn, const SimplexId* labelIn,
                                 double* valueOut, SimplexId* labelOut, unsigned* flag,
                                 unsigned long long* solveCount, int internalIterations,
                                 double epsilon, double stopDistance) {
  extern __shared__ double shared[];
  __shared__ unsigned long long blockSolves;
  const std::int32_t p = active[blockIdx.x];
  const std::int64_t base = patches.localOffsets[p];
  const int nLocal = int(patches.localOffsets[p + 1] - base);
  const int own = patches.ownCount[p];
  double* val = shared;
  SimplexId* lab = reinterpret_cast<SimplexId*>(shared + nLocal);
  // Per local vertex: changed by the previous sweep (all set for sweep 0).
  unsigned char* dirty = reinterpret_cast<unsigned char*>(lab + nLocal);
  if (threadIdx.x == 0)
    blockSolves = 0;
  for (int i = threadIdx.x; i < nLocal; i += blockDim.x) {
    const SimplexId u = patches.localVertices[base + i];
    val[i] = valueIn[u];
    lab[i] = labelIn[u];
    dirty[i] = 1;
  }
  __syncthreads();

  const int i = int(threadIdx.x);
  const bool mine = i < own; // blockDim.x >= maxOwn >= own
  const SimplexId v = mine ? patches.localVertices[base + i] : -1;
  const bool fixed = !mine || patches.seed[v] != 0;
  const std::int64_t sb = fixed ? 0 : patches.solveOffsets[base + i];
  const std::int64_t se = fixed ? 0 : patches.solveOffsets[base + i + 1];
  const double start = mine ? val[i] : 0.0;
  unsigned long long count = 0;
  bool converged = false;
  for (int it = 0; it < internalIterations; ++it) {
    double next = mine ? val[i] : 0.0;
    SimplexId nextLabel = mine ? lab[i] : -1;
    bool changed = false;
    if (!fixed && eikonal::readsChanged(patches.solves, sb, se, dirty)) {
      const PatchUpdate u = eikonal::updateFromPatch(patches.solves, sb, se, val, lab);
      count += static_cast<unsigned long long>(se - sb);
      if (u.value < next && u.value <= stopDistance) {
        changed = next - u.value > epsilon;
        next = u.value;
        nextLabel = u.label;
      }
    }
    __syncthreads(); // every read of this sweep is done
    if (mine) {
      dirty[i] = next != val[i];
      val[i] = next;
      lab[i] = nextLabel;
    }
    for (int j = own + int(threadIdx.x); j < nLocal; j += int(blockDim.x))
      dirty[j] = 0; // the halo is fixed within the round
    // Also the barrier that publishes the writes to the next sweep.
    if (!__syncthreads_or(changed)) {
      converged = true;
      break;
    }
  }
  const bool moved = mine && patches.border[v] != 0 && start - val[i] > epsilon;
  if (mine) {
    valueOut[v] = val[i];
    labelOut[v] = lab[i];
  }
  atomicAdd(&blockSolves, count);
  const int anyMoved = __syncthreads_or(moved);
  if (threadIdx.x == 0) {
    atomicAdd(solveCount, blockSolves);
    if (!converged)
      atomicOr(&flag[p], 1u);
  }
  if (anyMoved) {
    for (std::int32_t k = patches.neighborOffsets[p] + std::int32_t(threadIdx.x);
         k < patches.neighborOffsets[p + 1]; k += std::int32_t(blockDim.x))
      atomicOr(&flag[patches.neighbors[k]], 1u);
  }
}

// The round's own values become the next round's input (Jacobi between patches).
__global__ void publishKernel(PatchView patches, const std::int32_t* active,
                              const double* valueOut, const SimplexId* labelOut,
                              double* valueIn, SimplexId* labelIn) {
  const std::int32_t p = active[blockIdx.x];
  const std::int64_t base = patches.localOffsets[p];
  for (int i = threadIdx.x; i < patches.ownCount[p]; i += blockDim.x) {
    const SimplexId v = patches.localVertices[base + i];
    valueIn[v] = valueOut[v];
    labelIn[v] = labelOut[v];
  }
}

struct Raised {
  __host__ __device__ bool operator()(unsigned f) const { return f != 0; }
};

void launchRound(const PatchView& view, const std::int32_t* active, int count,
                 int threads, std::size_t sharedBytes, double* valueIn,
                 SimplexId* labelIn, double* valueOut, SimplexId* labelOut,
                 unsigned* flag, unsigned long long* solves,
                 const eikonal::PatchFimSettings& settings) {
  patchRoundKernel<<<unsigned(count), unsigned(threads), sharedBytes>>>(
      view, active, valueIn, labelIn, valueOut, labelOut, flag, solves,
      settings.internalIterations, settings.epsilon, settings.stopDistance);
  publishKernel<<<unsigned(count), 64>>>(view, active, valueOut, labelOut, valueIn,
                                         labelIn);
}

} // namespace

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
        std::size_t(arrays.maxLocal) * (2 * sizeof(double) + 1);
    int device = 0, sharedOptIn = 0;
    cudaCheck(cudaGetDevice(&device), "patchFIM: device");
    cudaCheck(cudaDeviceGetAttribute(&sharedOptIn,
                                     cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
              "patchFIM: shared memory size");
    // The kernel's own __shared__ counter takes 8 bytes besides the dynamic part.
    if (sharedBytes + 64 > std::size_t(sharedOptIn))
      throw GpuError("patchFIM: a patch reads " + std::to_string(arrays.maxLocal) +
                         " vertices, more than the shared memory of a block holds",
                     false);
    cudaCheck(cudaFuncSetAttribute(patchRoundKernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(sharedBytes)),
              "patchFIM: shared memory size");

    Timer timer;
    const thrust::device_vector<std::int64_t> localOffsets(arrays.localOffsets.begin(),
                                                           arrays.localOffsets.end());
    const thrust::device_vector<std::int32_t> ownCount(arrays.ownCount.begin(),
                                                       arrays.ownCount.end());
    const thrust::device_vector<SimplexId> localVertices(arrays.localVertices.begin(),
                                                         arrays.localVertices.end());
    const thrust::device_vector<std::int64_t> solveOffsets(arrays.solveOffsets.begin(),
                                                           arrays.solveOffsets.end());
    const thrust::device_vector<PatchSolve> solves(arrays.solves.begin(),
                                                   arrays.solves.end());
    const thrust::device_vector<std::int32_t> neighborOffsets(
        arrays.neighborOffsets.begin(), arrays.neighborOffsets.end());
    // An empty NBH still needs a valid pointer.
    thrust::device_vector<std::int32_t> neighbors(
        std::max<std::size_t>(arrays.neighbors.size(), 1));
    thrust::copy(arrays.neighbors.begin(), arrays.neighbors.end(), neighbors.begin());
    const thrust::device_vector<std::uint8_t> seed(state.seed.begin(), state.seed.end());
    const thrust::device_vector<std::uint8_t> border(arrays.border.begin(),
                                                     arrays.border.end());
    thrust::device_vector<double> valueIn(state.value.begin(), state.value.end());
    thrust::device_vector<SimplexId> labelIn(state.label.begin(), state.label.end());
    thrust::device_vector<double> valueOut = valueIn;
    thrust::device_vector<SimplexId> labelOut = labelIn;
    thrust::device_vector<unsigned> flag(static_cast<std::size_t>(np), 0u);
    thrust::device_vector<unsigned long long> solveCount(1, 0ull);
    const std::vector<std::int32_t> initial =
        eikonal::initialActivePatches(arrays, state);
    thrust::device_vector<std::int32_t> active(static_cast<std::size_t>(np));
    thrust::copy(initial.begin(), initial.end(), active.begin());
    stageDone("upload");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("upload (gpu)", timer.seconds());

    timer.reset();
    const PatchView view{raw(localOffsets), raw(ownCount), raw(localVertices),
                         raw(solveOffsets), raw(solves),   raw(neighborOffsets),
                         raw(neighbors),    raw(seed),     raw(border)};
    long long count = static_cast<long long>(initial.size());
    while (count > 0) {
      if (state.rounds == settings.maxRounds) {
        state.converged = false;
        state.activeAtCap = std::size_t(count);
        break;
      }
      ++state.rounds;
      launchRound(view, raw(active), int(count), threads, sharedBytes, raw(valueIn),
                  raw(labelIn), raw(valueOut), raw(labelOut), raw(flag), raw(solveCount),
                  settings);
      stageDone("iterate");
      // The next list in increasing patch order, as the host's.
      const auto end = thrust::copy_if(thrust::counting_iterator<std::int32_t>(0),
                                       thrust::counting_iterator<std::int32_t>(np),
                                       flag.begin(), active.begin(), Raised());
      count = static_cast<long long>(end - active.begin());
      thrust::fill(flag.begin(), flag.end(), 0u);
      monitor.checkAbort();
    }
    stageDone("iterate");
    report.timings.emplace_back("patchfim (gpu)", timer.seconds());

    timer.reset();
    thrust::copy(valueIn.begin(), valueIn.end(), state.value.begin());
    thrust::copy(labelIn.begin(), labelIn.end(), state.label.begin());
    unsigned long long total = 0;
    thrust::copy(solveCount.begin(), solveCount.end(), &total);
    state.solves += static_cast<long long>(total);
    stageDone("download");
    report.timings.emplace_back("download (gpu)", timer.seconds());
  });
}

} // namespace topogpu::gpu
