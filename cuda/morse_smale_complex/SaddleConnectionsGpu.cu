#include "SaddleConnectionsGpu.h"

#include "core/common/Timer.h"
#include "core/morse_smale_complex/SaddleConnectionsGraph.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/GpuDevice.h"

#include <cusparse.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace topogpu::gpu {

namespace {

namespace graph = saddle_connections::graph;

// Doubles hold every integer up to 2^53 exactly, and a sum or product of non-negative
// integers whose exact value is below 2^53 is computed exactly (no intermediate exceeds
// it); a rounded result of an exact value >= 2^53 is itself >= 2^53, so this bound
// detects every inexact count.
constexpr double kExactBound = 9007199254740992.0; // 2^53

void cusparseCheck(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw GpuError(std::string("saddle connections: cuSPARSE ") + what +
                       " failed: " + cusparseGetErrorString(status),
                   status == CUSPARSE_STATUS_ALLOC_FAILED ||
                       status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES);
}

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
__global__ void expandKernel(cubical::Grid g, const std::uint8_t* grad,
                             std::uint8_t* mark, const SimplexId* frontier, SimplexId n,
                             SimplexId* slots) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  SimplexId next[graph::kMaxOutDegree];
  const int count = graph::successors(g, grad, frontier[i], next);
  for (int k = 0; k < graph::kMaxOutDegree; ++k) {
    SimplexId claimed = -1;
    if (k < count && grad[next[k]] != cubical::kCritical &&
        exchangeByte(mark, next[k], 1) == 0)
      claimed = next[k];
    slots[i * graph::kMaxOutDegree + k] = claimed;
  }
}

__global__ void junctionKernel(cubical::Grid g, const std::uint8_t* grad,
                               const SimplexId* reached, SimplexId n,
                               std::uint8_t* flag) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  SimplexId next[graph::kMaxOutDegree];
  flag[i] = grad[reached[i]] != cubical::kCritical &&
            graph::successors(g, grad, reached[i], next) > 1;
}

__global__ void markKernel(const SimplexId* cells, SimplexId n, std::uint8_t* mark,
                           std::uint8_t value) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    mark[cells[i]] = value;
}

// One thread per source (1-saddle or junction): each simple path followed to a junction
// or a 2-saddle; -1 for a dead end, -2 for a walk longer than the cells (a cycle).
__global__ void contractKernel(cubical::Grid g, const std::uint8_t* grad,
                               const std::uint8_t* mark, const SimplexId* sources,
                               SimplexId n, SimplexId cells, SimplexId* target) {
  const SimplexId s = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  SimplexId next[graph::kMaxOutDegree];
  const int count = graph::successors(g, grad, sources[s], next);
  for (int k = 0; k < graph::kMaxOutDegree; ++k) {
    SimplexId node = k < count ? next[k] : -1;
    for (SimplexId steps = 0; node >= 0; ++steps) {
      if (grad[node] == cubical::kCritical || mark[node] == 2)
        break;
      if (steps > cells) {
        node = -2;
        break;
      }
      SimplexId after[graph::kMaxOutDegree];
      node = graph::successors(g, grad, node, after) == 0 ? -1 : after[0];
    }
    target[s * graph::kMaxOutDegree + k] = node;
  }
}

__device__ SimplexId lowerBound(const SimplexId* list, SimplexId n, SimplexId value) {
  SimplexId lo = 0, hi = n;
  while (lo < hi) {
    const SimplexId mid = (lo + hi) / 2;
    if (list[mid] < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Slot -> matrix (0: A 1s-j, 1: B j-j, 2: B* j-2s, 3: D 1s-2s; -1 none), row, column.
__global__ void classifyKernel(const std::uint8_t* grad, const SimplexId* target,
                               SimplexId slots, SimplexId n1, const SimplexId* junctions,
                               SimplexId nJ, const SimplexId* saddles2, SimplexId n2,
                               int* matrix, SimplexId* row, SimplexId* col) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slots)
    return;
  const SimplexId t = target[i];
  if (t < 0) {
    matrix[i] = -1;
    return;
  }
  const SimplexId s = i / graph::kMaxOutDegree;
  const bool toSaddle = grad[t] == cubical::kCritical;
  matrix[i] = s < n1 ? (toSaddle ? 3 : 0) : (toSaddle ? 2 : 1);
  row[i] = s < n1 ? s : s - n1;
  col[i] = toSaddle ? lowerBound(saddles2, n2, t) : lowerBound(junctions, nJ, t);
}

// A sparse matrix on the device: CSR with 32-bit indices (cuSPARSE SpGEMM's), counts as
// doubles below 2^53.
struct Matrix {
  int rows = 0, cols = 0;
  thrust::device_vector<int> offsets, columns;
  thrust::device_vector<double> values;
  SimplexId nnz() const { return SimplexId(columns.size()); }
};

__global__ void rowsOfCsr(const int* offsets, int rows, SimplexId* rowOf) {
  const SimplexId r = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int p = offsets[r]; p < offsets[r + 1]; ++p)
      rowOf[p] = r;
}

// Coordinate entries (key = row * cols + col) to a canonical CSR: sorted, duplicates
// summed, exactness checked.
Matrix fromKeys(int rows, int cols, thrust::device_vector<SimplexId>& keys,
                thrust::device_vector<double>& values) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  if (keys.empty())
    return m;
  thrust::sort_by_key(thrust::device, keys.begin(), keys.end(), values.begin());
  thrust::device_vector<SimplexId> uniqueKeys(keys.size());
  thrust::device_vector<double> sums(keys.size());
  const auto end =
      thrust::reduce_by_key(thrust::device, keys.begin(), keys.end(), values.begin(),
                            uniqueKeys.begin(), sums.begin());
  const std::size_t nnz = static_cast<std::size_t>(end.first - uniqueKeys.begin());
  if (nnz > std::size_t(INT_MAX))
    throw GpuError("saddle connections: a path-count matrix has more than 2^31 nonzeros "
                   "(cuSPARSE SpGEMM's 32-bit indices)",
                   false);
  uniqueKeys.resize(nnz);
  sums.resize(nnz);
  const double largest = *thrust::max_element(thrust::device, sums.begin(), sums.end());
  if (largest >= kExactBound)
    throw GpuError("saddle connections: a multiplicity reaches 2^53, beyond exact double "
                   "arithmetic of cuSPARSE; recounting in exact 64-bit integers",
                   false);
  m.columns.resize(nnz);
  const SimplexId c = cols;
  thrust::transform(thrust::device, uniqueKeys.begin(), uniqueKeys.end(),
                    m.columns.begin(),
                    [c] __device__(SimplexId k) { return int(k % c); });
  // offsets[r] = first key >= r * cols
  thrust::device_vector<SimplexId> rowStarts(static_cast<std::size_t>(rows) + 1);
  thrust::transform(thrust::device, thrust::counting_iterator<SimplexId>(0),
                    thrust::counting_iterator<SimplexId>(rows + 1), rowStarts.begin(),
                    [c] __device__(SimplexId r) { return r * c; });
  thrust::device_vector<SimplexId> positions(static_cast<std::size_t>(rows) + 1);
  thrust::lower_bound(thrust::device, uniqueKeys.begin(), uniqueKeys.end(),
                      rowStarts.begin(), rowStarts.end(), positions.begin());
  thrust::copy(positions.begin(), positions.end(), m.offsets.begin());
  m.values = std::move(sums);
  return m;
}

// Keys (row * cols + col) and values of m, appended to keys / values.
void appendEntries(const Matrix& m, thrust::device_vector<SimplexId>& keys,
                   thrust::device_vector<double>& values) {
  const std::size_t base = keys.size();
  keys.resize(base + static_cast<std::size_t>(m.nnz()));
  values.resize(base + static_cast<std::size_t>(m.nnz()));
  if (m.nnz() == 0)
    return;
  thrust::device_vector<SimplexId> rowOf(static_cast<std::size_t>(m.nnz()));
  rowsOfCsr<<<blocksFor(m.rows, 128), 128>>>(raw(m.offsets), m.rows, raw(rowOf));
  cudaCheck(cudaGetLastError(), "saddle connections: CSR rows");
  const SimplexId c = m.cols;
  const int* columns = raw(m.columns);
  const SimplexId* rowPtr = raw(rowOf);
  thrust::transform(thrust::device, thrust::counting_iterator<SimplexId>(0),
                    thrust::counting_iterator<SimplexId>(m.nnz()), keys.begin() + base,
                    [=] __device__(SimplexId p) { return rowPtr[p] * c + columns[p]; });
  thrust::copy(m.values.begin(), m.values.end(), values.begin() + base);
}

Matrix add(const Matrix& a, const Matrix& b) {
  thrust::device_vector<SimplexId> keys;
  thrust::device_vector<double> values;
  appendEntries(a, keys, values);
  appendEntries(b, keys, values);
  return fromKeys(a.rows, a.cols, keys, values);
}

struct SpMat {
  cusparseSpMatDescr_t d = nullptr;
  ~SpMat() {
    if (d)
      cusparseDestroySpMat(d);
  }
};

// C = A x B by cuSPARSE SpGEMM (double), then made canonical and checked.
Matrix multiply(cusparseHandle_t handle, Matrix& a, Matrix& b) {
  Matrix empty;
  empty.rows = a.rows;
  empty.cols = b.cols;
  empty.offsets.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  if (a.nnz() == 0 || b.nnz() == 0)
    return empty;
  SpMat ma, mb, mc;
  cusparseCheck(cusparseCreateCsr(&ma.d, a.rows, a.cols, a.nnz(), raw(a.offsets),
                                  raw(a.columns), raw(a.values), CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                  CUDA_R_64F),
                "create A");
  cusparseCheck(cusparseCreateCsr(&mb.d, b.rows, b.cols, b.nnz(), raw(b.offsets),
                                  raw(b.columns), raw(b.values), CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                  CUDA_R_64F),
                "create B");
  thrust::device_vector<int> cOffsets(static_cast<std::size_t>(a.rows) + 1);
  cusparseCheck(cusparseCreateCsr(&mc.d, a.rows, b.cols, 0, raw(cOffsets), nullptr,
                                  nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                "create C");
  cusparseSpGEMMDescr_t descr = nullptr;
  cusparseCheck(cusparseSpGEMM_createDescr(&descr), "SpGEMM descriptor");
  struct Release {
    cusparseSpGEMMDescr_t d;
    ~Release() { cusparseSpGEMM_destroyDescr(d); }
  } release{descr};
  const double alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  // ALG3 computes the intermediate products in chunks (a fraction of them at a time):
  // the default algorithm returns "insufficient resources" once the products of one
  // multiplication outgrow its scratch (engine, tooth, lidc2 on an H200).
  const auto alg = CUSPARSE_SPGEMM_ALG3;
  const float chunkFraction = 0.2f;
  std::size_t size1 = 0, size2 = 0, size3 = 0;
  cusparseCheck(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, ma.d, mb.d, &beta,
                                              mc.d, CUDA_R_64F, alg, descr, &size1,
                                              nullptr),
                "SpGEMM work estimation");
  thrust::device_vector<char> buffer1(std::max<std::size_t>(size1, 1));
  cusparseCheck(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, ma.d, mb.d, &beta,
                                              mc.d, CUDA_R_64F, alg, descr, &size1,
                                              raw(buffer1)),
                "SpGEMM work estimation");
  cusparseCheck(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, ma.d, mb.d, &beta,
                                              mc.d, CUDA_R_64F, alg, descr, chunkFraction,
                                              &size3, nullptr, nullptr),
                "SpGEMM memory estimate");
  {
    thrust::device_vector<char> buffer3(std::max<std::size_t>(size3, 1));
    cusparseCheck(cusparseSpGEMM_estimateMemory(
                      handle, op, op, &alpha, ma.d, mb.d, &beta, mc.d, CUDA_R_64F, alg,
                      descr, chunkFraction, &size3, raw(buffer3), &size2),
                  "SpGEMM memory estimate");
  } // buffer3 is only needed for the estimate
  thrust::device_vector<char> buffer2(std::max<std::size_t>(size2, 1));
  cusparseCheck(cusparseSpGEMM_compute(handle, op, op, &alpha, ma.d, mb.d, &beta, mc.d,
                                       CUDA_R_64F, alg, descr, &size2, raw(buffer2)),
                "SpGEMM compute");
  int64_t rowsC = 0, colsC = 0, nnzC = 0;
  cusparseCheck(cusparseSpMatGetSize(mc.d, &rowsC, &colsC, &nnzC), "SpGEMM size");
  if (nnzC > INT_MAX)
    throw GpuError("saddle connections: a path-count matrix has more than 2^31 nonzeros "
                   "(cuSPARSE SpGEMM's 32-bit indices)",
                   false);
  if (nnzC == 0)
    return empty;
  Matrix c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.offsets = std::move(cOffsets);
  c.columns.resize(static_cast<std::size_t>(nnzC));
  c.values.resize(static_cast<std::size_t>(nnzC));
  cusparseCheck(
      cusparseCsrSetPointers(mc.d, raw(c.offsets), raw(c.columns), raw(c.values)),
      "SpGEMM set pointers");
  cusparseCheck(cusparseSpGEMM_copy(handle, op, op, &alpha, ma.d, mb.d, &beta, mc.d,
                                    CUDA_R_64F, alg, descr),
                "SpGEMM copy");
  // canonical (sorted columns, no duplicates) and checked against 2^53
  thrust::device_vector<SimplexId> keys;
  thrust::device_vector<double> values;
  appendEntries(c, keys, values);
  return fromKeys(c.rows, c.cols, keys, values);
}

struct Handle {
  cusparseHandle_t h = nullptr;
  Handle() { cusparseCheck(cusparseCreate(&h), "create handle"); }
  ~Handle() {
    if (h)
      cusparseDestroy(h);
  }
};

} // namespace

void computeSaddleConnections(const cubical::Grid& grid,
                              const std::vector<std::uint8_t>& gradient,
                              const std::vector<SimplexId>& saddles1,
                              const std::vector<SimplexId>& saddles2,
                              const Monitor& monitor, std::vector<SimplexId>& rows,
                              std::vector<SimplexId>& cols,
                              std::vector<std::uint64_t>& values, SimplexId stats[3],
                              int& iterations, RunReport& report) {
  translateCudaFailures("saddle connections", [&] {
    const SimplexId cells = cubical::cellCount(grid);
    const int block = 128;
    Timer timer;
    thrust::device_vector<std::uint8_t> grad(gradient.begin(), gradient.end());
    thrust::device_vector<SimplexId> s1(saddles1.begin(), saddles1.end());
    thrust::device_vector<SimplexId> s2(saddles2.begin(), saddles2.end());
    // padded to whole 32-bit words for exchangeByte
    thrust::device_vector<std::uint8_t> mark(
        static_cast<std::size_t>((cells + 3) / 4 * 4), 0);
    markKernel<<<blocksFor(SimplexId(s1.size()), block), block>>>(
        raw(s1), SimplexId(s1.size()), raw(mark), 1);
    cudaCheck(cudaGetLastError(), "saddle connections: mark");

    // Reachability: frontier BFS with stream compaction.
    thrust::device_vector<SimplexId> frontier = s1, slots, reached = s1;
    while (!frontier.empty()) {
      const SimplexId n = SimplexId(frontier.size());
      slots.resize(static_cast<std::size_t>(n) * graph::kMaxOutDegree);
      expandKernel<<<blocksFor(n, block), block>>>(grid, raw(grad), raw(mark),
                                                   raw(frontier), n, raw(slots));
      cudaCheck(cudaGetLastError(), "saddle connections: BFS");
      const SimplexId next =
          thrust::count_if(thrust::device, slots.begin(), slots.end(),
                           [] __device__(SimplexId x) { return x >= 0; });
      frontier.resize(static_cast<std::size_t>(next));
      thrust::copy_if(thrust::device, slots.begin(), slots.end(), frontier.begin(),
                      [] __device__(SimplexId x) { return x >= 0; });
      const std::size_t base = reached.size();
      reached.resize(base + frontier.size());
      thrust::copy(frontier.begin(), frontier.end(), reached.begin() + base);
      monitor.checkAbort();
    }
    slots.clear();
    slots.shrink_to_fit();
    thrust::sort(thrust::device, reached.begin(), reached.end());
    stageDone("saddle reachability");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("saddle reachability (gpu)", timer.seconds());
    monitor.report(0.3);

    // Junctions and the minor.
    timer.reset();
    const SimplexId nReached = SimplexId(reached.size());
    thrust::device_vector<std::uint8_t> flag(reached.size());
    junctionKernel<<<blocksFor(nReached, block), block>>>(grid, raw(grad), raw(reached),
                                                          nReached, raw(flag));
    cudaCheck(cudaGetLastError(), "saddle connections: junctions");
    const SimplexId nJ = thrust::count(thrust::device, flag.begin(), flag.end(), 1);
    const SimplexId n1 = SimplexId(s1.size()), n2 = SimplexId(s2.size());
    if (n1 > INT_MAX || n2 > INT_MAX || nJ > INT_MAX)
      throw GpuError("saddle connections: more than 2^31 saddles or junctions (cuSPARSE "
                     "SpGEMM's 32-bit indices)",
                     false);
    thrust::device_vector<SimplexId> sources(static_cast<std::size_t>(n1 + nJ));
    thrust::copy(s1.begin(), s1.end(), sources.begin());
    thrust::copy_if(thrust::device, reached.begin(), reached.end(), flag.begin(),
                    sources.begin() + n1,
                    [] __device__(std::uint8_t f) { return f != 0; });
    reached.clear();
    reached.shrink_to_fit();
    const SimplexId* junctionList = raw(sources) + n1;
    markKernel<<<blocksFor(nJ, block), block>>>(junctionList, nJ, raw(mark), 2);
    cudaCheck(cudaGetLastError(), "saddle connections: junction marks");
    const SimplexId nSlots = (n1 + nJ) * graph::kMaxOutDegree;
    thrust::device_vector<SimplexId> target(static_cast<std::size_t>(nSlots));
    contractKernel<<<blocksFor(n1 + nJ, block), block>>>(
        grid, raw(grad), raw(mark), raw(sources), n1 + nJ, cells, raw(target));
    cudaCheck(cudaGetLastError(), "saddle connections: contraction");
    if (thrust::count(thrust::device, target.begin(), target.end(), SimplexId(-2)) > 0)
      throw Error(
          "the discrete gradient has a closed V-path (it is not a valid gradient)");
    thrust::device_vector<int> matrixOf(static_cast<std::size_t>(nSlots));
    thrust::device_vector<SimplexId> rowOf(static_cast<std::size_t>(nSlots)),
        colOf(static_cast<std::size_t>(nSlots));
    classifyKernel<<<blocksFor(nSlots, block), block>>>(
        raw(grad), raw(target), nSlots, n1, junctionList, nJ, raw(s2), n2, raw(matrixOf),
        raw(rowOf), raw(colOf));
    cudaCheck(cudaGetLastError(), "saddle connections: classify");
    const int shape[4][2] = {
        {int(n1), int(nJ)}, {int(nJ), int(nJ)}, {int(nJ), int(n2)}, {int(n1), int(n2)}};
    Matrix m[4];
    SimplexId minorEdges = 0;
    for (int k = 0; k < 4; ++k) {
      const int* type = raw(matrixOf);
      const SimplexId count =
          thrust::count(thrust::device, matrixOf.begin(), matrixOf.end(), k);
      minorEdges += count;
      thrust::device_vector<SimplexId> keys(static_cast<std::size_t>(count));
      const SimplexId* r = raw(rowOf);
      const SimplexId* c = raw(colOf);
      const SimplexId width = shape[k][1];
      thrust::device_vector<SimplexId> picked(static_cast<std::size_t>(count));
      thrust::copy_if(thrust::device, thrust::counting_iterator<SimplexId>(0),
                      thrust::counting_iterator<SimplexId>(nSlots), picked.begin(),
                      [=] __device__(SimplexId i) { return type[i] == k; });
      thrust::transform(thrust::device, picked.begin(), picked.end(), keys.begin(),
                        [=] __device__(SimplexId i) { return r[i] * width + c[i]; });
      thrust::device_vector<double> ones(static_cast<std::size_t>(count), 1.0);
      m[k] = fromKeys(shape[k][0], shape[k][1], keys, ones);
    }
    stats[0] = nReached;
    stats[1] = nJ;
    stats[2] = minorEdges;
    stageDone("saddle DAG minor");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("saddle DAG minor (gpu)", timer.seconds());
    monitor.report(0.5);
    monitor.checkAbort();

    // A* = sum_k A B^k, then A* B* + D.
    timer.reset();
    Handle handle;
    Matrix star;
    star.rows = int(n1);
    star.cols = int(nJ);
    star.offsets.assign(static_cast<std::size_t>(n1) + 1, 0);
    // The terms A B^k wait as coordinate entries and are merged into A* (a sort) only
    // when they outweigh it, as on the CPU: the same sum, fewer sorts.
    thrust::device_vector<SimplexId> pendingKeys;
    thrust::device_vector<double> pendingValues;
    const auto flush = [&] {
      appendEntries(star, pendingKeys, pendingValues);
      star = fromKeys(int(n1), int(nJ), pendingKeys, pendingValues);
      pendingKeys.clear();
      pendingValues.clear();
    };
    Matrix frontierMatrix = std::move(m[0]);
    iterations = 0;
    while (frontierMatrix.nnz() > 0) {
      if (iterations > nJ + 1)
        throw Error(
            "the discrete gradient has a closed V-path between saddles (it is not "
            "a valid gradient)");
      appendEntries(frontierMatrix, pendingKeys, pendingValues);
      frontierMatrix = multiply(handle.h, frontierMatrix, m[1]);
      if (SimplexId(pendingKeys.size()) > std::max<SimplexId>(star.nnz(), 1 << 20))
        flush();
      ++iterations;
      monitor.checkAbort();
    }
    flush();
    Matrix counts = add(multiply(handle.h, star, m[2]), m[3]);
    thrust::device_vector<SimplexId> keys;
    thrust::device_vector<double> sums;
    appendEntries(counts, keys, sums);
    stageDone("saddle path counting");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    std::vector<SimplexId> hostKeys(keys.size());
    std::vector<double> hostSums(sums.size());
    thrust::copy(keys.begin(), keys.end(), hostKeys.begin());
    thrust::copy(sums.begin(), sums.end(), hostSums.begin());
    rows.resize(hostKeys.size());
    cols.resize(hostKeys.size());
    values.resize(hostKeys.size());
    for (std::size_t k = 0; k < hostKeys.size(); ++k) {
      rows[k] = hostKeys[k] / n2;
      cols[k] = hostKeys[k] % n2;
      values[k] = std::uint64_t(hostSums[k]); // exact: checked below 2^53
    }
    report.timings.emplace_back("saddle path counting (gpu)", timer.seconds());
  });
}

} // namespace topogpu::gpu
