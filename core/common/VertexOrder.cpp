#include "VertexOrder.h"

#include "BackendSelection.h"
#include "Timer.h"

#if TOPOGPU_WITH_CUDA
#include "cuda/common/VertexOrderGpu.h"
#endif

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <numeric>
#include <vector>

namespace topogpu {

void computeVertexOrderCpu(const ScalarArrayView& values, SimplexId* order) {
  std::vector<SimplexId> sorted(values.size);
  std::iota(sorted.begin(), sorted.end(), SimplexId(0));
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* v = static_cast<const ValueT*>(values.data);
    // -0.0 == +0.0 here, so signed zeros tie and fall back to the index, as on the GPU,
    // which maps -0.0 to +0.0 before its radix sort.
    tbb::parallel_sort(sorted.begin(), sorted.end(), [v](SimplexId a, SimplexId b) {
      return v[a] < v[b] || (!(v[b] < v[a]) && a < b);
    });
  });
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, values.size),
                    [&](const tbb::blocked_range<SimplexId>& range) {
                      for (SimplexId rank = range.begin(); rank < range.end(); ++rank)
                        order[sorted[rank]] = rank;
                    });
}

void computeVertexOrder(const ScalarArrayView& values, SimplexId* order, Backend backend,
                        RunReport& report) {
  Timer timer;
  // Keys, indices, ranks and the sort's scratch space on the device.
  const std::size_t deviceBytes =
      values.size * (2 * scalarTypeSize(values.type) + 4 * sizeof(SimplexId));
  [[maybe_unused]] const Backend resolved = resolveBackend(backend, deviceBytes, report);
#if TOPOGPU_WITH_CUDA
  if (resolved == Backend::Gpu) {
    try {
      gpu::computeVertexOrder(values, order);
      report.timings.emplace_back("vertex order (gpu)", timer.seconds());
      return;
    } catch (const std::exception& e) {
      report.warnings.push_back(std::string("GPU vertex order failed (") + e.what() +
                                "); ran on the CPU instead");
      report.backend = "cpu";
    }
  }
#endif
  computeVertexOrderCpu(values, order);
  report.timings.emplace_back("vertex order (cpu)", timer.seconds());
}

} // namespace topogpu
