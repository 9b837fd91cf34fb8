// Copies of large arrays (a million-vertex result into a front end's output) by all
// cores: one core copies about 5-10 GB/s and, into fresh pages, also takes their first
// touch alone.
#pragma once

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstddef>

namespace topogpu {

// to[i] = To(from[i]) for i < count, in blocks of kBlock elements (a task each).
template <std::size_t kBlock = std::size_t(1) << 16, typename From, typename To>
void parallelCopy(const From* from, std::size_t count, To* to) {
  tbb::parallel_for(std::size_t(0), (count + kBlock - 1) / kBlock, [&](std::size_t b) {
    const std::size_t at = b * kBlock;
    const std::size_t end = std::min(count, at + kBlock);
    std::copy(from + at, from + end, to + at);
  });
}

} // namespace topogpu
