#include "core/discrete_gradient/DiscreteGradientGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/common/VertexOrderGpu.h"
#include "core/discrete_gradient/LowerStar.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/discrete_gradient/DiscreteGradientDevice.cuh"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <string>

namespace topogpu::gpu {

namespace {

// One thread per vertex: its lower star, the function the CPU path runs.
__global__ void lowerStarKernel(cubical::Grid grid, SimplexId n, const SimplexId* order,
                                std::uint8_t* gradient) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    cubical::processLowerStar(grid, v, order, gradient);
}

struct IsCritical {
  const std::uint8_t* gradient;
  __device__ bool operator()(SimplexId cell) const {
    return gradient[cell] == cubical::kCritical;
  }
};

struct HasDimension {
  cubical::Grid grid;
  int dimension;
  __device__ bool operator()(SimplexId cell) const {
    return cubical::cellDimension(grid, cell) == dimension;
  }
};

} // namespace

void launchLowerStars(const cubical::Grid& grid, SimplexId n, const SimplexId* order,
                      std::uint8_t* gradient) {
  const int block = 128;
  const unsigned blocks = unsigned((n + block - 1) / block);
  lowerStarKernel<<<blocks, block>>>(grid, n, order, gradient);
}

void compactCriticalCells(const cubical::Grid& grid, const std::uint8_t* gradient,
                          std::array<thrust::device_vector<SimplexId>, 4>& lists) {
  // All critical cells in one pass over the cells, then split by dimension (few).
  const SimplexId cells = cubical::cellCount(grid);
  const auto first = thrust::counting_iterator<SimplexId>(0);
  const auto last = thrust::counting_iterator<SimplexId>(cells);
  thrust::device_vector<SimplexId> all(
      std::size_t(thrust::count_if(thrust::device, first, last, IsCritical{gradient})));
  thrust::copy_if(thrust::device, first, last, all.begin(), IsCritical{gradient});
  for (int k = 0; k < 4; ++k) {
    const HasDimension ofDimension{grid, k};
    lists[std::size_t(k)].resize(std::size_t(
        thrust::count_if(thrust::device, all.begin(), all.end(), ofDimension)));
    thrust::copy_if(thrust::device, all.begin(), all.end(), lists[std::size_t(k)].begin(),
                    ofDimension);
  }
}

void computeDiscreteGradient(const cubical::Grid& grid, const ScalarArrayView& values,
                             const Monitor& monitor, std::vector<std::uint8_t>& gradient,
                             std::array<std::vector<SimplexId>, 4>& criticalCells,
                             RunReport& report) {
  translateCudaFailures("discrete gradient", [&] {
    const SimplexId n = values.size;
    const SimplexId cells = cubical::cellCount(grid);
    Timer timer;
    thrust::device_vector<SimplexId> order(n);
    uploadAndComputeVertexOrder(values, thrust::raw_pointer_cast(order.data()), monitor,
                                0.05, report);
    monitor.report(0.3);
    monitor.checkAbort();

    timer.reset();
    thrust::device_vector<std::uint8_t> deviceGradient(cells, cubical::kUnassigned);
    launchLowerStars(grid, n, thrust::raw_pointer_cast(order.data()),
                     thrust::raw_pointer_cast(deviceGradient.data()));
    stageDone("gradient");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("gradient (gpu)", timer.seconds());
    monitor.report(0.8);
    monitor.checkAbort();

    timer.reset();
    order.clear();
    order.shrink_to_fit();
    std::array<thrust::device_vector<SimplexId>, 4> lists;
    compactCriticalCells(grid, thrust::raw_pointer_cast(deviceGradient.data()), lists);
    for (int k = 0; k < 4; ++k) {
      criticalCells[k].resize(lists[std::size_t(k)].size());
      thrust::copy(lists[std::size_t(k)].begin(), lists[std::size_t(k)].end(),
                   criticalCells[k].begin());
    }
    stageDone("critical cells");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("critical cells (gpu)", timer.seconds());
    monitor.report(0.9);
    monitor.checkAbort();

    timer.reset();
    gradient.resize(std::size_t(cells));
    thrust::copy(deviceGradient.begin(), deviceGradient.end(), gradient.begin());
    stageDone("download");
    report.timings.emplace_back("download (gpu)", timer.seconds());
    monitor.report(1.0);
  });
}

} // namespace topogpu::gpu
