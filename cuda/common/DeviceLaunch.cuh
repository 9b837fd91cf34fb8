// The launch shape of the one-thread-per-element kernels, and raw pointers into Thrust's
// vectors for their arguments.
#pragma once

#include "base/Types.h"

#include <thrust/device_vector.h>

namespace topogpu::gpu {

constexpr int kBlock = 256;

inline unsigned blocksFor(SimplexId n) {
  return unsigned((n + kBlock - 1) / kBlock);
}

template <typename T> T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <typename T> const T* raw(const thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

} // namespace topogpu::gpu
