// The simplification's sweeps on the device (SimplificationSweep.h's definitions): the
// minimax keys by relaxation rounds to their unique fixpoint, the region distances by a
// level-synchronous breadth-first search, the order by two stable radix sorts (dist,
// then key, from the rank order), so that the result is the CPU's bit for bit.
#include "core/topological_simplification/TopologicalSimplificationGpu.h"

#include "base/GridStencil.h"
#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/DeviceLaunch.cuh"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <algorithm>

namespace topogpu::gpu {

namespace {

__global__ void scatterKernel(const SimplexId* rank, SimplexId n,
                              SimplexId* vertexOfRank) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    vertexOfRank[rank[v]] = v;
}

__global__ void initKeysKernel(const SimplexId* rank, const char* source, SimplexId n,
                               SimplexId* key) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    key[v] = source[v] ? rank[v] : n;
}

// key(v) = max(rank(v), min over neighbours of key): every value read is an upper bound
// of the minimax, so rounds in place converge to it.
__global__ void relaxKernel(grid::Dims dims, const SimplexId* rank, const char* source,
                            SimplexId* key, int* changed) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= grid::vertexCount(dims) || source[v])
    return;
  SimplexId best = key[v];
  grid::forEachNeighbor(dims, v, [&](SimplexId u) {
    const SimplexId k = key[u];
    const SimplexId candidate = k > rank[v] ? k : rank[v];
    if (candidate < best)
      best = candidate;
  });
  if (best < key[v]) {
    key[v] = best;
    *changed = 1;
  }
}

__global__ void unreachedKernel(const SimplexId* rank, SimplexId n, SimplexId* key,
                                SimplexId* level) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n)
    return;
  if (key[v] == n)
    key[v] = rank[v];
  level[v] = key[v] == rank[v] ? 0 : -1;
}

// Level L of the breadth-first search: a flattened vertex next to its origin (L = 0) or
// to a vertex of its region at level L gets L + 1.
__global__ void levelKernel(grid::Dims dims, const SimplexId* rank, const SimplexId* key,
                            SimplexId L, SimplexId* level, int* changed) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= grid::vertexCount(dims) || level[v] != -1)
    return;
  bool reached = false;
  grid::forEachNeighbor(dims, v, [&](SimplexId u) {
    if (key[u] != key[v])
      return;
    if (key[u] == rank[u] ? L == 0 : level[u] == L)
      reached = true;
  });
  if (reached) {
    level[v] = L + 1;
    *changed = 1;
  }
}

template <typename T>
__global__ void flattenKernel(const SimplexId* rank, const SimplexId* key,
                              const SimplexId* vertexOfRank, SimplexId n, T* values,
                              char* flattened) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n || key[v] == rank[v])
    return;
  values[v] = values[vertexOfRank[key[v]]];
  flattened[v] = 1;
}

__global__ void placeKernel(const SimplexId* sorted, SimplexId n, bool mirror,
                            SimplexId* newRank) {
  const SimplexId p = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < n)
    newRank[sorted[p]] = mirror ? n - 1 - p : p;
}

__global__ void extraKernel(grid::Dims dims, const SimplexId* rank,
                            const char* keptMinimum, const char* keptMaximum,
                            const char* boundary, int* extra) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= grid::vertexCount(dims))
    return;
  bool minimum = true, maximum = !boundary[v];
  grid::forEachNeighbor(dims, v, [&](SimplexId u) {
    minimum = minimum && rank[u] > rank[v];
    maximum = maximum && rank[u] < rank[v];
  });
  if ((minimum && !keptMinimum[v]) || (maximum && !keptMaximum[v]))
    *extra = 1;
}

struct Workspace {
  thrust::device_vector<SimplexId> vertexOfRank, key, level, sorted, scratch;
  thrust::device_vector<int> flag;
  explicit Workspace(SimplexId n)
      : vertexOfRank(n), key(n), level(n), sorted(n), scratch(n), flag(1) {}
};

// Runs kernel rounds, a batch at a time, until a batch changes nothing (a round that
// changes nothing leaves the rest of its batch nothing to change); abort checked between
// batches.
template <typename Round>
void untilStable(Workspace& w, const Monitor& monitor, const char* stage, Round&& round) {
  constexpr SimplexId kBatch = 8;
  for (SimplexId r = 0;; r += kBatch) {
    w.flag[0] = 0;
    for (SimplexId i = 0; i < kBatch; ++i)
      round(r + i, raw(w.flag));
    stageDone(stage);
    if (w.flag[0] == 0)
      return;
    monitor.checkAbort();
  }
}

// One sweep (SimplificationSweep.h's sweep): rank -> newRank (mirrored back when
// mirror), values flattened in place.
template <typename T>
void sweepOnDevice(const grid::Dims& dims, const SimplexId* rank, const char* source,
                   bool mirror, Workspace& w, T* values, char* flattened,
                   SimplexId* newRank, const Monitor& monitor) {
  const SimplexId n = grid::vertexCount(dims);
  const unsigned blocks = blocksFor(n);
  scatterKernel<<<blocks, kBlock>>>(rank, n, raw(w.vertexOfRank));
  initKeysKernel<<<blocks, kBlock>>>(rank, source, n, raw(w.key));
  untilStable(w, monitor, "keys", [&](SimplexId, int* changed) {
    relaxKernel<<<blocks, kBlock>>>(dims, rank, source, raw(w.key), changed);
  });
  unreachedKernel<<<blocks, kBlock>>>(rank, n, raw(w.key), raw(w.level));
  untilStable(w, monitor, "distances", [&](SimplexId L, int* changed) {
    levelKernel<<<blocks, kBlock>>>(dims, rank, raw(w.key), L, raw(w.level), changed);
  });
  flattenKernel<<<blocks, kBlock>>>(rank, raw(w.key), raw(w.vertexOfRank), n, values,
                                    flattened);
  // (key, dist, rank): from the rank order, a stable sort by dist, then by key.
  thrust::copy(w.vertexOfRank.begin(), w.vertexOfRank.end(), w.sorted.begin());
  thrust::gather(w.sorted.begin(), w.sorted.end(), w.level.begin(), w.scratch.begin());
  thrust::stable_sort_by_key(w.scratch.begin(), w.scratch.end(), w.sorted.begin());
  thrust::gather(w.sorted.begin(), w.sorted.end(), w.key.begin(), w.scratch.begin());
  thrust::stable_sort_by_key(w.scratch.begin(), w.scratch.end(), w.sorted.begin());
  placeKernel<<<blocks, kBlock>>>(raw(w.sorted), n, mirror, newRank);
  stageDone("sweep");
}

template <typename T>
void simplifyTyped(const grid::Dims& dims, const SimplexId* hostRank,
                   const char* keptMinimum, const char* maximumSources,
                   const char* keptMaximum, const char* boundary, int maximumIterations,
                   const Monitor& monitor, T* hostValues, SimplexId* order,
                   char* flattened, int& iterations, RunReport& report) {
  const SimplexId n = grid::vertexCount(dims);
  const unsigned blocks = blocksFor(n);
  Timer timer;
  thrust::device_vector<SimplexId> rank(hostRank, hostRank + n), next(n), mirrored(n);
  thrust::device_vector<T> values(hostValues, hostValues + n);
  thrust::device_vector<char> kMin(keptMinimum, keptMinimum + n),
      maxSources(maximumSources, maximumSources + n), kMax(keptMaximum, keptMaximum + n),
      onBoundary(boundary, boundary + n), isFlattened(n, 0);
  Workspace w(n);
  stageDone("upload");
  report.timings.emplace_back("upload (gpu)", timer.seconds());
  timer.reset();
  iterations = 0;
  while (iterations < maximumIterations) {
    ++iterations;
    sweepOnDevice(dims, raw(rank), raw(kMin), true, w, raw(values), raw(isFlattened),
                  raw(mirrored), monitor);
    // mirrored now holds n-1 - (the minimum sweep's ranks): the maximum sweep's input.
    sweepOnDevice(dims, raw(mirrored), raw(maxSources), true, w, raw(values),
                  raw(isFlattened), raw(rank), monitor);
    w.flag[0] = 0;
    extraKernel<<<blocks, kBlock>>>(dims, raw(rank), raw(kMin), raw(kMax),
                                    raw(onBoundary), raw(w.flag));
    stageDone("check");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    monitor.report(double(iterations) / maximumIterations);
    monitor.checkAbort();
    if (w.flag[0] == 0)
      break;
  }
  report.timings.emplace_back("sweeps (gpu)", timer.seconds());
  timer.reset();
  thrust::copy(values.begin(), values.end(), hostValues);
  thrust::copy(rank.begin(), rank.end(), order);
  thrust::copy(isFlattened.begin(), isFlattened.end(), flattened);
  stageDone("download");
  report.timings.emplace_back("download (gpu)", timer.seconds());
}

} // namespace

void simplifyGrid(const grid::Dims& dims, ScalarType type, SimplexId n,
                  const SimplexId* rank, const char* keptMinimum,
                  const char* maximumSources, const char* keptMaximum,
                  const char* boundary, int maximumIterations, const Monitor& monitor,
                  void* values, SimplexId* order, char* flattened, int& iterations,
                  RunReport& report) {
  (void)n;
  translateCudaFailures("topological simplification", [&] {
    TOPOGPU_DISPATCH_SCALAR(type, {
      simplifyTyped(dims, rank, keptMinimum, maximumSources, keptMaximum, boundary,
                    maximumIterations, monitor, static_cast<ValueT*>(values), order,
                    flattened, iterations, report);
    });
  });
}

} // namespace topogpu::gpu
