#pragma once

#include "core/common/ScalarArray.h"

namespace topogpu::gpu {

// order (host memory, values.size entries) receives the rank of every vertex in the
// (value, index) order; identical to computeVertexOrderCpu. Progress after each stage
// (upload, sort, download). Throws GpuError on a CUDA failure.
void computeVertexOrder(const ScalarArrayView& values, SimplexId* order,
                        const Monitor& monitor);

// Device-side variant: values and order live on the device (CUDA builds only).
template <typename ValueT>
void computeVertexOrderOnDevice(const ValueT* deviceValues, SimplexId size,
                                SimplexId* deviceOrder);

} // namespace topogpu::gpu
