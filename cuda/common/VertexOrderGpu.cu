#include "core/common/VertexOrderGpu.h"

#include "CudaCheck.h"
#include "core/common/GpuDevice.h"

#include "base/Timer.h"

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <type_traits>

namespace topogpu::gpu {

namespace {
// Radix sort orders -0.0 before +0.0; the CPU comparison ties them. Mapping -0.0 to +0.0
// (x + 0 does) makes the two orders identical.
template <typename ValueT> struct CanonicalZero {
  __host__ __device__ ValueT operator()(ValueT x) const {
    if constexpr (std::is_floating_point_v<ValueT>)
      return x + ValueT(0);
    else
      return x;
  }
};
} // namespace

template <typename ValueT>
void computeVertexOrderOnDevice(const ValueT* deviceValues, SimplexId size,
                                SimplexId* deviceOrder) {
  thrust::device_vector<ValueT> keys(size);
  thrust::transform(thrust::device, deviceValues, deviceValues + size, keys.begin(),
                    CanonicalZero<ValueT>());
  thrust::device_vector<SimplexId> sortedVertices(size);
  thrust::sequence(sortedVertices.begin(), sortedVertices.end());
  // A stable sort keeps equal values in index order: the (value, index) order.
  thrust::stable_sort_by_key(keys.begin(), keys.end(), sortedVertices.begin());
  thrust::scatter(thrust::device, thrust::counting_iterator<SimplexId>(0),
                  thrust::counting_iterator<SimplexId>(size), sortedVertices.begin(),
                  deviceOrder);
  stageDone("vertex order");
}

void uploadAndComputeVertexOrder(const ScalarArrayView& values, SimplexId* deviceOrder,
                                 const Monitor& monitor, double uploaded,
                                 RunReport& report) {
  Timer timer;
  if (values.order != nullptr) { // given with the values: the ranks go up as they are
    thrust::copy(values.order, values.order + values.size,
                 thrust::device_pointer_cast(deviceOrder));
    stageDone("upload");
    report.timings.emplace_back("upload (gpu)", timer.seconds());
    report.timings.emplace_back("vertex order (given)", 0.0);
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    monitor.report(uploaded);
    monitor.checkAbort();
    return;
  }
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* host = static_cast<const ValueT*>(values.data);
    thrust::device_vector<ValueT> deviceValues(host, host + values.size);
    stageDone("upload");
    report.timings.emplace_back("upload (gpu)", timer.seconds());
    monitor.report(uploaded);
    monitor.checkAbort();
    timer.reset();
    computeVertexOrderOnDevice(thrust::raw_pointer_cast(deviceValues.data()), values.size,
                               deviceOrder);
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("vertex order (gpu)", timer.seconds());
  });
}

void computeVertexOrder(const ScalarArrayView& values, SimplexId* order,
                        const Monitor& monitor) {
  translateCudaFailures("vertex order", [&] {
    thrust::device_vector<SimplexId> deviceOrder(values.size);
    RunReport stages; // the caller times the whole call
    uploadAndComputeVertexOrder(values, thrust::raw_pointer_cast(deviceOrder.data()),
                                monitor, 0.2, stages);
    monitor.report(0.8);
    monitor.checkAbort();
    thrust::copy(deviceOrder.begin(), deviceOrder.end(), order);
    monitor.report(1.0);
  });
}

#define TOPOGPU_INSTANTIATE_ORDER(T)                                                     \
  template void computeVertexOrderOnDevice<T>(const T*, SimplexId, SimplexId*);
TOPOGPU_INSTANTIATE_ORDER(std::int8_t)
TOPOGPU_INSTANTIATE_ORDER(std::uint8_t)
TOPOGPU_INSTANTIATE_ORDER(std::int16_t)
TOPOGPU_INSTANTIATE_ORDER(std::uint16_t)
TOPOGPU_INSTANTIATE_ORDER(std::int32_t)
TOPOGPU_INSTANTIATE_ORDER(std::uint32_t)
TOPOGPU_INSTANTIATE_ORDER(std::int64_t)
TOPOGPU_INSTANTIATE_ORDER(std::uint64_t)
TOPOGPU_INSTANTIATE_ORDER(float)
TOPOGPU_INSTANTIATE_ORDER(double)

} // namespace topogpu::gpu
