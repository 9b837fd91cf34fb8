#include "core/morse_smale_complex/SimplicialMorseSmaleComplexGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/discrete_gradient/GridEdgePairStencils.h"
#include "core/discrete_gradient/GridSimplicialForest.h"
#include "core/morse_smale_complex/TtkVertexStar.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/DeviceLaunch.cuh"
#include "cuda/common/HostCopy.h"
#include "cuda/discrete_gradient/SimplicialGradientDevice.cuh"
#include "cuda/morse_smale_complex/ElderRoundsDevice.cuh"
#include "cuda/morse_smale_complex/PointerJumpingDevice.cuh"
#include "cuda/morse_smale_complex/SaddleConnectionsDevice.cuh"

#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <array>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace topogpu::gpu {

namespace sg = discrete_gradient::simplicial;
namespace elder = morse_smale_complex::elder;

namespace {

__global__ void descendingKernel(sg::GridSimplices grid, sg::ConstGradientBytes gradient,
                                 SimplexId n, SimplexId* next) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    next[v] = sg::gridDescendingSuccessor(grid, gradient, v);
}

__global__ void ascendingKernel(sg::GridSimplices grid, sg::ConstGradientBytes gradient,
                                SimplexId n, SimplexId* next) {
  const SimplexId c = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < n)
    next[c] = sg::gridAscendingSuccessor(grid, gradient, c);
}

sg::ConstGradientBytes constPointers(DeviceSimplicialGradient& gradient) {
  const sg::GradientBytes bytes = gradient.pointers();
  return {{bytes.bytes[0], bytes.bytes[1], bytes.bytes[2], bytes.bytes[3]}};
}

template <typename T>
void download(const thrust::device_vector<T>& from, std::vector<T>& to) {
  to.resize(from.size());
  downloadStaged(thrust::raw_pointer_cast(from.data()), from.size() * sizeof(T),
                 to.data(), nullptr);
}

// The same through staging buffers kept for several downloads.
template <typename T>
void download(StagedDownloads& staging, const thrust::device_vector<T>& from,
              std::vector<T>& to) {
  to.resize(from.size());
  staging.download(thrust::raw_pointer_cast(from.data()), from.size() * sizeof(T),
                   to.data(), nullptr);
}

// Both forests on the device: minimumOf (per vertex, the index of its minimum among
// the ascending minima) and topRoot (per top cell, its root or -1 - exit facet).
void forestsOnDevice(const sg::GridSimplices& grid, DeviceSimplicialGradient& gradient,
                     const std::vector<SimplexId>& minima, const Monitor& monitor,
                     thrust::device_vector<SimplexId>& minimumOf,
                     thrust::device_vector<SimplexId>& topRoot) {
  const int top = grid.dims.dimension;
  const SimplexId n = sg::simplexCount(grid, 0), cells = sg::simplexCount(grid, top);
  minimumOf.resize(std::size_t(n));
  descendingKernel<<<blocksFor(n), kBlock>>>(grid, constPointers(gradient), n,
                                             thrust::raw_pointer_cast(minimumOf.data()));
  cudaCheck(cudaGetLastError(), "descending successors");
  pointerJump(minimumOf, monitor);
  const thrust::device_vector<SimplexId> deviceMinima(minima.begin(), minima.end());
  thrust::lower_bound(deviceMinima.begin(), deviceMinima.end(), minimumOf.begin(),
                      minimumOf.end(), minimumOf.begin());
  monitor.checkAbort();
  topRoot.resize(std::size_t(cells));
  ascendingKernel<<<blocksFor(cells), kBlock>>>(grid, constPointers(gradient), cells,
                                                thrust::raw_pointer_cast(topRoot.data()));
  cudaCheck(cudaGetLastError(), "ascending successors");
  pointerJump(topRoot, monitor);
  stageDone("forests");
}

// The gradient on the device (gradientOnDevice, progress 0..split), then
// body(rank, gradient), CUDA failures translated to GpuError.
using DeviceRank = thrust::device_vector<SimplexId>;

template <typename Body>
void withDeviceGradient(const sg::GridSimplices& grid, const ScalarArrayView& values,
                        const Monitor& monitor, double split,
                        SimplicialGradientArrays& out, RunReport& report, Body&& body) {
  translateCudaFailures("simplicial morse-smale complex", [&] {
    DeviceRank rank;
    DeviceSimplicialGradient gradient;
    gradientOnDevice(grid, values, monitor.stage(0, split), rank, gradient, out, report);
    body(rank, gradient);
  });
}

} // namespace

void computeSimplicialGridForests(const sg::GridSimplices& grid,
                                  const ScalarArrayView& values, const Monitor& monitor,
                                  SimplicialGradientArrays& out,
                                  std::vector<SimplexId>& order,
                                  SimplicialGridForests& forests, RunReport& report) {
  withDeviceGradient(grid, values, monitor, 0.5, out, report,
                     [&](DeviceRank& rank, DeviceSimplicialGradient& gradient) {
                       Timer timer;
                       thrust::device_vector<SimplexId> minimumOf, topRoot;
                       forestsOnDevice(grid, gradient, out.criticalCells[0],
                                       monitor.stage(0.5, 0.8), minimumOf, topRoot);
                       download(minimumOf, forests.minimumOf);
                       download(topRoot, forests.topRoot);
                       report.peakDeviceBytes =
                           std::max(report.peakDeviceBytes, deviceMemoryInUse());
                       report.timings.emplace_back("forests (gpu)", timer.seconds());
                       monitor.report(0.8);
                       monitor.checkAbort();

                       timer.reset();
                       downloadGradient(gradient, out);
                       download(rank, order);
                       stageDone("download");
                       report.timings.emplace_back("download (gpu)", timer.seconds());
                       monitor.report(1.0);
                     });
}

namespace {

static_assert(sizeof(SimplexId) == sizeof(unsigned long long));

// The index of x in the ascending ids[0..n) (x is there).
__device__ SimplexId indexOf(const SimplexId* ids, SimplexId n, SimplexId x) {
  SimplexId lo = 0;
  while (n > 0) {
    const SimplexId half = n / 2;
    if (ids[lo + half] < x) {
      lo += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return lo;
}

struct BoundaryView {
  const SimplexId* facets; // boundary facets, ascending
  const SimplexId* roots;  // per boundary facet, its root's index
  SimplexId count;
  __device__ SimplexId rootOfExit(SimplexId exit) const {
    return roots[indexOf(facets, count, -1 - exit)];
  }
};

__global__ void reachedKernel(const SimplexId* topRoot, SimplexId cells,
                              BoundaryView boundary, char* reached) {
  const SimplexId c = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < cells && topRoot[c] < 0)
    reached[boundary.rootOfExit(topRoot[c])] = 1;
}

__global__ void cellLabelKernel(const SimplexId* topRoot, SimplexId cells,
                                const SimplexId* maxima, SimplexId nMaxima,
                                BoundaryView boundary, const std::int32_t* rootLabel,
                                std::int32_t* label) {
  const SimplexId c = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cells)
    return;
  const SimplexId r = topRoot[c];
  label[c] = r >= 0 ? std::int32_t(indexOf(maxima, nMaxima, r))
                    : rootLabel[boundary.rootOfExit(r)];
}

// The label of the highest top cell of v's star (its vertices' ranks, decreasing,
// lexicographically largest): the cells of the cubes around v whose chain passes v.
__global__ void vertexLabelKernel(sg::GridSimplices g, const SimplexId* rank,
                                  const std::int32_t* cellLabel, std::int32_t* label) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= sg::simplexCount(g, 0))
    return;
  const int top = g.dims.dimension, span = grid::cellSpanMask(top);
  SimplexId c[3];
  grid::vertexCoords(g.dims, v, c);
  SimplexId best = -1, bestKey[4] = {-1, -1, -1, -1};
  for (int m = 0; m <= span; ++m) {
    SimplexId base[3];
    for (int a = 0; a < 3; ++a)
      base[a] = c[a] - ((m >> a) & 1);
    if (!grid::anchorValid(g.dims, base, span))
      continue;
    const SimplexId first = grid::vertexAt(g.dims, base);
    for (int t = 0; t < grid::cellTypeCount(top); ++t) {
      int chain[4] = {0, 0, 0, 0};
      bool contains = false;
      for (int step = 0; step <= top; ++step) {
        chain[step] = grid::cellChainMask(top, t, step);
        contains = contains || chain[step] == m;
      }
      if (!contains)
        continue;
      SimplexId key[4] = {-1, -1, -1, -1};
      for (int j = 0; j <= top; ++j) {
        key[j] = rank[first + grid::maskOffset(g.dims, chain[j])];
        for (int l = j; l > 0 && key[l - 1] < key[l]; --l) {
          const SimplexId x = key[l];
          key[l] = key[l - 1];
          key[l - 1] = x;
        }
      }
      int higher = best < 0 ? 1 : 0;
      for (int j = 0; j <= top && higher == 0; ++j)
        higher = key[j] > bestKey[j] ? 1 : key[j] < bestKey[j] ? -1 : 0;
      if (higher > 0) {
        best = sg::gridSimplexId(g, top, base, chain + 1);
        for (int j = 0; j < 4; ++j)
          bestKey[j] = key[j];
      }
    }
  }
  label[v] = best >= 0 ? cellLabel[best] : -1;
}

// TTK's rule: the cells whose path leaves through the boundary lose their label, then
// each vertex takes its first star cell's (simplicial::detail::ttkVertexLabels).
__global__ void unlabelExitsKernel(const SimplexId* topRoot, SimplexId cells,
                                   std::int32_t* label) {
  const SimplexId c = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < cells && topRoot[c] < 0)
    label[c] = -1;
}

__global__ void ttkVertexLabelKernel(sg::GridSimplices g, const std::int32_t* cellLabel,
                                     std::int32_t* label) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= sg::simplexCount(g, 0))
    return;
  const SimplexId c = morse_smale_complex::simplicial::ttkFirstStarCell(g, v);
  label[v] = c >= 0 ? cellLabel[c] : -1;
}

__global__ void saddle1Kernel(sg::GridSimplices g, const SimplexId* saddles,
                              SimplexId count, const SimplexId* minimumOf,
                              SimplexId* ends) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  SimplexId vertices[2];
  sg::gridSimplexVertices(g, 1, saddles[i], vertices);
  ends[2 * i] = minimumOf[vertices[0]];
  ends[2 * i + 1] = minimumOf[vertices[1]];
}

// The labels of the arcs: the top cells' own.
struct CellLabels {
  const std::int32_t* label;
  __device__ SimplexId operator()(SimplexId c) const { return SimplexId(label[c]); }
};

// The ends of the pairs: the index of the maximum a top cell's ascending path reaches
// (its root), -1 for an exit.
struct CellMaxima {
  const SimplexId* topRoot;
  const SimplexId* maxima;
  SimplexId count;
  __device__ SimplexId operator()(SimplexId c) const {
    return topRoot[c] >= 0 ? indexOf(maxima, count, topRoot[c]) : SimplexId(-1);
  }
};

// Each top cell writes its label (labelOf) into the slots of its critical facets: the
// first writer takes slot 0 (ends start at -1), the second slot 1. A label -1 written
// first leaves slot 0 to the second writer, slot 1 keeping -1: the pair is the same.
template <typename LabelOf>
__global__ void facetSaddleKernel(sg::GridSimplices g, const std::uint8_t* facetBytes,
                                  LabelOf labelOf, const SimplexId* saddles,
                                  SimplexId count, SimplexId* ends) {
  const int top = g.dims.dimension;
  const SimplexId c = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= sg::simplexCount(g, top))
    return;
  SimplexId base[3];
  int chain[4];
  sg::gridSimplexChain(g, top, c, base, chain);
  for (int s = 0; s <= top; ++s) { // the facet without vertex s
    SimplexId facetBase[3];
    int masks[3], k = 0;
    for (int a = 0; a < 3; ++a)
      facetBase[a] = base[a] + (s == 0 ? (chain[1] >> a) & 1 : 0);
    for (int i = s == 0 ? 2 : 1; i <= top; ++i)
      if (i != s)
        masks[k++] = s == 0 ? chain[i] ^ chain[1] : chain[i];
    const SimplexId f = sg::gridSimplexId(g, top - 1, facetBase, masks);
    if (facetBytes[f] != sg::kCritical)
      continue;
    auto* slot =
        reinterpret_cast<unsigned long long*>(ends + 2 * indexOf(saddles, count, f));
    const auto label = static_cast<unsigned long long>(labelOf(c));
    if (atomicCAS(slot, ~0ull, label) != ~0ull)
      slot[1] = label;
  }
}

template <typename T> thrust::device_vector<T> upload(const std::vector<T>& from) {
  return thrust::device_vector<T>(from.begin(), from.end());
}

// The maxima's labels of the top cells: roots on the device, exits through the host's
// boundary forest (the hooks' time is added to hostSeconds: they report it themselves).
thrust::device_vector<std::int32_t>
cellLabels(const thrust::device_vector<SimplexId>& topRoot,
           const std::vector<SimplexId>& order, const std::vector<SimplexId>& maxima,
           const SimplicialGridBoundaryHooks& hooks, double& hostSeconds) {
  const SimplexId cells = SimplexId(topRoot.size());
  std::vector<SimplexId> facets, roots;
  Timer host;
  hooks.forest(order, facets, roots);
  hostSeconds += host.seconds();
  const thrust::device_vector<SimplexId> deviceFacets = upload(facets),
                                         deviceRoots = upload(roots);
  const BoundaryView boundary{raw(deviceFacets), raw(deviceRoots),
                              SimplexId(facets.size())};
  thrust::device_vector<char> deviceReached(facets.size(), 0);
  reachedKernel<<<blocksFor(cells), kBlock>>>(raw(topRoot), cells, boundary,
                                              raw(deviceReached));
  cudaCheck(cudaGetLastError(), "boundary roots reached");
  std::vector<char> reached;
  download(deviceReached, reached);
  std::vector<std::int32_t> rootLabel(facets.size(), -1);
  host.reset();
  hooks.label(reached, rootLabel);
  hostSeconds += host.seconds();
  const thrust::device_vector<std::int32_t> deviceRootLabel = upload(rootLabel);
  const thrust::device_vector<SimplexId> deviceMaxima = upload(maxima);
  thrust::device_vector<std::int32_t> label(static_cast<std::size_t>(cells));
  cellLabelKernel<<<blocksFor(cells), kBlock>>>(raw(topRoot), cells, raw(deviceMaxima),
                                                SimplexId(maxima.size()), boundary,
                                                raw(deviceRootLabel), raw(label));
  cudaCheck(cudaGetLastError(), "top cell labels");
  return label;
}

// The arcs' ends: per 1-saddle its vertices' minima, per (d-1)-saddle its cells' labels.
void arcEnds(const sg::GridSimplices& grid, DeviceSimplicialGradient& gradient,
             const SimplicialGradientArrays& out,
             const thrust::device_vector<SimplexId>& minimumOf,
             const thrust::device_vector<std::int32_t>& cellLabel,
             SimplicialGridLabels& labels) {
  const int top = grid.dims.dimension;
  const auto& saddles1 = out.criticalCells[1];
  const thrust::device_vector<SimplexId> deviceSaddles1 = upload(saddles1);
  thrust::device_vector<SimplexId> ends(2 * saddles1.size(), -1);
  const SimplexId n1 = SimplexId(saddles1.size());
  if (n1 > 0) {
    saddle1Kernel<<<blocksFor(n1), kBlock>>>(grid, raw(deviceSaddles1), n1,
                                             raw(minimumOf), raw(ends));
    cudaCheck(cudaGetLastError(), "1-saddle arcs");
  }
  download(ends, labels.saddle1Ends);

  const auto& saddles = out.criticalCells[top - 1];
  const thrust::device_vector<SimplexId> deviceSaddles = upload(saddles);
  ends.assign(2 * saddles.size(), -1);
  const SimplexId cells = SimplexId(cellLabel.size());
  if (!saddles.empty()) {
    facetSaddleKernel<<<blocksFor(cells), kBlock>>>(
        grid, raw(gradient.bytes[top - 1]), CellLabels{raw(cellLabel)},
        raw(deviceSaddles), SimplexId(saddles.size()), raw(ends));
    cudaCheck(cudaGetLastError(), "saddle-maximum arcs");
  }
  download(ends, labels.facetSaddleEnds);
}

} // namespace

void computeSimplicialGridLabels(const sg::GridSimplices& grid,
                                 const ScalarArrayView& values, const Monitor& monitor,
                                 const SimplicialGridBoundaryHooks& hooks, bool ttkRule,
                                 SimplicialGradientArrays& out,
                                 std::vector<SimplexId>& order,
                                 SimplicialGridLabels& labels, RunReport& report,
                                 SimplicialGridConnections* connections) {
  withDeviceGradient(
      grid, values, monitor, 0.4, out, report,
      [&](DeviceRank& rank, DeviceSimplicialGradient& gradient) {
        Timer timer;
        download(rank, order);
        thrust::device_vector<SimplexId> minimumOf, topRoot;
        forestsOnDevice(grid, gradient, out.criticalCells[0], monitor.stage(0.4, 0.6),
                        minimumOf, topRoot);
        report.timings.emplace_back("forests (gpu)", timer.seconds());

        timer.reset();
        double hostSeconds = 0;
        const int top = grid.dims.dimension;
        thrust::device_vector<std::int32_t> cellLabel =
            cellLabels(topRoot, order, out.criticalCells[top], hooks, hostSeconds);
        // The arcs read the labels through the boundary, whatever the rule.
        arcEnds(grid, gradient, out, minimumOf, cellLabel, labels);
        const SimplexId cells = SimplexId(cellLabel.size()),
                        vertices = SimplexId(rank.size());
        if (ttkRule) {
          unlabelExitsKernel<<<blocksFor(cells), kBlock>>>(raw(topRoot), cells,
                                                           raw(cellLabel));
          cudaCheck(cudaGetLastError(), "cell labels (TTK's rule)");
        }
        topRoot = thrust::device_vector<SimplexId>();
        thrust::device_vector<std::int32_t> vertexLabel(rank.size());
        if (ttkRule)
          ttkVertexLabelKernel<<<blocksFor(vertices), kBlock>>>(grid, raw(cellLabel),
                                                                raw(vertexLabel));
        else
          vertexLabelKernel<<<blocksFor(vertices), kBlock>>>(
              grid, raw(rank), raw(cellLabel), raw(vertexLabel));
        cudaCheck(cudaGetLastError(), "vertex labels");
        stageDone("labels");
        report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
        report.timings.emplace_back("labels and arcs (gpu)",
                                    timer.seconds() - hostSeconds);
        monitor.report(0.8);
        monitor.checkAbort();

        if (connections != nullptr) // before downloadGradient frees the bytes
          simplicialSaddleConnectionsOnDevice(
              grid, raw(gradient.bytes[1]), raw(gradient.bytes[2]), out.criticalCells[1],
              out.criticalCells[2], monitor.stage(0.8, 0.9), *connections, report);

        timer.reset();
        download(minimumOf, labels.minimumOf);
        download(cellLabel, labels.cellLabel);
        download(vertexLabel, labels.vertexLabel);
        downloadGradient(gradient, out);
        stageDone("download");
        report.timings.emplace_back("download (gpu)", timer.seconds());
        monitor.report(1.0);
      });
}

namespace {

// Per 1-saddle its vertices' minima, per (d-1)-saddle its cofaces' maxima or -1.
void saddleEndsOnDevice(const sg::GridSimplices& grid, DeviceSimplicialGradient& gradient,
                        const SimplicialGradientArrays& out,
                        const thrust::device_vector<SimplexId>& minimumOf,
                        const thrust::device_vector<SimplexId>& topRoot,
                        thrust::device_vector<SimplexId>& saddle1Ends,
                        thrust::device_vector<SimplexId>& saddleMaximumEnds) {
  const int top = grid.dims.dimension;
  const auto& saddles1 = out.criticalCells[1];
  const SimplexId n1 = SimplexId(saddles1.size());
  saddle1Ends.assign(2 * saddles1.size(), -1);
  if (n1 > 0) {
    const thrust::device_vector<SimplexId> deviceSaddles1 = upload(saddles1);
    saddle1Kernel<<<blocksFor(n1), kBlock>>>(grid, raw(deviceSaddles1), n1,
                                             raw(minimumOf), raw(saddle1Ends));
    cudaCheck(cudaGetLastError(), "1-saddle ends");
  }
  const auto& saddles = out.criticalCells[top - 1];
  saddleMaximumEnds.assign(2 * saddles.size(), -1);
  if (saddles.empty())
    return;
  const thrust::device_vector<SimplexId> deviceSaddles = upload(saddles),
                                         deviceMaxima = upload(out.criticalCells[top]);
  const SimplexId cells = SimplexId(topRoot.size());
  facetSaddleKernel<<<blocksFor(cells), kBlock>>>(
      grid, raw(gradient.bytes[top - 1]),
      CellMaxima{raw(topRoot), raw(deviceMaxima), SimplexId(deviceMaxima.size())},
      raw(deviceSaddles), SimplexId(saddles.size()), raw(saddleMaximumEnds));
  cudaCheck(cudaGetLastError(), "saddle-maximum ends");
}

// A critical cell's filtration key (its vertices' ranks, decreasing, -1 past its
// dimension: simplicial::detail::keyOf) and its index in the ascending critical cells.
struct FiltrationKey {
  SimplexId rank[4];
  SimplexId index;
};

struct FiltrationLess {
  __device__ bool operator()(const FiltrationKey& a, const FiltrationKey& b) const {
    for (int j = 0; j < 4; ++j)
      if (a.rank[j] != b.rank[j])
        return a.rank[j] < b.rank[j];
    return a.index < b.index;
  }
};

// Critical cell i's key (ids: the ascending critical cells of one dimension).
struct FiltrationKeyOf {
  sg::GridSimplices grid;
  int dimension;
  const SimplexId* ids;
  const SimplexId* rank;
  __device__ FiltrationKey operator()(SimplexId i) const {
    SimplexId vertices[4];
    sg::gridSimplexVertices(grid, dimension, ids[i], vertices);
    FiltrationKey key{{-1, -1, -1, -1}, i};
    for (int j = 0; j <= dimension; ++j) {
      key.rank[j] = rank[vertices[j]];
      for (int l = j; l > 0 && key.rank[l - 1] < key.rank[l]; --l) {
        const SimplexId x = key.rank[l];
        key.rank[l] = key.rank[l - 1];
        key.rank[l - 1] = x;
      }
    }
    return key;
  }
};

struct KeyIndex {
  __device__ SimplexId operator()(const FiltrationKey& key) const { return key.index; }
};

// Per dimension, the critical cells' indices in filtration order.
void filtrationOrderOnDevice(const sg::GridSimplices& grid,
                             const SimplicialGradientArrays& out,
                             const thrust::device_vector<SimplexId>& rank,
                             std::array<thrust::device_vector<SimplexId>, 4>& order) {
  for (int d = 0; d <= grid.dims.dimension; ++d) {
    const auto& cells = out.criticalCells[std::size_t(d)];
    const SimplexId count = SimplexId(cells.size());
    order[std::size_t(d)].resize(cells.size());
    if (count == 0)
      continue;
    const thrust::device_vector<SimplexId> ids = upload(cells);
    thrust::device_vector<FiltrationKey> keys(cells.size());
    thrust::transform(thrust::counting_iterator<SimplexId>(0),
                      thrust::counting_iterator<SimplexId>(count), keys.begin(),
                      FiltrationKeyOf{grid, d, raw(ids), raw(rank)});
    thrust::sort(keys.begin(), keys.end(), FiltrationLess{});
    thrust::transform(keys.begin(), keys.end(), order[std::size_t(d)].begin(),
                      KeyIndex{});
  }
}

// The inverse of a filtration order: each critical cell's position.
__global__ void positionKernel(const SimplexId* order, SimplexId n, SimplexId* position) {
  const SimplexId p = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < n)
    position[order[p]] = p;
}

// One sweep's graph (ElderRounds.h). The minima's: edge k is the 1-saddle at filtration
// position k, its nodes the positions of its two minima. The maxima's (fromTop) is the
// dual walked from the top (elder::dualEdge, elder::dualNode; an exit, -1, is
// "outside"). An end that is not an extremum is counted in bad.
__global__ void sweepGraphKernel(const SimplexId* saddleOrder, SimplexId n, bool fromTop,
                                 const SimplexId* saddleEnds,
                                 const SimplexId* extremumPosition, SimplexId extrema,
                                 SimplexId* ends, unsigned long long* bad) {
  const SimplexId k = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n)
    return;
  const SimplexId s = saddleOrder[fromTop ? elder::dualEdge(k, n) : k];
  for (int i = 0; i < 2; ++i) {
    const SimplexId e = saddleEnds[2 * s + i];
    const bool exit = fromTop && e == -1, valid = exit || (e >= 0 && e < extrema);
    ends[2 * k + i] = !valid ? 0
                      : fromTop
                          ? elder::dualNode(exit ? extrema : extremumPosition[e], extrema)
                          : extremumPosition[e];
    if (!valid)
      atomicAdd(bad, 1ull);
  }
}

thrust::device_vector<SimplexId>
positionsOf(const thrust::device_vector<SimplexId>& order) {
  thrust::device_vector<SimplexId> position(order.size());
  const auto n = SimplexId(order.size());
  if (n > 0)
    positionKernel<<<blocksFor(n), kBlock>>>(raw(order), n, raw(position));
  return position;
}

// The extremum pairs where the saddles' path ends were made: the two sweeps' graphs in
// filtration order, then the elder rule's rounds (ElderRounds.h); the kills come down
// instead of the ends.
void extremumKillsOnDevice(
    int top, const thrust::device_vector<SimplexId>& ends1,
    const thrust::device_vector<SimplexId>& endsTop,
    const std::array<thrust::device_vector<SimplexId>, 4>& filtration,
    SimplicialGridSaddleEnds& out) {
  const auto& order1 = filtration[1];
  const auto& orderSaddles = filtration[std::size_t(top - 1)];
  const auto n0 = SimplexId(filtration[0].size()), n1 = SimplexId(order1.size()),
             nSaddles = SimplexId(orderSaddles.size()),
             nMax = SimplexId(filtration[std::size_t(top)].size());
  thrust::device_vector<unsigned long long> bad(1, 0);
  thrust::device_vector<SimplexId> minimumEnds(2 * std::size_t(n1)),
      maximumEnds(2 * std::size_t(nSaddles));
  {
    const thrust::device_vector<SimplexId> position = positionsOf(filtration[0]);
    if (n1 > 0)
      sweepGraphKernel<<<blocksFor(n1), kBlock>>>(raw(order1), n1, false, raw(ends1),
                                                  raw(position), n0, raw(minimumEnds),
                                                  raw(bad));
  }
  {
    const thrust::device_vector<SimplexId> position =
        positionsOf(filtration[std::size_t(top)]);
    if (nSaddles > 0)
      sweepGraphKernel<<<blocksFor(nSaddles), kBlock>>>(raw(orderSaddles), nSaddles, true,
                                                        raw(endsTop), raw(position), nMax,
                                                        raw(maximumEnds), raw(bad));
  }
  cudaCheck(cudaGetLastError(), "elder rule");
  if (bad[0] != 0)
    throw Error("persistence pairs: " + std::to_string(bad[0]) +
                " saddle path ends are not extrema");
  const morse_smale_complex::ElderSchedule schedule{};
  elderRoundsOnDevice(minimumEnds, n0, thrust::device_vector<char>(), schedule,
                      out.minimumKills, out.elder[0]);
  // 2D: the dual skips the 1-saddles the minima's sweep paired.
  std::vector<char> skip;
  if (top == 2) {
    skip.resize(std::size_t(nSaddles));
    for (SimplexId k = 0; k < nSaddles; ++k)
      skip[std::size_t(k)] =
          out.minimumKills[std::size_t(elder::dualEdge(k, nSaddles))] >= 0;
  }
  elderRoundsOnDevice(maximumEnds, nMax + 1,
                      thrust::device_vector<char>(skip.begin(), skip.end()), schedule,
                      out.maximumKills, out.elder[1]);
}

} // namespace

namespace {

__global__ void edgeStencilKernel(std::uint8_t* edgeBytes, SimplexId edges) {
  const SimplexId e = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < edges)
    edgeBytes[e] = sg::edgeStencilOf(edgeBytes[e]);
}

// The triangles of one type (count of them, from its first byte), anchors in a box of
// extent e0 x e1 x ...: each paired with a face writes its stencil index there.
__global__ void pairedFaceKernel(sg::GridSimplices grid, sg::TriangleFaceStencils faces,
                                 const std::uint8_t* triangleBytes, SimplexId count,
                                 SimplexId e0, SimplexId e1, std::uint8_t* stencils) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  const SimplexId row = i / e0;
  const SimplexId q[3] = {i - row * e0, row % e1, row / e1};
  std::uint8_t k = 0;
  const SimplexId e = sg::pairedFaceStencil(grid, faces, q, triangleBytes[i], k);
  if (e >= 0)
    stencils[e] = k;
}

// The edges' bytes become their pair stencils (GridEdgePairStencils.h), in place: the
// triangles' kernel reads only the triangles' bytes, and an edge is paired with at most
// one triangle.
void edgePairStencilsOnDevice(const sg::GridSimplices& g,
                              DeviceSimplicialGradient& gradient) {
  std::uint8_t* stencils = thrust::raw_pointer_cast(gradient.bytes[1].data());
  const SimplexId edges = SimplexId(gradient.bytes[1].size());
  edgeStencilKernel<<<blocksFor(edges), kBlock>>>(stencils, edges);
  cudaCheck(cudaGetLastError(), "edge pair stencils");
  const int dimension = g.dims.dimension;
  for (int type = 0; type < grid::triangleTypeCount(dimension); ++type) {
    const int span = grid::triangleType(dimension, type).s2;
    const SimplexId first = g.triangleOffset[type],
                    count = g.triangleOffset[type + 1] - first;
    if (count == 0)
      continue;
    pairedFaceKernel<<<blocksFor(count), kBlock>>>(
        g, sg::triangleFaceStencils(dimension, type),
        thrust::raw_pointer_cast(gradient.bytes[2].data()) + first, count,
        g.dims.n[0] - (span & 1), g.dims.n[1] - ((span >> 1) & 1), stencils);
    cudaCheck(cudaGetLastError(), "edge pair stencils");
  }
}

} // namespace

void computeSimplicialGridSaddleEnds(
    const sg::GridSimplices& grid, const ScalarArrayView& values, const Monitor& monitor,
    SimplicialGradientArrays& out, std::vector<SimplexId>& order,
    SimplicialGridSaddleEnds& ends, RunReport& report,
    SimplicialGridConnections* connections, bool gradientBytes) {
  withDeviceGradient(
      grid, values, monitor, 0.5, out, report,
      [&](DeviceRank& rank, DeviceSimplicialGradient& gradient) {
        Timer timer;
        // The host's large arrays are sized (zeroed, their pages faulted in: a core's
        // work for a while) by another thread while the device runs the forests. The
        // pairs read the gradient only in the saddle boundary expansion (3D): which
        // triangle an edge is paired with, one byte per edge (GridEdgePairStencils.h).
        const int top = grid.dims.dimension;
        const bool stencils = top == 3 && !gradientBytes;
        auto sized = std::async(std::launch::async, [&] {
          order.resize(rank.size());
          for (auto& bytes : out.gradient)
            bytes.clear();
          out.edgePairStencils.resize(stencils ? gradient.bytes[1].size() : 0);
        });
        thrust::device_vector<SimplexId> minimumOf, topRoot;
        forestsOnDevice(grid, gradient, out.criticalCells[0], monitor.stage(0.5, 0.7),
                        minimumOf, topRoot);
        thrust::device_vector<SimplexId> ends1, endsTop;
        saddleEndsOnDevice(grid, gradient, out, minimumOf, topRoot, ends1, endsTop);
        std::array<thrust::device_vector<SimplexId>, 4> filtration;
        filtrationOrderOnDevice(grid, out, rank, filtration);
        stageDone("saddle ends");
        report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
        report.timings.emplace_back("forests, saddle ends, filtration (gpu)",
                                    timer.seconds());
        minimumOf = thrust::device_vector<SimplexId>();
        topRoot = thrust::device_vector<SimplexId>();
        timer.reset();
        extremumKillsOnDevice(top, ends1, endsTop, filtration, ends);
        ends1 = thrust::device_vector<SimplexId>();
        endsTop = thrust::device_vector<SimplexId>();
        report.timings.emplace_back("extremum pairs (gpu)", timer.seconds());
        monitor.report(0.8);
        monitor.checkAbort();

        if (connections != nullptr && top == 3)
          simplicialSaddleConnectionsOnDevice(
              grid, raw(gradient.bytes[1]), raw(gradient.bytes[2]), out.criticalCells[1],
              out.criticalCells[2], monitor.stage(0.8, 0.9), *connections, report);

        if (stencils)
          edgePairStencilsOnDevice(grid, gradient);
        timer.reset();
        sized.get();
        auto staging = std::make_unique<StagedDownloads>();
        download(*staging, rank, order);
        for (std::size_t d = 0; d < filtration.size(); ++d)
          download(*staging, filtration[d], ends.filtrationOrder[d]);
        if (stencils)
          download(*staging, gradient.bytes[1], out.edgePairStencils);
        if (gradientBytes)
          downloadGradient(gradient, out);
        stageDone("download");
        report.timings.emplace_back("download (gpu)", timer.seconds());
        // Freeing device and page-locked memory takes milliseconds per array: timed too.
        timer.reset();
        staging.reset();
        rank = thrust::device_vector<SimplexId>();
        filtration = {};
        for (auto& bytes : gradient.bytes)
          bytes = thrust::device_vector<std::uint8_t>();
        report.timings.emplace_back("release (gpu)", timer.seconds());
        monitor.report(1.0);
      });
}

} // namespace topogpu::gpu
