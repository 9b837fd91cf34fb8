#include "core/morse_smale_complex/SaddleConnectionsGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/morse_smale_complex/ManifoldLabels.h"
#include "core/morse_smale_complex/SaddleConnections.h"
#include "core/morse_smale_complex/SaddleConnectionsGraph.h"
#include "core/morse_smale_complex/SimplicialSaddleGraph.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/morse_smale_complex/SaddleConnectionsDevice.cuh"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace topogpu::gpu {

namespace {

namespace graph = saddle_connections::graph;

// Every kernel and step below reads the graph through Graph (SaddleConnectionsGraph.h's
// CubicalGridGraph, SimplicialSaddleGraph.h's SimplicialGridGraph): successors(node,
// out), isCritical(node) (a saddle), markedNodes() (the nodes that can be reached,
// below the 2-saddles' ids) and kMaxOutDegree (the slots per node).

template <typename T> T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <typename T> const T* raw(const thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

unsigned blocksFor(SimplexId n, int block) {
  return unsigned((n + block - 1) / block);
}

// Sets byte i to value and returns its previous value, by a CAS on its 32-bit word
// (CUDA has no byte-wide atomics); the mark array is padded to whole words.
__device__ std::uint8_t exchangeByte(std::uint8_t* bytes, SimplexId i,
                                     std::uint8_t value) {
  auto* word = reinterpret_cast<unsigned int*>(bytes + (i & ~SimplexId(3)));
  const unsigned shift = unsigned(i & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const unsigned int desired =
        (assumed & ~(0xffu << shift)) | (unsigned(value) << shift);
    old = atomicCAS(word, assumed, desired);
  } while (old != assumed);
  return std::uint8_t(old >> shift & 0xff);
}

// One thread per frontier node: its successors into its four slots, each edge claimed by
// the first thread to reach it (2-saddles end the traversal).
template <typename Graph>
__global__ void expandKernel(Graph g, std::uint8_t* mark, const SimplexId* frontier,
                             SimplexId n, SimplexId* slots) {
  constexpr int kDegree = Graph::kMaxOutDegree;
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  SimplexId next[kDegree];
  const int count = g.successors(frontier[i], next);
  for (int k = 0; k < kDegree; ++k) {
    SimplexId claimed = -1;
    if (k < count && !g.isCritical(next[k]) && exchangeByte(mark, next[k], 1) == 0)
      claimed = next[k];
    slots[i * kDegree + k] = claimed;
  }
}

template <typename Graph>
__global__ void junctionKernel(Graph g, const SimplexId* reached, SimplexId n,
                               std::uint8_t* flag) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  SimplexId next[Graph::kMaxOutDegree];
  flag[i] = !g.isCritical(reached[i]) && g.successors(reached[i], next) > 1;
}

__global__ void markKernel(const SimplexId* cells, SimplexId n, std::uint8_t* mark,
                           std::uint8_t value) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    mark[cells[i]] = value;
}

// One thread per source (1-saddle or junction): each simple path followed to a junction
// or a 2-saddle; -1 for a dead end, -2 for a walk longer than the cells (a cycle).
template <typename Graph>
__global__ void contractKernel(Graph g, const std::uint8_t* mark,
                               const SimplexId* sources, SimplexId n, SimplexId* target) {
  constexpr int kDegree = Graph::kMaxOutDegree;
  const SimplexId s = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  const SimplexId cells = g.markedNodes();
  SimplexId next[kDegree];
  const int count = g.successors(sources[s], next);
  for (int k = 0; k < kDegree; ++k) {
    SimplexId node = k < count ? next[k] : -1;
    for (SimplexId steps = 0; node >= 0; ++steps) {
      if (g.isCritical(node) || mark[node] == 2)
        break;
      if (steps > cells) {
        node = -2;
        break;
      }
      SimplexId after[kDegree];
      node = g.successors(node, after) == 0 ? -1 : after[0];
    }
    target[s * kDegree + k] = node;
  }
}

constexpr SimplexId kNoSlot = -1;

// Slot target cell -> its node in the minor: a junction as its source id (n1 + its
// position among the junctions), a 2-saddle c as -2 - c, nothing (a dead end or an empty
// slot) kNoSlot.
template <typename Graph>
__global__ void slotIndexKernel(Graph g, const SimplexId* target, SimplexId slots,
                                const SimplexId* junctions, SimplexId nJ,
                                const SimplexId* saddles2, SimplexId n2, SimplexId n1,
                                SimplexId* index) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slots)
    return;
  const SimplexId t = target[i];
  index[i] = t < 0 ? kNoSlot
                   : (g.isCritical(t) ? -2 - cubical::indexIn(saddles2, n2, t)
                                      : n1 + cubical::indexIn(junctions, nJ, t));
}

// Each source's junction successors (with repetition), which must have their rows
// before its own can be merged.
template <int kDegree>
__global__ void pendingKernel(const SimplexId* slots, SimplexId n, int* pending) {
  const SimplexId s = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  int count = 0;
  for (int k = 0; k < kDegree; ++k)
    count += slots[s * kDegree + k] >= 0;
  pending[s] = count;
}

// One sorted input list of a row merge, read a few entries at a time: the merge is one
// thread's serial walk, so each global load is a full memory latency on its critical
// path; loading kBuffer independent entries at once pays that latency once per kBuffer.
// (Indices into the buffer are compile-time constants: it stays in registers.)
constexpr int kBuffer = 4;
struct ListCursor {
  const int* columns = nullptr;
  const std::uint64_t* counts = nullptr;
  SimplexId next = 0, size = 0;
  int held = 0;
  int column[kBuffer] = {};
  std::uint64_t count[kBuffer] = {};
  __device__ void refill() {
    held = 0;
#pragma unroll
    for (int b = 0; b < kBuffer; ++b)
      if (next + b < size) {
        column[b] = columns[next + b];
        count[b] = counts[next + b];
        held = b + 1;
      }
    next += held;
  }
  __device__ int head() const {
    return held > 0 ? column[0] : INT_MAX;
  }
  __device__ std::uint64_t pop() {
    const std::uint64_t c = count[0];
#pragma unroll
    for (int b = 0; b + 1 < kBuffer; ++b) {
      column[b] = column[b + 1];
      count[b] = count[b + 1];
    }
    if (--held == 0)
      refill();
    return c;
  }
};

// The rows of the path-count matrix R (junction or 1-saddle -> 2-saddles, sorted by
// column) live in one pool: row r at start[r], length len[r]. A source's row is the
// merge of its (up to kDegree) slots' rows, a 2-saddle slot being the row {(c, 1)}: the
// number of V-paths to each 2-saddle is the sum over the first step. Writes the row and
// returns its length (counts checked: an overflow sets *overflow).
template <int kDegree>
__device__ SimplexId mergeRow(const SimplexId* slots, const SimplexId* start,
                              const SimplexId* len, const int* poolColumns,
                              const std::uint64_t* poolCounts, int* outColumns,
                              std::uint64_t* outCounts, int* overflow) {
  ListCursor list[kDegree];
#pragma unroll
  for (int k = 0; k < kDegree; ++k) {
    const SimplexId s = slots[k];
    if (s >= 0) {
      list[k].columns = poolColumns + start[s];
      list[k].counts = poolCounts + start[s];
      list[k].size = len[s];
      list[k].refill();
    } else if (s != kNoSlot) {
      list[k].column[0] = int(-2 - s);
      list[k].count[0] = 1;
      list[k].held = 1;
    }
  }
  SimplexId written = 0;
  for (;;) {
    int column = INT_MAX;
#pragma unroll
    for (int k = 0; k < kDegree; ++k)
      column = min(column, list[k].head());
    if (column == INT_MAX)
      return written;
    std::uint64_t sum = 0;
#pragma unroll
    for (int k = 0; k < kDegree; ++k)
      if (list[k].head() == column) {
        const std::uint64_t term = list[k].pop();
        if (sum + term < sum)
          *overflow = 1;
        sum += term;
      }
    outColumns[written] = column;
    outCounts[written] = sum;
    ++written;
  }
}

// A bound on each row's length (the sum of its inputs' lengths): rows are written in
// one pass into room of that size, so the merge runs once rather than once to count and
// once to write (the pool keeps the unused tails).
template <int kDegree>
__global__ void rowBoundKernel(const SimplexId* rows, SimplexId n, const SimplexId* slots,
                               const SimplexId* len, SimplexId* bounds) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  SimplexId bound = 0;
  for (int k = 0; k < kDegree; ++k) {
    const SimplexId s = slots[rows[i] * kDegree + k];
    bound += s >= 0 ? len[s] : (s != kNoSlot ? 1 : 0);
  }
  bounds[i] = bound;
}

// Writes the rows at base + offsets[i] and records their start and length (indexed by
// row id).
template <int kDegree>
__global__ void rowFillKernel(const SimplexId* rows, SimplexId n, const SimplexId* slots,
                              SimplexId* start, SimplexId* len, const SimplexId* offsets,
                              SimplexId base, int* poolColumns, std::uint64_t* poolCounts,
                              int* overflow) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const SimplexId at = base + offsets[i];
  const SimplexId written =
      mergeRow<kDegree>(slots + rows[i] * kDegree, start, len, poolColumns, poolCounts,
                        poolColumns + at, poolCounts + at, overflow);
  start[rows[i]] = at;
  len[rows[i]] = written;
}

// Kahn's peeling: a junction whose successors all have rows joins the next level.
__global__ void releaseKernel(const SimplexId* level, SimplexId n,
                              const SimplexId* predOffsets, const SimplexId* predecessors,
                              int* pending, SimplexId* next,
                              unsigned long long* nextCount) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const SimplexId j = level[i];
  for (SimplexId p = predOffsets[j]; p < predOffsets[j + 1]; ++p) {
    const SimplexId q = predecessors[p];
    if (atomicSub(&pending[q], 1) == 1)
      next[atomicAdd(nextCount, 1ull)] = q;
  }
}

// The pool of rows: grows by doubling (copying the rows written so far).
struct RowPool {
  thrust::device_vector<int> columns;
  thrust::device_vector<std::uint64_t> counts;
  SimplexId used = 0;
  void reserve(SimplexId needed) {
    if (needed <= SimplexId(columns.size()))
      return;
    const std::size_t capacity =
        std::max<std::size_t>(std::size_t(needed), 2 * columns.size());
    thrust::device_vector<int> c(capacity);
    thrust::device_vector<std::uint64_t> v(capacity);
    thrust::copy_n(columns.begin(), used, c.begin());
    thrust::copy_n(counts.begin(), used, v.begin());
    columns.swap(c);
    counts.swap(v);
  }
};

struct IsClaimed {
  __device__ bool operator()(SimplexId x) const { return x >= 0; }
};

template <typename T> __global__ void copyScalarKernel(const T* from, T* to) {
  *to = *from;
}

// A few bytes of mapped pinned host memory for the per-level reads, written by a kernel
// over the bus rather than by a copy: the copy engines are busy with the Morse-Smale
// complex's large downloads at the same time, and a copy would queue behind them.
template <typename T> class PinnedScalar {
public:
  PinnedScalar() {
    cudaCheck(cudaHostAlloc(&value_, sizeof(T), cudaHostAllocMapped),
              "saddle connections: pinned memory");
    const cudaError_t mapped = cudaHostGetDevicePointer(&device_, value_, 0);
    if (mapped != cudaSuccess)
      cudaFreeHost(value_);
    cudaCheck(mapped, "saddle connections: mapped memory");
  }
  ~PinnedScalar() { cudaFreeHost(value_); }
  PinnedScalar(const PinnedScalar&) = delete;
  PinnedScalar& operator=(const PinnedScalar&) = delete;
  // Copies from device memory on the default stream and waits for it.
  const T& read(const T* device, const char* what) {
    copyScalarKernel<<<1, 1, 0, cudaStreamLegacy>>>(device, device_);
    cudaCheck(cudaGetLastError(), what);
    cudaCheck(cudaStreamSynchronize(cudaStreamLegacy), what);
    return *value_;
  }

private:
  T* value_ = nullptr;
  T* device_ = nullptr;
};

// One thread per 1-saddle row: its entries as arcs (the cell ids of both saddles), at the
// row's offset among the arcs.
template <typename Graph>
__global__ void arcsKernel(Graph g, SimplexId n1, const SimplexId* start,
                           const SimplexId* len, const SimplexId* arcOffsets,
                           const int* columns, const std::uint64_t* counts,
                           const SimplexId* saddles1, const SimplexId* saddles2,
                           saddle_connections::Arc* arcs) {
  const SimplexId r = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= n1)
    return;
  for (SimplexId k = 0; k < len[r]; ++k) {
    const SimplexId at = start[r] + k;
    saddle_connections::Arc& arc = arcs[arcOffsets[r] + k];
    arc.saddle1 = g.cellId(saddles1[r]);
    arc.saddle2 = g.cellId(saddles2[columns[at]]);
    arc.multiplicity = counts[at];
  }
}

// Per level, read back in one copy: the rows' total length and the next level's size.
struct LevelState {
  long long total;
  unsigned long long next;
};

__global__ void levelTotalKernel(const SimplexId* offsets, const SimplexId* lengths,
                                 SimplexId n, LevelState* state) {
  state->total = offsets[n - 1] + lengths[n - 1];
  state->next = 0;
}

// Device scratch that only grows (CUB's temporary storage), and CUB's scan over it.
struct Scratch {
  thrust::device_vector<char> bytes;
  void* reserve(std::size_t size) {
    if (size > bytes.size())
      bytes.resize(size);
    return thrust::raw_pointer_cast(bytes.data());
  }
};

void exclusiveSum(const SimplexId* in, SimplexId* out, SimplexId n, Scratch& scratch) {
  std::size_t size = 0;
  cudaCheck(cub::DeviceScan::ExclusiveSum(nullptr, size, in, out, n),
            "saddle connections: scan size");
  cudaCheck(cub::DeviceScan::ExclusiveSum(scratch.reserve(size), size, in, out, n),
            "saddle connections: scan");
}

// Merges the rows of `rows` (device list, n of them, all of whose successors have rows)
// into the pool and, with predecessors, releases the next level into `next`. One host
// read per call: the rows' total bound (to size the pool) and the next level's size.
// Returns the latter.
template <int kDegree>
SimplexId mergeLevel(const SimplexId* rows, SimplexId n, const SimplexId* slots,
                     SimplexId* start, SimplexId* len, RowPool& pool, SimplexId* bounds,
                     SimplexId* offsets, Scratch& scratch, LevelState* state,
                     PinnedScalar<LevelState>& hostState, const SimplexId* predOffsets,
                     const SimplexId* predecessors, int* pending, SimplexId* next,
                     int* overflow) {
  constexpr int block = 128;
  rowBoundKernel<kDegree><<<blocksFor(n, block), block>>>(rows, n, slots, len, bounds);
  cudaCheck(cudaGetLastError(), "saddle connections: row bounds");
  exclusiveSum(bounds, offsets, n, scratch);
  levelTotalKernel<<<1, 1>>>(offsets, bounds, n, state);
  if (predecessors != nullptr)
    releaseKernel<<<blocksFor(n, block), block>>>(rows, n, predOffsets, predecessors,
                                                  pending, next, &state->next);
  cudaCheck(cudaGetLastError(), "saddle connections: levels");
  const LevelState host = hostState.read(state, "saddle connections: level size");
  pool.reserve(pool.used + host.total);
  rowFillKernel<kDegree>
      <<<blocksFor(n, block), block>>>(rows, n, slots, start, len, offsets, pool.used,
                                       raw(pool.columns), raw(pool.counts), overflow);
  cudaCheck(cudaGetLastError(), "saddle connections: row merge");
  pool.used += host.total;
  return SimplexId(host.next);
}

// Marks (1) every cell reachable from the 1-saddles along the gradient's V-paths:
// frontier BFS with stream compaction.
template <typename Graph>
void markReachable(const Graph& g, const thrust::device_vector<SimplexId>& s1,
                   thrust::device_vector<std::uint8_t>& mark,
                   thrust::device_vector<SimplexId>& selected,
                   PinnedScalar<SimplexId>& selectedCount, Scratch& scratch,
                   const Monitor& monitor) {
  const int block = 128;
  thrust::device_vector<SimplexId> frontier = s1, slots;
  SimplexId frontierSize = SimplexId(s1.size());
  while (frontierSize > 0) {
    const SimplexId n = frontierSize;
    const SimplexId width = n * Graph::kMaxOutDegree;
    if (SimplexId(slots.size()) < width)
      slots.resize(static_cast<std::size_t>(width));
    expandKernel<<<blocksFor(n, block), block>>>(g, raw(mark), raw(frontier), n,
                                                 raw(slots));
    cudaCheck(cudaGetLastError(), "saddle connections: BFS");
    if (SimplexId(frontier.size()) < width)
      frontier.resize(static_cast<std::size_t>(width));
    std::size_t size = 0;
    const IsClaimed claimed;
    cudaCheck(cub::DeviceSelect::If(nullptr, size, raw(slots), raw(frontier),
                                    raw(selected), width, claimed),
              "saddle connections: compaction size");
    cudaCheck(cub::DeviceSelect::If(scratch.reserve(size), size, raw(slots),
                                    raw(frontier), raw(selected), width, claimed),
              "saddle connections: compaction");
    frontierSize = selectedCount.read(raw(selected), "saddle connections: frontier size");
    monitor.checkAbort();
  }
}

// The minor's edges: slot k of source s (s * kMaxOutDegree + k, the sources being the
// 1-saddles then the junctions) names the node its V-path reaches first (a junction, a
// 2-saddle, or kNoSlot). Error for a closed V-path.
template <typename Graph>
thrust::device_vector<SimplexId>
minorSlots(const Graph& g, thrust::device_vector<std::uint8_t>& mark,
           thrust::device_vector<SimplexId>& sources, SimplexId n1, SimplexId nJ,
           const thrust::device_vector<SimplexId>& s2, SimplexId nSlots) {
  const int block = 128;
  const SimplexId n2 = SimplexId(s2.size());
  const SimplexId* junctionList = raw(sources) + n1;
  thrust::device_vector<SimplexId> target(static_cast<std::size_t>(nSlots));
  thrust::device_vector<SimplexId> slotNode(static_cast<std::size_t>(nSlots));
  if (nSlots == 0)
    return slotNode; // no source (a launch of no blocks is an error)
  contractKernel<<<blocksFor(n1 + nJ, block), block>>>(g, raw(mark), raw(sources),
                                                       n1 + nJ, raw(target));
  cudaCheck(cudaGetLastError(), "saddle connections: contraction");
  if (thrust::count(thrust::device, target.begin(), target.end(), SimplexId(-2)) > 0)
    throw Error("the discrete gradient has a closed V-path (it is not a valid gradient)");
  slotIndexKernel<<<blocksFor(nSlots, block), block>>>(
      g, raw(target), nSlots, junctionList, nJ, raw(s2), n2, n1, raw(slotNode));
  cudaCheck(cudaGetLastError(), "saddle connections: slot nodes");
  target.clear();
  target.shrink_to_fit();
  return slotNode;
}

// The junctions with no pending successor (the first level), into level; their count.
SimplexId readyJunctions(thrust::device_vector<int>& pending, SimplexId n1,
                         SimplexId nSources, thrust::device_vector<SimplexId>& level) {
  const int* p = raw(pending);
  const auto ready = [=] __device__(SimplexId s) { return p[s] == 0; };
  return SimplexId(thrust::copy_if(thrust::device,
                                   thrust::counting_iterator<SimplexId>(n1),
                                   thrust::counting_iterator<SimplexId>(nSources),
                                   level.begin(), ready) -
                   level.begin());
}

// Predecessor lists of the junctions (the minor's edges between junctions, reversed),
// sorted by junction: predKeys[i] is the junction, predecessors[i] the source.
template <int kDegree>
void junctionPredecessors(const SimplexId* node, SimplexId n1, SimplexId nSlots,
                          thrust::device_vector<SimplexId>& predKeys,
                          thrust::device_vector<SimplexId>& predecessors) {
  const SimplexId firstJunctionSlot = n1 * kDegree;
  const auto isJunctionEdge = [=] __device__(SimplexId i) { return node[i] >= 0; };
  const SimplexId count = thrust::count_if(
      thrust::device, thrust::counting_iterator<SimplexId>(firstJunctionSlot),
      thrust::counting_iterator<SimplexId>(nSlots), isJunctionEdge);
  thrust::device_vector<SimplexId> picked(static_cast<std::size_t>(count));
  thrust::copy_if(thrust::device, thrust::counting_iterator<SimplexId>(firstJunctionSlot),
                  thrust::counting_iterator<SimplexId>(nSlots), picked.begin(),
                  isJunctionEdge);
  predKeys.resize(picked.size());
  predecessors.resize(picked.size());
  thrust::transform(thrust::device, picked.begin(), picked.end(), predKeys.begin(),
                    [=] __device__(SimplexId i) { return node[i]; });
  thrust::transform(thrust::device, picked.begin(), picked.end(), predecessors.begin(),
                    [=] __device__(SimplexId i) { return i / kDegree; });
  thrust::sort_by_key(thrust::device, predKeys.begin(), predKeys.end(),
                      predecessors.begin());
}

// The arcs of the 1-saddle rows (merged in the pool), in (saddle1, saddle2) order on the
// device.
template <typename Graph>
void buildArcs(const Graph& g, SimplexId n1, thrust::device_vector<SimplexId>& start,
               thrust::device_vector<SimplexId>& len,
               thrust::device_vector<SimplexId>& offsets, RowPool& pool,
               const thrust::device_vector<SimplexId>& s1,
               const thrust::device_vector<SimplexId>& s2,
               thrust::device_vector<LevelState>& state,
               PinnedScalar<LevelState>& hostState, Scratch& scratch,
               thrust::device_vector<saddle_connections::Arc>& arcs) {
  const int block = 128;
  SimplexId nnz = 0;
  if (n1 > 0) {
    exclusiveSum(raw(len), raw(offsets), n1, scratch);
    levelTotalKernel<<<1, 1>>>(raw(offsets), raw(len), n1, raw(state));
    cudaCheck(cudaGetLastError(), "saddle connections: arc count");
    nnz = hostState.read(raw(state), "saddle connections: arc count").total;
  }
  arcs.resize(static_cast<std::size_t>(nnz));
  if (nnz > 0) {
    arcsKernel<<<blocksFor(n1, block), block>>>(g, n1, raw(start), raw(len), raw(offsets),
                                                raw(pool.columns), raw(pool.counts),
                                                raw(s1), raw(s2), raw(arcs));
    cudaCheck(cudaGetLastError(), "saddle connections: arcs");
  }
}

} // namespace

void computeSaddleConnections(const cubical::Grid& grid,
                              const std::vector<std::uint8_t>& gradient,
                              const std::vector<SimplexId>& saddles1,
                              const std::vector<SimplexId>& saddles2,
                              const Monitor& monitor,
                              saddle_connections::SaddleConnections& out,
                              RunReport& report) {
  translateCudaFailures("saddle connections", [&] {
    const thrust::device_vector<std::uint8_t> deviceGradient(gradient.begin(),
                                                             gradient.end());
    const thrust::device_vector<SimplexId> s1(saddles1.begin(), saddles1.end());
    const thrust::device_vector<SimplexId> s2(saddles2.begin(), saddles2.end());
    computeSaddleConnectionsOnDevice(grid, raw(deviceGradient), s1, s2, monitor, out,
                                     report);
  });
}

namespace {

// The DAG minor of the reached nodes: its sources (the 1-saddles, then the junctions,
// ascending) and the node each source's slot reaches first (minorSlots).
struct DeviceMinor {
  thrust::device_vector<SimplexId> sources, slotNode;
  SimplexId n1 = 0, nJ = 0, nReached = 0, edges = 0;
};

// Stages 1 and 2: reachability from the 1-saddles, junctions, contraction.
template <typename Graph>
void deviceMinor(const Graph& g, const thrust::device_vector<SimplexId>& s1,
                 const thrust::device_vector<SimplexId>& s2, Scratch& scratch,
                 const Monitor& monitor, DeviceMinor& minor, RunReport& report) {
  const SimplexId cells = g.markedNodes();
  const int block = 128;
  Timer timer;
  // padded to whole 32-bit words for exchangeByte
  thrust::device_vector<std::uint8_t> mark(static_cast<std::size_t>((cells + 3) / 4 * 4),
                                           0);
  if (!s1.empty()) {
    markKernel<<<blocksFor(SimplexId(s1.size()), block), block>>>(
        raw(s1), SimplexId(s1.size()), raw(mark), 1);
    cudaCheck(cudaGetLastError(), "saddle connections: mark");
  }

  // Reachability: frontier BFS with stream compaction; the reached set is then the
  // marked cells, compacted in ascending order.
  thrust::device_vector<SimplexId> selected(1);
  PinnedScalar<SimplexId> selectedCount;
  markReachable(g, s1, mark, selected, selectedCount, scratch, monitor);
  const std::uint8_t* marked = raw(mark);
  const auto isReached = [=] __device__(SimplexId c) { return marked[c] != 0; };
  thrust::device_vector<SimplexId> reached(static_cast<std::size_t>(
      thrust::count_if(thrust::device, thrust::counting_iterator<SimplexId>(0),
                       thrust::counting_iterator<SimplexId>(cells), isReached)));
  thrust::copy_if(thrust::device, thrust::counting_iterator<SimplexId>(0),
                  thrust::counting_iterator<SimplexId>(cells), reached.begin(),
                  isReached);
  stageDone("saddle reachability");
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
  report.timings.emplace_back("saddle reachability (gpu)", timer.seconds());
  monitor.report(0.3);

  // Junctions and the minor.
  timer.reset();
  minor.nReached = SimplexId(reached.size());
  thrust::device_vector<std::uint8_t> flag(reached.size());
  if (minor.nReached > 0) {
    junctionKernel<<<blocksFor(minor.nReached, block), block>>>(
        g, raw(reached), minor.nReached, raw(flag));
    cudaCheck(cudaGetLastError(), "saddle connections: junctions");
  }
  const SimplexId nJ = thrust::count(thrust::device, flag.begin(), flag.end(), 1);
  const SimplexId n1 = SimplexId(s1.size()), n2 = SimplexId(s2.size());
  if (n1 > INT_MAX || n2 > INT_MAX || nJ > INT_MAX)
    throw GpuError("saddle connections: more than 2^31 saddles or junctions (the GPU "
                   "path's 32-bit columns)",
                   false);
  minor.n1 = n1;
  minor.nJ = nJ;
  minor.sources.resize(static_cast<std::size_t>(n1 + nJ));
  thrust::copy(s1.begin(), s1.end(), minor.sources.begin());
  thrust::copy_if(thrust::device, reached.begin(), reached.end(), flag.begin(),
                  minor.sources.begin() + n1,
                  [] __device__(std::uint8_t f) { return f != 0; });
  reached.clear();
  reached.shrink_to_fit();
  if (nJ > 0) {
    markKernel<<<blocksFor(nJ, block), block>>>(raw(minor.sources) + n1, nJ, raw(mark),
                                                2);
    cudaCheck(cudaGetLastError(), "saddle connections: junction marks");
  }
  const SimplexId nSlots = (n1 + nJ) * Graph::kMaxOutDegree;
  minor.slotNode = minorSlots(g, mark, minor.sources, n1, nJ, s2, nSlots);
  minor.edges =
      thrust::count_if(thrust::device, minor.slotNode.begin(), minor.slotNode.end(),
                       [] __device__(SimplexId x) { return x != kNoSlot; });
  stageDone("saddle DAG minor");
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
  report.timings.emplace_back("saddle DAG minor (gpu)", timer.seconds());
  monitor.report(0.5);
  monitor.checkAbort();
}

} // namespace

template <typename Graph>
bool saddleArcsOnDevice(const Graph& g, const thrust::device_vector<SimplexId>& s1,
                        const thrust::device_vector<SimplexId>& s2,
                        const Monitor& monitor,
                        thrust::device_vector<saddle_connections::Arc>& arcs,
                        saddle_connections::SaddleConnections& stats, RunReport& report) {
  constexpr int kDegree = Graph::kMaxOutDegree;
  const int block = 128;
  Scratch scratch;
  DeviceMinor minor;
  deviceMinor(g, s1, s2, scratch, monitor, minor, report);
  const SimplexId n1 = minor.n1, nJ = minor.nJ, nSlots = (n1 + nJ) * kDegree;
  const thrust::device_vector<SimplexId>& slotNode = minor.slotNode;

  // Path counts R[s] (source -> 2-saddles) = sum over s's slots of R[slot] (a 2-saddle
  // slot counting 1): R restricted to junctions is (I - B)^-1 B*, and the 1-saddle rows
  // are A R + D = A* B* + D, the CPU's sum of products, here evaluated in topological
  // order. Junction rows are merged level by level (Kahn's peeling from the junctions
  // whose successors are all 2-saddles or dead ends), then all 1-saddle rows at once.
  Timer timer;
  const SimplexId nSources = n1 + nJ;
  thrust::device_vector<int> pending(static_cast<std::size_t>(nSources));
  if (nSources > 0) {
    pendingKernel<kDegree>
        <<<blocksFor(nSources, block), block>>>(raw(slotNode), nSources, raw(pending));
    cudaCheck(cudaGetLastError(), "saddle connections: pending successors");
  }
  // Predecessor lists of the junctions (reverse minor edges between junctions).
  thrust::device_vector<SimplexId> predKeys, predecessors;
  junctionPredecessors<kDegree>(raw(slotNode), n1, nSlots, predKeys, predecessors);
  thrust::device_vector<SimplexId> predOffsets(static_cast<std::size_t>(nSources) + 1);
  thrust::lower_bound(thrust::device, predKeys.begin(), predKeys.end(),
                      thrust::counting_iterator<SimplexId>(0),
                      thrust::counting_iterator<SimplexId>(nSources + 1),
                      predOffsets.begin());
  predKeys.clear();
  predKeys.shrink_to_fit();

  thrust::device_vector<SimplexId> start(static_cast<std::size_t>(nSources), 0),
      len(static_cast<std::size_t>(nSources), 0);
  RowPool pool;
  // Room for the minor's own edges, twice: most rows are short.
  pool.reserve(2 * nSlots);
  const SimplexId widest = std::max(n1, nJ);
  thrust::device_vector<SimplexId> bounds(static_cast<std::size_t>(widest)),
      offsets(static_cast<std::size_t>(widest));
  thrust::device_vector<LevelState> state(1);
  PinnedScalar<LevelState> hostState;
  thrust::device_vector<int> overflow(1, 0);
  thrust::device_vector<SimplexId> level(static_cast<std::size_t>(nJ)),
      next(static_cast<std::size_t>(nJ));
  SimplexId levelSize = readyJunctions(pending, n1, nSources, level);
  report.timings.emplace_back("saddle path setup (gpu)", timer.seconds());
  timer.reset();
  SimplexId merged = 0;
  int iterations = 0;
  while (levelSize > 0) {
    const SimplexId nextSize = mergeLevel<kDegree>(
        raw(level), levelSize, raw(slotNode), raw(start), raw(len), pool, raw(bounds),
        raw(offsets), scratch, raw(state), hostState, raw(predOffsets), raw(predecessors),
        raw(pending), raw(next), raw(overflow));
    merged += levelSize;
    level.swap(next);
    levelSize = nextSize;
    ++iterations;
    monitor.checkAbort();
  }
  if (merged != nJ)
    throw Error("the discrete gradient has a closed V-path between saddles (it is not "
                "a valid gradient)");
  report.timings.emplace_back("saddle path levels (gpu)", timer.seconds());
  timer.reset();
  // The 1-saddle rows.
  if (n1 > 0) {
    thrust::device_vector<SimplexId> saddleRows(static_cast<std::size_t>(n1));
    thrust::sequence(thrust::device, saddleRows.begin(), saddleRows.end());
    mergeLevel<kDegree>(raw(saddleRows), n1, raw(slotNode), raw(start), raw(len), pool,
                        raw(bounds), raw(offsets), scratch, raw(state), hostState,
                        nullptr, nullptr, nullptr, nullptr, raw(overflow));
  }
  const bool overflowed = overflow[0] != 0;
  stageDone("saddle path counting");
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());

  // The arcs, assembled on the device at the 1-saddle rows' offsets (a scan of their
  // lengths).
  if (!overflowed)
    buildArcs(g, n1, start, len, offsets, pool, s1, s2, state, hostState, scratch, arcs);
  stats.reachableNodes = minor.nReached;
  stats.junctionNodes = nJ;
  stats.minorEdges = minor.edges;
  stats.productIterations = iterations;
  report.timings.emplace_back("saddle path rows and arcs (gpu)", timer.seconds());
  return overflowed;
}

using Ids = thrust::device_vector<SimplexId>;
using Arcs = thrust::device_vector<saddle_connections::Arc>;
using Stats = saddle_connections::SaddleConnections;
template bool saddleArcsOnDevice(const graph::CubicalGridGraph&, const Ids&, const Ids&,
                                 const Monitor&, Arcs&, Stats&, RunReport&);
template bool saddleArcsOnDevice(const graph::SimplicialGridGraph&, const Ids&,
                                 const Ids&, const Monitor&, Arcs&, Stats&, RunReport&);

void computeSaddleConnectionsOnDevice(const cubical::Grid& grid, const std::uint8_t* grad,
                                      const thrust::device_vector<SimplexId>& s1,
                                      const thrust::device_vector<SimplexId>& s2,
                                      const Monitor& monitor,
                                      saddle_connections::SaddleConnections& out,
                                      RunReport& report) {
  thrust::device_vector<saddle_connections::Arc> arcs;
  if (saddleArcsOnDevice(graph::CubicalGridGraph{grid, grad}, s1, s2, monitor, arcs, out,
                         report))
    saddle_connections::detail::throwMultiplicityOverflow();
  // The arcs, copied back as they are (timed with the stage before).
  Timer timer;
  out.arcs.resize(arcs.size());
  if (!arcs.empty())
    cudaCheck(cudaMemcpy(out.arcs.data(), raw(arcs),
                         arcs.size() * sizeof(saddle_connections::Arc),
                         cudaMemcpyDeviceToHost),
              "saddle connections: arcs download");
  saddle_connections::detail::sumMultiplicities(out);
  report.timings.back().second += timer.seconds();
}

} // namespace topogpu::gpu
