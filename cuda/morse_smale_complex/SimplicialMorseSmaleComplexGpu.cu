#include "core/morse_smale_complex/SimplicialMorseSmaleComplexGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/discrete_gradient/GridSimplicialForest.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/HostCopy.h"
#include "cuda/discrete_gradient/SimplicialGradientDevice.cuh"
#include "cuda/morse_smale_complex/PointerJumpingDevice.cuh"

#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/transform.h>

#include <algorithm>

namespace topogpu::gpu {

namespace sg = discrete_gradient::simplicial;

namespace {

constexpr int kBlock = 256;

unsigned blocksFor(SimplexId n) {
  return unsigned((n + kBlock - 1) / kBlock);
}

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

void download(const thrust::device_vector<SimplexId>& from, std::vector<SimplexId>& to) {
  to.resize(from.size());
  downloadStaged(thrust::raw_pointer_cast(from.data()), from.size() * sizeof(SimplexId),
                 to.data(), nullptr);
}

} // namespace

void computeSimplicialGridForests(const sg::GridSimplices& grid,
                                  const ScalarArrayView& values, const Monitor& monitor,
                                  SimplicialGradientArrays& out,
                                  std::vector<SimplexId>& order,
                                  SimplicialGridForests& forests, RunReport& report) {
  translateCudaFailures("simplicial morse-smale complex", [&] {
    thrust::device_vector<SimplexId> rank;
    DeviceSimplicialGradient gradient;
    gradientOnDevice(grid, values, monitor.stage(0, 0.5), rank, gradient, out, report);

    Timer timer;
    const int top = grid.dims.dimension;
    const SimplexId n = sg::simplexCount(grid, 0), cells = sg::simplexCount(grid, top);
    // Minima: each vertex's root, then its index among the (ascending) minima.
    thrust::device_vector<SimplexId> next(std::size_t(n), 0);
    descendingKernel<<<blocksFor(n), kBlock>>>(grid, constPointers(gradient), n,
                                               thrust::raw_pointer_cast(next.data()));
    cudaCheck(cudaGetLastError(), "descending successors");
    pointerJump(next, monitor);
    const auto& minima = out.criticalCells[0];
    const thrust::device_vector<SimplexId> deviceMinima(minima.begin(), minima.end());
    thrust::lower_bound(deviceMinima.begin(), deviceMinima.end(), next.begin(),
                        next.end(), next.begin());
    download(next, forests.minimumOf);
    monitor.report(0.65);
    monitor.checkAbort();

    // Maxima: each top cell's root, or its exit through the boundary.
    next.resize(std::size_t(cells));
    ascendingKernel<<<blocksFor(cells), kBlock>>>(grid, constPointers(gradient), cells,
                                                  thrust::raw_pointer_cast(next.data()));
    cudaCheck(cudaGetLastError(), "ascending successors");
    pointerJump(next, monitor);
    download(next, forests.topRoot);
    stageDone("forests");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("forests (gpu)", timer.seconds());
    monitor.report(0.8);
    monitor.checkAbort();

    timer.reset();
    downloadGradient(gradient, out);
    order.resize(rank.size());
    downloadStaged(thrust::raw_pointer_cast(rank.data()), rank.size() * sizeof(SimplexId),
                   order.data(), nullptr);
    stageDone("download");
    report.timings.emplace_back("download (gpu)", timer.seconds());
    monitor.report(1.0);
  });
}

} // namespace topogpu::gpu
