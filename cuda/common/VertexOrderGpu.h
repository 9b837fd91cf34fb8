#pragma once

#include "core/common/ScalarArray.h"

namespace topogpu::gpu {

// order (host memory, values.size entries) receives the rank of every vertex in the
// (value, index) order; identical to computeVertexOrderCpu.
void computeVertexOrder(const ScalarArrayView& values, SimplexId* order);

// Device-side variant: values and order live on the device.
template <typename ValueT>
void computeVertexOrderOnDevice(const ValueT* deviceValues, SimplexId size,
                                SimplexId* deviceOrder);

} // namespace topogpu::gpu
