#include "core/discrete_gradient/DiscreteGradientGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/common/VertexOrderGpu.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/HostCopy.h"
#include "cuda/discrete_gradient/SimplicialGradientDevice.cuh"

#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <string>

namespace topogpu::gpu {

namespace sg = discrete_gradient::simplicial;

namespace {

// One thread per vertex: its lower star, the function the CPU grid path runs.
__global__ void gridLowerStarKernel(sg::GridSimplices grid, SimplexId n,
                                    const SimplexId* rank, sg::GradientBytes out) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    sg::processGridLowerStar(grid, v, rank, out);
}

__global__ void highestVertexKernel(sg::GridSimplices grid, int dimension,
                                    const SimplexId* ids, SimplexId count,
                                    const SimplexId* rank, SimplexId* vertices) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  SimplexId corner[4];
  sg::gridSimplexVertices(grid, dimension, ids[i], corner);
  SimplexId best = corner[0];
  for (int q = 1; q <= dimension; ++q)
    if (rank[corner[q]] > rank[best])
      best = corner[q];
  vertices[i] = best;
}

struct HasCode {
  const std::uint8_t* bytes;
  std::uint8_t code;
  __device__ bool operator()(SimplexId i) const { return bytes[i] == code; }
};

unsigned blocksFor(SimplexId n, int block) {
  return unsigned((n + block - 1) / block);
}

} // namespace

sg::GradientBytes DeviceSimplicialGradient::pointers() {
  sg::GradientBytes out{};
  for (int d = 0; d < 4; ++d)
    out.bytes[d] = bytes[std::size_t(d)].empty()
                       ? nullptr
                       : thrust::raw_pointer_cast(bytes[std::size_t(d)].data());
  return out;
}

void computeGridSimplicialGradient(const sg::GridSimplices& grid, const SimplexId* rank,
                                   DeviceSimplicialGradient& gradient) {
  for (int d = 0; d <= grid.dims.dimension; ++d)
    gradient.bytes[std::size_t(d)].assign(std::size_t(sg::simplexCount(grid, d)),
                                          sg::kUnassigned);
  const SimplexId n = sg::simplexCount(grid, 0);
  const int block = 128;
  gridLowerStarKernel<<<blocksFor(n, block), block>>>(grid, n, rank, gradient.pointers());
}

void selectSimplices(const thrust::device_vector<std::uint8_t>& bytes, std::uint8_t code,
                     thrust::device_vector<SimplexId>& ids) {
  const SimplexId n = SimplexId(bytes.size());
  ids.resize(std::size_t(thrust::count(bytes.begin(), bytes.end(), code)));
  // DeviceSelect counts items in int: blocks of at most 2^30 simplices.
  const SimplexId chunk = SimplexId(1) << 30;
  const HasCode select{thrust::raw_pointer_cast(bytes.data()), code};
  thrust::device_vector<int> selected(1);
  thrust::device_vector<unsigned char> scratch;
  SimplexId written = 0;
  for (SimplexId first = 0; first < n; first += chunk) {
    const int count = int(std::min(chunk, n - first));
    const thrust::counting_iterator<SimplexId> in(first);
    SimplexId* out = thrust::raw_pointer_cast(ids.data()) + written;
    std::size_t bytesNeeded = 0;
    cudaCheck(cub::DeviceSelect::If(nullptr, bytesNeeded, in, out,
                                    thrust::raw_pointer_cast(selected.data()), count,
                                    select),
              "critical simplices (scratch size)");
    if (scratch.size() < bytesNeeded)
      scratch.resize(bytesNeeded);
    cudaCheck(cub::DeviceSelect::If(thrust::raw_pointer_cast(scratch.data()), bytesNeeded,
                                    in, out, thrust::raw_pointer_cast(selected.data()),
                                    count, select),
              "critical simplices");
    written += SimplexId(selected[0]);
  }
}

void highestVertices(const sg::GridSimplices& grid, int dimension,
                     const thrust::device_vector<SimplexId>& ids, const SimplexId* rank,
                     thrust::device_vector<SimplexId>& vertices) {
  const SimplexId count = SimplexId(ids.size());
  vertices.resize(ids.size());
  if (count == 0)
    return;
  const int block = 256;
  highestVertexKernel<<<blocksFor(count, block), block>>>(
      grid, dimension, thrust::raw_pointer_cast(ids.data()), count, rank,
      thrust::raw_pointer_cast(vertices.data()));
}

namespace {

void download(const thrust::device_vector<SimplexId>& from, std::vector<SimplexId>& to) {
  to.resize(from.size());
  thrust::copy(from.begin(), from.end(), to.begin());
}

} // namespace

void gradientOnDevice(const sg::GridSimplices& grid, const ScalarArrayView& values,
                      const Monitor& monitor, thrust::device_vector<SimplexId>& rank,
                      DeviceSimplicialGradient& gradient, SimplicialGradientArrays& out,
                      RunReport& report) {
  const int dim = grid.dims.dimension;
  rank.resize(std::size_t(values.size));
  const SimplexId* rankData = thrust::raw_pointer_cast(rank.data());
  uploadAndComputeVertexOrder(values, thrust::raw_pointer_cast(rank.data()), monitor, 0.2,
                              report);
  monitor.report(0.4);
  monitor.checkAbort();

  Timer timer;
  computeGridSimplicialGradient(grid, rankData, gradient);
  stageDone("gradient");
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
  report.timings.emplace_back("gradient (gpu)", timer.seconds());
  monitor.report(0.8);
  monitor.checkAbort();

  timer.reset();
  for (int d = 0; d <= dim; ++d) {
    const auto& bytes = gradient.bytes[std::size_t(d)];
    // Every simplex lies in the lower star of its highest vertex.
    const SimplexId lost = thrust::count(bytes.begin(), bytes.end(), sg::kUnassigned);
    if (lost > 0)
      throw Error("internal error: the discrete gradient left " + std::to_string(lost) +
                  " simplices of dimension " + std::to_string(d) + " unclassified");
    thrust::device_vector<SimplexId> ids, vertices;
    selectSimplices(bytes, sg::kCritical, ids);
    highestVertices(grid, d, ids, rankData, vertices);
    download(ids, out.criticalCells[std::size_t(d)]);
    download(vertices, out.criticalVertices[std::size_t(d)]);
  }
  stageDone("critical cells");
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
  report.timings.emplace_back("critical cells (gpu)", timer.seconds());
  monitor.report(1.0);
  monitor.checkAbort();
}

void downloadGradient(DeviceSimplicialGradient& gradient, SimplicialGradientArrays& out) {
  for (int d = 0; d < 4; ++d) {
    auto& bytes = gradient.bytes[std::size_t(d)];
    out.gradient[std::size_t(d)].resize(bytes.size());
    downloadStaged(thrust::raw_pointer_cast(bytes.data()), bytes.size(),
                   out.gradient[std::size_t(d)].data(), nullptr);
    bytes.clear();
    bytes.shrink_to_fit();
  }
}

void computeSimplicialGradient(const sg::GridSimplices& grid,
                               const ScalarArrayView& values, const Monitor& monitor,
                               SimplicialGradientArrays& out,
                               std::vector<SimplexId>* order, RunReport& report) {
  translateCudaFailures("simplicial discrete gradient", [&] {
    thrust::device_vector<SimplexId> rank;
    DeviceSimplicialGradient gradient;
    gradientOnDevice(grid, values, monitor.stage(0, 0.7), rank, gradient, out, report);
    Timer timer;
    downloadGradient(gradient, out);
    if (order != nullptr) {
      order->resize(rank.size());
      downloadStaged(thrust::raw_pointer_cast(rank.data()),
                     rank.size() * sizeof(SimplexId), order->data(), nullptr);
    }
    stageDone("download");
    report.timings.emplace_back("download (gpu)", timer.seconds());
    monitor.report(1.0);
  });
}

} // namespace topogpu::gpu
