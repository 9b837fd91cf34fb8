#include "core/scalar_field_smoother/ScalarFieldSmootherGpu.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/scalar_field_smoother/SmootherStencil.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/DeviceLaunch.cuh"

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <algorithm>

namespace topogpu::gpu {

namespace {

// The input in the working type (double for floating-point fields, the input's type for
// integers).
template <typename T, typename W>
__global__ void convertKernel(const T* in, SimplexId n, W* out) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    out[v] = W(in[v]);
}

// One thread per vertex, the stencil function of the CPU grid path.
template <typename W>
__global__ void smoothKernel(grid::Dims dims, const W* in, const std::uint8_t* mask,
                             W* out) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < grid::vertexCount(dims))
    out[v] = scalar_field_smoother::smoothedGridValue(dims, v, in, mask);
}

template <typename T>
__global__ void toValueKernel(const scalar_field_smoother::Working<T>* in, SimplexId n,
                              T* out) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    out[v] = scalar_field_smoother::toValue<T>(in[v]);
}

// The passes for one value type. A kernel launch's <<<a, b>>> cannot sit inside the
// dispatch macro, hence a function of its own.
template <typename T>
void smoothTyped(const grid::Dims& dims, const T* host, int numberOfIterations,
                 const std::uint8_t* mask, const Monitor& monitor, T* smoothed,
                 RunReport& report) {
  using W = scalar_field_smoother::Working<T>;
  const SimplexId n = grid::vertexCount(dims);
  const unsigned blocks = blocksFor(n);
  Timer timer;
  thrust::device_vector<W> current(n), next(n);
  thrust::device_vector<std::uint8_t> deviceMask;
  if (mask != nullptr)
    deviceMask.assign(mask, mask + n);
  {
    const thrust::device_vector<T> input(host, host + n);
    convertKernel<<<blocks, kBlock>>>(thrust::raw_pointer_cast(input.data()), n,
                                      thrust::raw_pointer_cast(current.data()));
    stageDone("upload");
  }
  report.timings.emplace_back("upload (gpu)", timer.seconds());
  monitor.checkAbort();

  timer.reset();
  const std::uint8_t* maskPointer =
      mask != nullptr ? thrust::raw_pointer_cast(deviceMask.data()) : nullptr;
  for (int it = 0; it < numberOfIterations; ++it) {
    smoothKernel<<<blocks, kBlock>>>(dims, thrust::raw_pointer_cast(current.data()),
                                     maskPointer, thrust::raw_pointer_cast(next.data()));
    // Synchronises, so that progress and abort follow the passes.
    stageDone("smooth");
    current.swap(next);
    monitor.report(double(it + 1) / numberOfIterations);
    monitor.checkAbort();
  }
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
  report.timings.emplace_back("smooth (gpu)", timer.seconds());

  timer.reset();
  thrust::device_vector<T> output(n);
  toValueKernel<<<blocks, kBlock>>>(thrust::raw_pointer_cast(current.data()), n,
                                    thrust::raw_pointer_cast(output.data()));
  stageDone("download");
  thrust::copy(output.begin(), output.end(), smoothed);
  report.timings.emplace_back("download (gpu)", timer.seconds());
}

} // namespace

void smoothGrid(const grid::Dims& dims, const ScalarArrayView& values,
                int numberOfIterations, const std::uint8_t* mask, const Monitor& monitor,
                void* smoothed, RunReport& report) {
  translateCudaFailures("scalar field smoother", [&] {
    TOPOGPU_DISPATCH_SCALAR(values.type, {
      smoothTyped(dims, static_cast<const ValueT*>(values.data), numberOfIterations, mask,
                  monitor, static_cast<ValueT*>(smoothed), report);
    });
  });
}

} // namespace topogpu::gpu
