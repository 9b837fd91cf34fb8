#include "CriticalPointsGpu.h"

#include "core/common/Timer.h"
#include "core/critical_points/CriticalType.h"
#include "cuda/common/GpuDevice.h"
#include "cuda/common/VertexOrderGpu.h"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace topogpu::gpu {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

__device__ int rootOf(signed char* parent, int x) {
  while (parent[x] != x)
    x = parent[x];
  return x;
}

// One thread per vertex. The link of v lives in 27 slots indexed by the displacement of
// the neighbour; link edges come from the cells of v's star (Freudenthal stencil).
__global__ void classifyKernel(grid::Dims dims, const SimplexId* order,
                               std::int8_t* types) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= grid::vertexCount(dims))
    return;
  SimplexId c[3];
  grid::vertexCoords(dims, v, c);
  const SimplexId ov = order[v];
  signed char parent[27];
  bool lower[27];
  for (int s = 0; s < 27; ++s)
    parent[s] = -1;
  const int edgeTypes = grid::edgeTypeCount(dims.dimension);
  for (int k = 0; k < 2 * edgeTypes; ++k) {
    const int mask = k / 2 + 1, sign = k % 2 ? -1 : 1;
    SimplexId n[3];
    for (int a = 0; a < 3; ++a)
      n[a] = c[a] + sign * ((mask >> a) & 1);
    if (!grid::anchorValid(dims, n, 0))
      continue;
    const int slot = grid::displacementSlot(c, n);
    parent[slot] = slot;
    lower[slot] = order[grid::vertexAt(dims, n)] < ov;
  }
  const int cellTypes = grid::cellTypeCount(dims.dimension);
  const int span = grid::cellSpanMask(dims.dimension);
  const int cellSize = dims.dimension + 1;
  for (int t = 0; t < cellTypes; ++t) {
    for (int p = 0; p < cellSize; ++p) {
      const int own = grid::cellChainMask(dims.dimension, t, p);
      SimplexId base[3];
      for (int a = 0; a < 3; ++a)
        base[a] = c[a] - ((own >> a) & 1);
      if (!grid::anchorValid(dims, base, span))
        continue;
      int slots[3], n = 0;
      for (int q = 0; q < cellSize; ++q) {
        if (q == p)
          continue;
        const int m = grid::cellChainMask(dims.dimension, t, q);
        SimplexId u[3];
        for (int a = 0; a < 3; ++a)
          u[a] = base[a] + ((m >> a) & 1);
        slots[n++] = grid::displacementSlot(c, u);
      }
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
          if (lower[slots[i]] == lower[slots[j]])
            parent[rootOf(parent, slots[i])] =
                static_cast<signed char>(rootOf(parent, slots[j]));
    }
  }
  int lowerCount = 0, upperCount = 0;
  for (int s = 0; s < 27; ++s) {
    if (parent[s] == s)
      (lower[s] ? lowerCount : upperCount)++;
  }
  types[v] = std::int8_t(criticalTypeFromLink(dims.dimension, lowerCount, upperCount));
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
  const SimplexId n = grid::vertexCount(dims);
  Timer timer;
  thrust::device_vector<SimplexId> order(n);
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* host = static_cast<const ValueT*>(values.data);
    thrust::device_vector<ValueT> deviceValues(host, host + n);
    check(cudaDeviceSynchronize(), "upload");
    report.timings.emplace_back("upload (gpu)", timer.seconds());
    monitor.checkAbort();
    timer.reset();
    computeVertexOrderOnDevice(thrust::raw_pointer_cast(deviceValues.data()), n,
                               thrust::raw_pointer_cast(order.data()));
    check(cudaDeviceSynchronize(), "vertex order");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("vertex order (gpu)", timer.seconds());
  });
  monitor.report(0.4);
  monitor.checkAbort();

  timer.reset();
  thrust::device_vector<std::int8_t> deviceTypes(n);
  const int block = 256;
  const unsigned grid = unsigned((n + block - 1) / block);
  classifyKernel<<<grid, block>>>(dims, thrust::raw_pointer_cast(order.data()),
                                  thrust::raw_pointer_cast(deviceTypes.data()));
  check(cudaGetLastError(), "classify launch");
  check(cudaDeviceSynchronize(), "classify");
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
  report.timings.emplace_back("classify (gpu)", timer.seconds());
  monitor.report(0.8);

  timer.reset();
  thrust::device_vector<SimplexId> critical(n);
  auto end = thrust::copy_if(thrust::device, thrust::counting_iterator<SimplexId>(0),
                             thrust::counting_iterator<SimplexId>(n), critical.begin(),
                             IsCritical{thrust::raw_pointer_cast(deviceTypes.data())});
  criticalVertices.resize(end - critical.begin());
  thrust::copy(critical.begin(), end, criticalVertices.begin());
  thrust::copy(deviceTypes.begin(), deviceTypes.end(), types);
  report.timings.emplace_back("compact + download (gpu)", timer.seconds());
  monitor.report(1.0);
}

} // namespace topogpu::gpu
