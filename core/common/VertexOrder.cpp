#include "VertexOrder.h"

#include "BackendSelection.h"
#include "Fallback.h"
#include "base/Timer.h"

#include "core/common/VertexOrderGpu.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

namespace topogpu {

namespace {

// body(first, last) over [0, n) in a few batches run one after the other (each in
// parallel), so that progress and abort are handled on the calling thread between them.
template <typename Body> void forBatches(SimplexId n, const Monitor& monitor, Body body) {
  const SimplexId batches = std::max<SimplexId>(1, std::min<SimplexId>(16, n / 65536));
  for (SimplexId b = 0; b < batches; ++b) {
    monitor.checkAbort();
    tbb::parallel_for(
        tbb::blocked_range<SimplexId>(n * b / batches, n * (b + 1) / batches),
        [&](const tbb::blocked_range<SimplexId>& range) {
          body(range.begin(), range.end());
        });
    monitor.report(double(b + 1) / batches);
  }
}

// Stable counting sort for 8- and 16-bit values: rank = vertices with a smaller value +
// vertices with the same value and a smaller index, in O(n) with per-chunk histograms
// (the (value, index) order needs no comparisons when values have few bits).
template <typename ValueT>
void countingOrder(const ValueT* values, SimplexId n, SimplexId* order,
                   const Monitor& monitor) {
  using Unsigned = std::make_unsigned_t<ValueT>;
  constexpr std::size_t bins = std::size_t(1) << (8 * sizeof(ValueT));
  // signed values shift so that the most negative one lands in bin 0
  constexpr Unsigned flip =
      std::is_signed_v<ValueT> ? Unsigned(Unsigned(1) << (8 * sizeof(ValueT) - 1)) : 0;
  const SimplexId chunks = std::max<SimplexId>(1, std::min<SimplexId>(64, n / 65536));
  std::vector<SimplexId> counts(std::size_t(chunks) * bins, 0);
  auto binOf = [&](SimplexId v) {
    return std::size_t(Unsigned(Unsigned(values[v]) ^ flip));
  };
  tbb::parallel_for(SimplexId(0), chunks, [&](SimplexId c) {
    SimplexId* local = &counts[std::size_t(c) * bins];
    for (SimplexId v = n * c / chunks; v < n * (c + 1) / chunks; ++v)
      ++local[binOf(v)];
  });
  monitor.report(0.5);
  monitor.checkAbort();
  // exclusive prefix over (bin, chunk): chunk c's first rank for each bin
  SimplexId running = 0;
  for (std::size_t b = 0; b < bins; ++b) {
    for (SimplexId c = 0; c < chunks; ++c) {
      SimplexId& slot = counts[std::size_t(c) * bins + b];
      const SimplexId count = slot;
      slot = running;
      running += count;
    }
  }
  tbb::parallel_for(SimplexId(0), chunks, [&](SimplexId c) {
    SimplexId* next = &counts[std::size_t(c) * bins];
    for (SimplexId v = n * c / chunks; v < n * (c + 1) / chunks; ++v)
      order[v] = next[binOf(v)]++;
  });
  monitor.report(1.0);
}

// 32-bit values: the order-preserving unsigned image of the value in the high half and
// the vertex index in the low half make one 64-bit key per vertex, so the (value, index)
// order is a plain sort of contiguous integers (no indirect comparisons).
template <typename ValueT> std::uint64_t packedKey(ValueT x, SimplexId v) {
  std::uint32_t bits = 0;
  if constexpr (std::is_floating_point_v<ValueT>) {
    const float canonical = x + 0.0f; // -0.0 ties with +0.0, as in the comparison sort
    std::memcpy(&bits, &canonical, sizeof bits);
    bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  } else if constexpr (std::is_signed_v<ValueT>) {
    bits = std::uint32_t(x) ^ 0x80000000u;
  } else {
    bits = std::uint32_t(x);
  }
  return (std::uint64_t(bits) << 32) | std::uint64_t(v);
}

// The sort itself reports nothing (one parallel call); the stages around it do.
constexpr double kSortBegin = 0.15, kSortEnd = 0.85;

template <typename ValueT>
void packedSortOrder(const ValueT* values, SimplexId n, SimplexId* order,
                     const Monitor& monitor) {
  std::vector<std::uint64_t> keys(n);
  forBatches(n, monitor.stage(0, kSortBegin), [&](SimplexId first, SimplexId last) {
    for (SimplexId v = first; v < last; ++v)
      keys[v] = packedKey(values[v], v);
  });
  tbb::parallel_sort(keys.begin(), keys.end());
  monitor.report(kSortEnd);
  forBatches(n, monitor.stage(kSortEnd, 1), [&](SimplexId first, SimplexId last) {
    for (SimplexId rank = first; rank < last; ++rank)
      order[keys[rank] & 0xffffffffu] = rank;
  });
}

} // namespace

void computeVertexOrderCpu(const ScalarArrayView& values, SimplexId* order,
                           const Monitor& monitor) {
  monitor.checkAbort();
  if (values.order != nullptr) {
    forBatches(values.size, monitor, [&](SimplexId first, SimplexId last) {
      std::copy(values.order + first, values.order + last, order + first);
    });
    return;
  }
  bool done = false;
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* v = static_cast<const ValueT*>(values.data);
    if constexpr (std::is_integral_v<ValueT> && sizeof(ValueT) <= 2) {
      countingOrder(v, values.size, order, monitor);
      done = true;
    } else if constexpr (sizeof(ValueT) == 4) {
      if (values.size <= SimplexId(0xffffffffu)) {
        packedSortOrder(v, values.size, order, monitor);
        done = true;
      }
    }
  });
  if (done)
    return;
  std::vector<SimplexId> sorted(values.size);
  forBatches(values.size, monitor.stage(0, kSortBegin),
             [&](SimplexId first, SimplexId last) {
               std::iota(sorted.begin() + first, sorted.begin() + last, first);
             });
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* v = static_cast<const ValueT*>(values.data);
    // -0.0 == +0.0 here, so signed zeros tie and fall back to the index, as on the GPU,
    // which maps -0.0 to +0.0 before its radix sort.
    tbb::parallel_sort(sorted.begin(), sorted.end(), [v](SimplexId a, SimplexId b) {
      return v[a] < v[b] || (!(v[b] < v[a]) && a < b);
    });
  });
  monitor.report(kSortEnd);
  forBatches(values.size, monitor.stage(kSortEnd, 1),
             [&](SimplexId first, SimplexId last) {
               for (SimplexId rank = first; rank < last; ++rank)
                 order[sorted[rank]] = rank;
             });
}

void computeVertexOrder(const ScalarArrayView& values, SimplexId* order, Backend backend,
                        RunReport& report, const Monitor& monitor) {
  Timer timer;
  // Keys, indices, ranks and the sort's scratch space on the device.
  const std::size_t deviceBytes =
      values.size * (2 * scalarTypeSize(values.type) + 4 * sizeof(SimplexId));
  runWithFallback(
      resolveBackend(backend, deviceBytes, report), "vertex order", report,
      [&] {
        gpu::computeVertexOrder(values, order, monitor);
        report.timings.emplace_back("vertex order (gpu)", timer.seconds());
      },
      [&] {
        timer.reset();
        computeVertexOrderCpu(values, order, monitor);
        report.timings.emplace_back("vertex order (cpu)", timer.seconds());
      });
}

VertexOrderView vertexOrderOf(const VertexOrderSource& source,
                              const ScalarArrayView& values, const Monitor& monitor,
                              RunReport& report) {
  Timer timer;
  VertexOrderView view;
  if (source) {
    view.shared = source(values, monitor, view.reused);
  } else {
    view.own.resize(std::size_t(values.size));
    computeVertexOrderCpu(values, view.own.data(), monitor);
  }
  report.timings.emplace_back(view.reused               ? "vertex order (cached)"
                              : values.order != nullptr ? "vertex order (given)"
                                                        : "vertex order (cpu)",
                              timer.seconds());
  return view;
}

} // namespace topogpu
