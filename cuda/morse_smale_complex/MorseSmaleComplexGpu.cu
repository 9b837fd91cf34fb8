#include "MorseSmaleComplexGpu.h"

#include "core/common/Timer.h"
#include "core/morse_smale_complex/GradientForest.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/GpuDevice.h"
#include "cuda/common/VertexOrderGpu.h"

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <algorithm>

namespace topogpu::gpu {

namespace {

constexpr int kBlock = 256;

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

// One pointer-jumping round (double buffered, as the CPU's): negative entries are
// terminal; *changed is set when any entry moved.
__global__ void jumpKernel(SimplexId n, const SimplexId* root, SimplexId* next,
                           int* changed) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const SimplexId p = root[i];
  const SimplexId q = p >= 0 ? root[p] : p;
  next[i] = q;
  if (q != p)
    *changed = 1;
}

void pointerJump(thrust::device_vector<SimplexId>& root, const Monitor& monitor) {
  const SimplexId n = SimplexId(root.size());
  if (n == 0)
    return;
  thrust::device_vector<SimplexId> next(root.size());
  thrust::device_vector<int> changed(1);
  for (;;) {
    changed[0] = 0;
    jumpKernel<<<blocksFor(n), kBlock>>>(n, thrust::raw_pointer_cast(root.data()),
                                         thrust::raw_pointer_cast(next.data()),
                                         thrust::raw_pointer_cast(changed.data()));
    cudaCheck(cudaGetLastError(), "pointer jumping");
    root.swap(next);
    monitor.checkAbort();
    if (changed[0] == 0)
      return;
  }
}

} // namespace

void computeGradientRoots(const cubical::Grid& grid, const ScalarArrayView& values,
                          const std::vector<std::uint8_t>& gradient,
                          const Monitor& monitor, std::vector<SimplexId>& rank,
                          std::vector<SimplexId>& vertexRoots,
                          std::vector<SimplexId>& topCellRoots, RunReport& report) {
  translateCudaFailures("morse-smale complex", [&] {
    const SimplexId n = values.size;
    Timer timer;
    rank.resize(std::size_t(n));
    computeVertexOrder(values, rank.data(), monitor.stage(0, 0.3));
    report.timings.emplace_back("msc vertex order (gpu)", timer.seconds());

    timer.reset();
    thrust::device_vector<std::uint8_t> deviceGradient(gradient.begin(), gradient.end());
    stageDone("morse-smale upload");
    report.timings.emplace_back("gradient upload (gpu)", timer.seconds());
    const std::uint8_t* g = thrust::raw_pointer_cast(deviceGradient.data());

    timer.reset();
    {
      thrust::device_vector<SimplexId> root(static_cast<std::size_t>(n));
      vertexSuccessorKernel<<<blocksFor(n), kBlock>>>(
          grid, n, g, thrust::raw_pointer_cast(root.data()));
      cudaCheck(cudaGetLastError(), "vertex successors");
      pointerJump(root, monitor);
      stageDone("minima roots");
      report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
      vertexRoots.resize(std::size_t(n));
      thrust::copy(root.begin(), root.end(), vertexRoots.begin());
    }
    report.timings.emplace_back("minima roots (gpu)", timer.seconds());
    monitor.report(0.6);

    timer.reset();
    {
      const SimplexId top = cubical::topCellCount(grid);
      thrust::device_vector<SimplexId> root(static_cast<std::size_t>(top));
      if (top > 0) {
        topCellSuccessorKernel<<<blocksFor(top), kBlock>>>(
            grid, top, g, thrust::raw_pointer_cast(root.data()));
        cudaCheck(cudaGetLastError(), "top-cell successors");
      }
      pointerJump(root, monitor);
      stageDone("maxima roots");
      report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
      topCellRoots.resize(std::size_t(top));
      thrust::copy(root.begin(), root.end(), topCellRoots.begin());
    }
    report.timings.emplace_back("maxima roots (gpu)", timer.seconds());
    monitor.report(1.0);
  });
}

} // namespace topogpu::gpu
