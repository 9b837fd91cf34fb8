#include "ScalarFieldSmootherGpu.h"

#include "core/common/Timer.h"
#include "core/scalar_field_smoother/SmootherStencil.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/GpuDevice.h"

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <algorithm>

namespace topogpu::gpu {

namespace {

constexpr int kBlock = 256;

unsigned blocksFor(SimplexId n) {
  return unsigned((n + kBlock - 1) / kBlock);
}

template <typename T>
__global__ void toDoubleKernel(const T* in, SimplexId n, double* out) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    out[v] = double(in[v]);
}

// One thread per vertex, the stencil function of the CPU grid path.
__global__ void smoothKernel(grid::Dims dims, const double* in, const std::uint8_t* mask,
                             double* out) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < grid::vertexCount(dims))
    out[v] = scalar_field_smoother::smoothedGridValue(dims, v, in, mask);
}

template <typename T>
__global__ void toValueKernel(const double* in, SimplexId n, T* out) {
  const SimplexId v = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n)
    out[v] = scalar_field_smoother::toValue<T>(in[v]);
}

// Launchers: a kernel launch's <<<a, b>>> cannot sit inside the dispatch macro.
template <typename T> void launchToDouble(const T* in, SimplexId n, double* out) {
  toDoubleKernel<<<blocksFor(n), kBlock>>>(in, n, out);
}
template <typename T> void launchToValue(const double* in, SimplexId n, T* out) {
  toValueKernel<<<blocksFor(n), kBlock>>>(in, n, out);
}

} // namespace

void smoothGrid(const grid::Dims& dims, const ScalarArrayView& values,
                int numberOfIterations, const std::uint8_t* mask, const Monitor& monitor,
                void* smoothed, RunReport& report) {
  translateCudaFailures("scalar field smoother", [&] {
    const SimplexId n = grid::vertexCount(dims);
    const unsigned blocks = blocksFor(n);
    Timer timer;
    thrust::device_vector<double> current(n), next(n);
    thrust::device_vector<std::uint8_t> deviceMask;
    if (mask != nullptr)
      deviceMask.assign(mask, mask + n);
    TOPOGPU_DISPATCH_SCALAR(values.type, {
      const auto* host = static_cast<const ValueT*>(values.data);
      const thrust::device_vector<ValueT> input(host, host + n);
      launchToDouble(thrust::raw_pointer_cast(input.data()), n,
                     thrust::raw_pointer_cast(current.data()));
      stageDone("upload");
    });
    report.timings.emplace_back("upload (gpu)", timer.seconds());
    monitor.checkAbort();

    timer.reset();
    const std::uint8_t* maskPointer =
        mask != nullptr ? thrust::raw_pointer_cast(deviceMask.data()) : nullptr;
    for (int it = 0; it < numberOfIterations; ++it) {
      smoothKernel<<<blocks, kBlock>>>(dims, thrust::raw_pointer_cast(current.data()),
                                       maskPointer,
                                       thrust::raw_pointer_cast(next.data()));
      // Synchronises, so that progress and abort follow the passes.
      stageDone("smooth");
      current.swap(next);
      monitor.report(double(it + 1) / numberOfIterations);
      monitor.checkAbort();
    }
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("smooth (gpu)", timer.seconds());

    timer.reset();
    TOPOGPU_DISPATCH_SCALAR(values.type, {
      thrust::device_vector<ValueT> output(n);
      launchToValue(thrust::raw_pointer_cast(current.data()), n,
                    thrust::raw_pointer_cast(output.data()));
      stageDone("download");
      thrust::copy(output.begin(), output.end(), static_cast<ValueT*>(smoothed));
    });
    report.timings.emplace_back("download (gpu)", timer.seconds());
  });
}

} // namespace topogpu::gpu
