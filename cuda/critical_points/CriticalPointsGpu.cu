#include "core/critical_points/CriticalPointsGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/common/VertexOrderGpu.h"
#include "core/critical_points/GridLinkClassifier.h"
#include "cuda/common/CudaCheck.h"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace topogpu::gpu {

namespace {

// One thread per vertex, the stencil classifier shared with the CPU grid path (the
// 16 KiB interior table stays in the caches).
__global__ void classifyKernel(grid::Dims dims, const SimplexId* order,
                               const std::int8_t* interiorTable, std::int8_t* types) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < grid::vertexCount(dims))
    types[v] =
        std::int8_t(grid::classifyGridVertexWithTable(dims, v, order, interiorTable));
}

struct IsCritical {
  const std::int8_t* types;
  __device__ bool operator()(SimplexId v) const {
    return types[v] != std::int8_t(CriticalType::Regular);
  }
};

} // namespace

void classifyGridVertices(const grid::Dims& dims, const ScalarArrayView& values,
                          const Monitor& monitor, std::int8_t* types,
                          std::vector<SimplexId>& criticalVertices, RunReport& report) {
  translateCudaFailures("critical points", [&] {
    const SimplexId n = grid::vertexCount(dims);
    Timer timer;
    thrust::device_vector<SimplexId> order(n);
    uploadAndComputeVertexOrder(values, thrust::raw_pointer_cast(order.data()), monitor,
                                0.1, report);
    monitor.report(0.5);
    monitor.checkAbort();

    timer.reset();
    thrust::device_vector<std::int8_t> deviceTypes(n);
    const std::vector<std::int8_t>& table = grid::interiorLinkTable(dims.dimension);
    const thrust::device_vector<std::int8_t> deviceTable(table.begin(), table.end());
    const int block = 256;
    const unsigned grid = unsigned((n + block - 1) / block);
    classifyKernel<<<grid, block>>>(dims, thrust::raw_pointer_cast(order.data()),
                                    thrust::raw_pointer_cast(deviceTable.data()),
                                    thrust::raw_pointer_cast(deviceTypes.data()));
    stageDone("classify");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("classify (gpu)", timer.seconds());
    monitor.report(0.9);
    monitor.checkAbort();

    timer.reset();
    thrust::device_vector<SimplexId> critical(n);
    auto end = thrust::copy_if(thrust::device, thrust::counting_iterator<SimplexId>(0),
                               thrust::counting_iterator<SimplexId>(n), critical.begin(),
                               IsCritical{thrust::raw_pointer_cast(deviceTypes.data())});
    criticalVertices.resize(end - critical.begin());
    thrust::copy(critical.begin(), end, criticalVertices.begin());
    thrust::copy(deviceTypes.begin(), deviceTypes.end(), types);
    stageDone("download");
    report.timings.emplace_back("compact + download (gpu)", timer.seconds());
    monitor.report(1.0);
  });
}

} // namespace topogpu::gpu
