#include "core/morse_smale_complex/MorseSmaleComplexGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/common/VertexOrderGpu.h"
#include "core/morse_smale_complex/GradientForest.h"
#include "core/morse_smale_complex/ManifoldLabels.h"
#include "core/morse_smale_complex/SaddleConnections.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/discrete_gradient/DiscreteGradientDevice.cuh"
#include "cuda/morse_smale_complex/PointerJumpingDevice.cuh"
#include "cuda/morse_smale_complex/SaddleConnectionsDevice.cuh"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace topogpu::gpu {

namespace {

constexpr int kBlock = 256;
using Label = morse_smale_complex::ManifoldLabel;

unsigned blocksFor(SimplexId n) {
  return unsigned((n + kBlock - 1) / kBlock);
}

__global__ void vertexSuccessorKernel(cubical::Grid grid, SimplexId n,
                                      const std::uint8_t* gradient, SimplexId* root) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    root[v] = cubical::vertexSuccessor(grid, gradient, v);
}

__global__ void topCellSuccessorKernel(cubical::Grid grid, SimplexId n,
                                       const std::uint8_t* gradient, SimplexId* root) {
  const SimplexId t = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < n)
    root[t] = cubical::topCellSuccessor(grid, gradient, t);
}

// One pointer-jumping round, in place: negative entries are terminal; *changed is set
// when any entry moved. A concurrent write to root[p] stores an ancestor of p, so every
// entry read is still an ancestor of i and the roots reached do not depend on the
// schedule; in place saves the second array (half the forest's memory on large grids).
__global__ void jumpKernel(SimplexId n, SimplexId* root, int* changed) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const SimplexId p = root[i];
  if (p < 0)
    return;
  const SimplexId q = root[p];
  if (q != p) {
    root[i] = q;
    *changed = 1;
  }
}

} // namespace

void pointerJump(thrust::device_vector<SimplexId>& root, const Monitor& monitor) {
  const SimplexId n = SimplexId(root.size());
  if (n == 0)
    return;
  thrust::device_vector<int> changed(1);
  for (;;) {
    changed[0] = 0;
    jumpKernel<<<blocksFor(n), kBlock>>>(n, thrust::raw_pointer_cast(root.data()),
                                         thrust::raw_pointer_cast(changed.data()));
    cudaCheck(cudaGetLastError(), "pointer jumping");
    monitor.checkAbort();
    if (changed[0] == 0)
      return;
  }
}

namespace {

// The boundary forest: steepest ascent over the box's surface
// (cubical::boundarySuccessor).
__global__ void boundarySuccessorKernel(cubical::Grid grid, SimplexId n,
                                        const SimplexId* rank, SimplexId* root) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    root[i] = cubical::boundarySuccessor(grid, rank, i);
}

__global__ void boundaryLabelKernel(cubical::Grid grid, SimplexId n,
                                    const std::uint8_t* gradient,
                                    const SimplexId* topMaxima, SimplexId nTopMaxima,
                                    SimplexId* label) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    label[i] = cubical::boundaryRootLabel(grid, gradient, topMaxima, nTopMaxima, i);
}

// Boundary roots reached by a top-cell path that leaves the box and not standing for a
// critical maximum: the boundary maxima (every writer stores the same byte).
__global__ void exitReachedKernel(cubical::Grid grid, SimplexId nTop,
                                  const SimplexId* topRoot, const SimplexId* boundaryRoot,
                                  const SimplexId* label, std::uint8_t* reached) {
  const SimplexId t = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= nTop || topRoot[t] >= 0)
    return;
  const SimplexId root = boundaryRoot[cubical::boundaryIndexOf(grid, -1 - topRoot[t])];
  if (label[root] < 0)
    reached[root] = 1;
}

__global__ void boundaryMaximumLabelKernel(cubical::Grid grid, const SimplexId* facets,
                                           SimplexId n, SimplexId first,
                                           SimplexId* label) {
  const SimplexId k = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n)
    label[cubical::boundaryIndexOf(grid, facets[k])] = first + k;
}

__global__ void ascendingKernel(cubical::Grid grid, SimplexId n, const SimplexId* root,
                                const SimplexId* minima, SimplexId nMinima,
                                Label* label) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    label[v] =
        Label(cubical::indexIn(minima, nMinima, cubical::vertexCell(grid, root[v])));
}

__global__ void cellLabelKernel(cubical::Grid grid, SimplexId nTop, const SimplexId* root,
                                const SimplexId* topMaxima, SimplexId nTopMaxima,
                                const SimplexId* boundaryRoot,
                                const SimplexId* boundaryLabel, Label* label) {
  const SimplexId t = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < nTop)
    label[t] = Label(cubical::topCellLabel(grid, root[t], topMaxima, nTopMaxima,
                                           boundaryRoot, boundaryLabel));
}

__global__ void vertexMaximumKernel(cubical::Grid grid, SimplexId n,
                                    const SimplexId* rank, const Label* cellLabel,
                                    Label* label) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n)
    return;
  const SimplexId best = cubical::highestStarCell(grid, rank, v);
  label[v] = best >= 0 ? cellLabel[best] : -1;
}

// Path ends of each 1-saddle (its two vertices' minima) and of each (d-1)-saddle (its
// two cofaces' maxima, -1 outside the box), for detail::addArcs on the host.
__global__ void saddleMinimumEndsKernel(cubical::Grid grid, const SimplexId* saddles,
                                        SimplexId n, const Label* ascending,
                                        const SimplexId* minima, SimplexId* ends) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  SimplexId v[2];
  cubical::edgeVertices(grid, saddles[i], v);
  for (int k = 0; k < 2; ++k)
    ends[2 * i + k] = minima[ascending[v[k]]];
}

__global__ void saddleMaximumEndsKernel(cubical::Grid grid, const SimplexId* saddles,
                                        SimplexId n, const Label* cellLabel,
                                        const SimplexId* maxima, SimplexId* ends) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  SimplexId side[2];
  bool exits[2];
  cubical::saddleSides(grid, saddles[i], side, exits);
  for (int k = 0; k < 2; ++k)
    ends[2 * i + k] = exits[k] ? -1 : maxima[cellLabel[side[k]]];
}

template <typename T> T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

template <typename T>
void download(const thrust::device_vector<T>& from, std::vector<T>& to) {
  to.resize(from.size());
  if (!from.empty())
    cudaCheck(cudaMemcpy(to.data(), thrust::raw_pointer_cast(from.data()),
                         from.size() * sizeof(T), cudaMemcpyDeviceToHost),
              "morse-smale complex: download");
}

void adviseHugePages(void* data, std::size_t bytes) {
#ifdef __linux__
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  const std::uintptr_t begin =
      (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end =
      (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) // advice only: a kernel without THP ignores it
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// A copy to the host on a stream of its own (non-blocking: it overlaps the kernels of
// the default stream), for a host thread of its own.
template <typename T>
void downloadOnOwnStream(const thrust::device_vector<T>& from, std::vector<T>& to) {
  // Fresh pages are what the copy waits on (a fault per 4 KiB page as resize zeroes
  // them): ask for transparent huge pages on the untouched buffer first.
  to.clear();
  to.reserve(from.size());
  adviseHugePages(to.data(), from.size() * sizeof(T));
  to.resize(from.size());
  if (from.empty())
    return;
  cudaStream_t stream = nullptr;
  cudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
            "morse-smale complex: download stream");
  cudaError_t status =
      cudaMemcpyAsync(to.data(), thrust::raw_pointer_cast(from.data()),
                      from.size() * sizeof(T), cudaMemcpyDeviceToHost, stream);
  const cudaError_t synced = cudaStreamSynchronize(stream);
  status = status != cudaSuccess ? status : synced;
  cudaStreamDestroy(stream);
  cudaCheck(status, "morse-smale complex: download");
}

// The results that go back to the host: each is copied from a host thread of its own
// on a non-blocking stream (downloadOnOwnStream) as soon as it is final, while the next
// stages run. Joined on every way out (declare it after the device arrays the copies
// read, so that it joins before they are freed); finish() joins and rethrows the first
// failure, by slot.
class BackgroundDownloads {
public:
  explicit BackgroundDownloads(std::size_t slots) : failures_(slots) {}
  BackgroundDownloads(const BackgroundDownloads&) = delete;
  BackgroundDownloads& operator=(const BackgroundDownloads&) = delete;
  ~BackgroundDownloads() {
    for (std::thread& t : threads_)
      if (t.joinable())
        t.join();
  }

  template <typename T>
  void start(std::size_t slot, const thrust::device_vector<T>& from, std::vector<T>& to) {
    threads_.emplace_back([&from, &to, this, slot] {
      try {
        downloadOnOwnStream(from, to);
      } catch (...) {
        failures_[slot] = std::current_exception();
      }
    });
  }

  void finish() {
    for (std::thread& t : threads_)
      t.join();
    threads_.clear();
    for (const std::exception_ptr& failure : failures_)
      if (failure)
        std::rethrow_exception(failure);
  }

private:
  std::vector<std::thread> threads_;
  std::vector<std::exception_ptr> failures_;
};

SimplexId countNegative(const thrust::device_vector<Label>& labels) {
  return SimplexId(thrust::count_if(thrust::device, labels.begin(), labels.end(),
                                    [] __device__(Label l) { return l < 0; }));
}

// The root of each top cell's ascending path (pointer jumping over topCellSuccessor).
thrust::device_vector<SimplexId>
topCellRoots(const cubical::Grid& grid, thrust::device_vector<std::uint8_t>& gradient,
             const Monitor& monitor) {
  const SimplexId nTop = cubical::topCellCount(grid);
  thrust::device_vector<SimplexId> topRoot(static_cast<std::size_t>(nTop));
  if (nTop > 0) {
    topCellSuccessorKernel<<<blocksFor(nTop), kBlock>>>(grid, nTop, raw(gradient),
                                                        raw(topRoot));
    cudaCheck(cudaGetLastError(), "top-cell successors");
  }
  pointerJump(topRoot, monitor);
  return topRoot;
}

// The root of each boundary facet in the boundary forest (pointer jumping).
thrust::device_vector<SimplexId> boundaryRoots(const cubical::Grid& grid,
                                               thrust::device_vector<SimplexId>& order,
                                               const Monitor& monitor) {
  const SimplexId nBoundary = cubical::boundaryFacetCount(grid);
  thrust::device_vector<SimplexId> boundaryRoot(static_cast<std::size_t>(nBoundary));
  if (nBoundary > 0) {
    boundarySuccessorKernel<<<blocksFor(nBoundary), kBlock>>>(grid, nBoundary, raw(order),
                                                              raw(boundaryRoot));
    cudaCheck(cudaGetLastError(), "boundary successors");
  }
  pointerJump(boundaryRoot, monitor);
  return boundaryRoot;
}

// The boundary maxima: the refined ids of the boundary facets an exit reached, sorted.
thrust::device_vector<SimplexId>
boundaryMaximaOf(const cubical::Grid& grid, SimplexId nBoundary,
                 thrust::device_vector<std::uint8_t>& reached) {
  thrust::device_vector<SimplexId> boundaryMaxima(static_cast<std::size_t>(
      thrust::count(thrust::device, reached.begin(), reached.end(), std::uint8_t(1))));
  {
    const std::uint8_t* r = raw(reached);
    const cubical::Grid g = grid;
    thrust::copy_if(thrust::device, thrust::counting_iterator<SimplexId>(0),
                    thrust::counting_iterator<SimplexId>(nBoundary),
                    boundaryMaxima.begin(),
                    [=] __device__(SimplexId i) { return r[i] != 0; });
    thrust::transform(thrust::device, boundaryMaxima.begin(), boundaryMaxima.end(),
                      boundaryMaxima.begin(), [=] __device__(SimplexId i) {
                        return cubical::boundaryFacetOf(g, i);
                      });
    thrust::sort(thrust::device, boundaryMaxima.begin(), boundaryMaxima.end());
  }
  return boundaryMaxima;
}

// a then b in one device array.
thrust::device_vector<SimplexId> concatenated(const thrust::device_vector<SimplexId>& a,
                                              const thrust::device_vector<SimplexId>& b) {
  thrust::device_vector<SimplexId> both(a.size() + b.size());
  thrust::copy(a.begin(), a.end(), both.begin());
  thrust::copy(b.begin(), b.end(), both.begin() + a.size());
  return both;
}

// The saddle-extremum arcs: path ends on the device, arcs merged on the host.
void saddleExtremumArcs(const cubical::Grid& grid,
                        std::array<thrust::device_vector<SimplexId>, 4>& critical,
                        thrust::device_vector<Label>& ascending,
                        thrust::device_vector<Label>& cellLabel,
                        thrust::device_vector<SimplexId>& maxima,
                        morse_smale_complex::Output& out) {
  const int d = grid.dimension;
  const thrust::device_vector<SimplexId>& minima = critical[0];
  const thrust::device_vector<SimplexId>& saddles1 = critical[1];
  const thrust::device_vector<SimplexId>& saddles = critical[std::size_t(d - 1)];
  thrust::device_vector<SimplexId> ends(2 * std::max(saddles1.size(), saddles.size()));
  std::vector<SimplexId> hostEnds;
  if (!saddles1.empty()) {
    saddleMinimumEndsKernel<<<blocksFor(SimplexId(saddles1.size())), kBlock>>>(
        grid, thrust::raw_pointer_cast(saddles1.data()), SimplexId(saddles1.size()),
        raw(ascending), thrust::raw_pointer_cast(minima.data()), raw(ends));
    cudaCheck(cudaGetLastError(), "saddle-minimum arcs");
  }
  ends.resize(2 * saddles1.size());
  download(ends, hostEnds);
  morse_smale_complex::detail::addArcs(out.gradient.criticalCells[1], hostEnds,
                                       out.saddle1Minimum);
  ends.resize(2 * saddles.size());
  if (!saddles.empty()) {
    saddleMaximumEndsKernel<<<blocksFor(SimplexId(saddles.size())), kBlock>>>(
        grid, thrust::raw_pointer_cast(saddles.data()), SimplexId(saddles.size()),
        raw(cellLabel), raw(maxima), raw(ends));
    cudaCheck(cudaGetLastError(), "saddle-maximum arcs");
  }
  download(ends, hostEnds);
  morse_smale_complex::detail::addArcs(out.gradient.criticalCells[std::size_t(d - 1)],
                                       hostEnds, out.saddleMaximum);
}

} // namespace

void computeMorseSmaleComplex(const cubical::Grid& grid, const ScalarArrayView& values,
                              bool saddleConnections, bool keepVertexOrder,
                              const Monitor& monitor, morse_smale_complex::Output& out) {
  translateCudaFailures("morse-smale complex", [&] {
    RunReport& report = out.report;
    const SimplexId n = values.size;
    const SimplexId cells = cubical::cellCount(grid);
    const SimplexId nTop = cubical::topCellCount(grid);
    const SimplexId nBoundary = cubical::boundaryFacetCount(grid);
    const int d = grid.dimension;
    Timer timer;

    // The results that go back to the host, copied in the background as soon as each
    // is final (the host side of a copy, first touch of fresh pages, is what takes the
    // time).
    thrust::device_vector<std::uint8_t> gradient;
    thrust::device_vector<Label> ascending, descending, cellLabel;
    BackgroundDownloads copies(4); // after the arrays above: joined before they are freed

    // Stage 1: vertex order and gradient, both kept on the device.
    thrust::device_vector<SimplexId> order(static_cast<std::size_t>(n));
    uploadAndComputeVertexOrder(values, raw(order), monitor.stage(0, 0.1), 0.05, report);
    monitor.checkAbort();
    timer.reset();
    gradient.assign(static_cast<std::size_t>(cells), cubical::kUnassigned);
    launchLowerStars(grid, n, raw(order), raw(gradient));
    stageDone("gradient");
    report.timings.emplace_back("gradient (gpu)", timer.seconds());
    timer.reset();
    std::array<thrust::device_vector<SimplexId>, 4> critical;
    compactCriticalCells(grid, raw(gradient), critical);
    out.gradient.grid = grid;
    for (int k = 0; k < 4; ++k)
      download(critical[std::size_t(k)], out.gradient.criticalCells[std::size_t(k)]);
    stageDone("critical cells");
    copies.start(3, gradient, out.gradient.gradient);
    report.timings.emplace_back("critical cells (gpu)", timer.seconds());
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    monitor.report(0.2);
    monitor.checkAbort();

    // Stage 2: roots of the three forests by pointer jumping.
    timer.reset();
    const thrust::device_vector<SimplexId>& minima = critical[0];
    const thrust::device_vector<SimplexId>& topMaxima = critical[std::size_t(d)];
    const SimplexId nMinima = SimplexId(minima.size());
    const SimplexId nTopMaxima = SimplexId(topMaxima.size());
    morse_smale_complex::detail::checkLabelRange(nMinima, "minima");
    ascending.resize(static_cast<std::size_t>(n));
    {
      thrust::device_vector<SimplexId> root(static_cast<std::size_t>(n));
      vertexSuccessorKernel<<<blocksFor(n), kBlock>>>(grid, n, raw(gradient), raw(root));
      cudaCheck(cudaGetLastError(), "vertex successors");
      pointerJump(root, monitor);
      ascendingKernel<<<blocksFor(n), kBlock>>>(grid, n, raw(root),
                                                thrust::raw_pointer_cast(minima.data()),
                                                nMinima, raw(ascending));
      cudaCheck(cudaGetLastError(), "ascending labels");
      stageDone("minima roots");
      copies.start(0, ascending, out.descendingManifold);
      report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    }
    report.timings.emplace_back("minima roots (gpu)", timer.seconds());
    monitor.report(0.3);

    timer.reset();
    thrust::device_vector<SimplexId> topRoot = topCellRoots(grid, gradient, monitor);
    thrust::device_vector<SimplexId> boundaryRoot = boundaryRoots(grid, order, monitor);
    stageDone("maxima roots");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("maxima roots (gpu)", timer.seconds());
    monitor.report(0.4);

    // Labels: the boundary maxima numbered after the critical ones (ascending refined
    // id), then every top cell and vertex (ManifoldLabels.h, as the CPU's assemble).
    timer.reset();
    const SimplexId* topMax = thrust::raw_pointer_cast(topMaxima.data());
    thrust::device_vector<SimplexId> boundaryLabel(static_cast<std::size_t>(nBoundary));
    thrust::device_vector<std::uint8_t> reached(static_cast<std::size_t>(nBoundary), 0);
    if (nBoundary > 0) {
      boundaryLabelKernel<<<blocksFor(nBoundary), kBlock>>>(
          grid, nBoundary, raw(gradient), topMax, nTopMaxima, raw(boundaryLabel));
      cudaCheck(cudaGetLastError(), "boundary labels");
    }
    if (nTop > 0) {
      exitReachedKernel<<<blocksFor(nTop), kBlock>>>(
          grid, nTop, raw(topRoot), raw(boundaryRoot), raw(boundaryLabel), raw(reached));
      cudaCheck(cudaGetLastError(), "boundary exits");
    }
    thrust::device_vector<SimplexId> boundaryMaxima =
        boundaryMaximaOf(grid, nBoundary, reached);
    const SimplexId nBoundaryMaxima = SimplexId(boundaryMaxima.size());
    morse_smale_complex::detail::checkLabelRange(nTopMaxima + nBoundaryMaxima, "maxima");
    if (nBoundaryMaxima > 0) {
      boundaryMaximumLabelKernel<<<blocksFor(nBoundaryMaxima), kBlock>>>(
          grid, raw(boundaryMaxima), nBoundaryMaxima, nTopMaxima, raw(boundaryLabel));
      cudaCheck(cudaGetLastError(), "boundary maxima");
    }
    thrust::device_vector<SimplexId> maxima = concatenated(topMaxima, boundaryMaxima);
    cellLabel.resize(static_cast<std::size_t>(nTop));
    if (nTop > 0) {
      cellLabelKernel<<<blocksFor(nTop), kBlock>>>(grid, nTop, raw(topRoot), topMax,
                                                   nTopMaxima, raw(boundaryRoot),
                                                   raw(boundaryLabel), raw(cellLabel));
      cudaCheck(cudaGetLastError(), "top-cell labels");
    }
    topRoot = thrust::device_vector<SimplexId>();
    descending.resize(static_cast<std::size_t>(n));
    vertexMaximumKernel<<<blocksFor(n), kBlock>>>(grid, n, raw(order), raw(cellLabel),
                                                  raw(descending));
    cudaCheck(cudaGetLastError(), "vertex maximum rule");
    out.unlabelledDescending = countNegative(ascending);
    out.unlabelledAscending = countNegative(descending);
    out.unlabelledCells = countNegative(cellLabel);
    stageDone("labels");
    copies.start(1, descending, out.ascendingManifold);
    copies.start(2, cellLabel, out.cellAscendingManifold);
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("labels (gpu)", timer.seconds());
    monitor.report(0.5);
    monitor.checkAbort();

    // Saddle-extremum arcs: path ends on the device, arcs merged on the host.
    timer.reset();
    out.boundaryMaxima = nBoundaryMaxima;
    download(maxima, out.maxima);
    saddleExtremumArcs(grid, critical, ascending, cellLabel, maxima, out);
    stageDone("arcs");
    report.timings.emplace_back("arcs (gpu)", timer.seconds());

    if (keepVertexOrder)
      download(order, out.rank);
    order = thrust::device_vector<SimplexId>();
    // Stage 3 on the gradient still on the device.
    if (saddleConnections && d == 3 && !critical[1].empty() && !critical[2].empty())
      computeSaddleConnectionsOnDevice(grid, raw(gradient), critical[1], critical[2],
                                       monitor.stage(0.6, 1), out.saddleConnections,
                                       report);
    // Timed from here: only the wait beyond stage 3 adds to the run's wall time.
    timer.reset();
    copies.finish();
    stageDone("download");
    report.timings.emplace_back("download (gpu, wait after stage 3)", timer.seconds());
    discrete_gradient::detail::summarize(out.gradient);
    report.backend = "gpu";
    out.gradient.report.backend = "gpu";
    monitor.report(1.0);
  });
}

} // namespace topogpu::gpu
