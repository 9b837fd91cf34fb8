#pragma once

#include "base/ScalarArray.h"

namespace topogpu::gpu {

// order (host memory, values.size entries) receives the rank of every vertex in the
// (value, index) order; identical to computeVertexOrderCpu. Progress after each stage
// (upload, sort, download). Throws GpuError on a CUDA failure.
void computeVertexOrder(const ScalarArrayView& values, SimplexId* order,
                        const Monitor& monitor);

// The first stages of every grid kernel pipeline: uploads values, computes their vertex
// order into deviceOrder (device memory, values.size entries) and frees the device copy
// of the values; an order given with the values (ScalarArrayView::order) is uploaded
// instead of sorting them. Records "upload (gpu)" and "vertex order (gpu)" timings and
// the device memory in use in report; progress `uploaded` after the upload, abort checked
// there.
void uploadAndComputeVertexOrder(const ScalarArrayView& values, SimplexId* deviceOrder,
                                 const Monitor& monitor, double uploaded,
                                 RunReport& report);

// Device-side variant: values and order live on the device (CUDA builds only).
template <typename ValueT>
void computeVertexOrderOnDevice(const ValueT* deviceValues, SimplexId size,
                                SimplexId* deviceOrder);

} // namespace topogpu::gpu
