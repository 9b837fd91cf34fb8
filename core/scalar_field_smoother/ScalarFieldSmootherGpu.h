#pragma once

#include "base/GridStencil.h"
#include "base/ScalarArray.h"

#include <cstdint>

namespace topogpu::gpu {

// numberOfIterations smoothing passes of a grid field on the device, bit for bit the
// CPU grid path's (SmootherStencil.h); writes values.size values of values.type to the
// host buffer smoothed. mask: nullptr or one byte per vertex (0 keeps the value).
// Progress 0..1 over the passes; abort checked between passes. Throws GpuError on a
// CUDA failure (runWithFallback reruns on the CPU), Aborted on abort.
void smoothGrid(const grid::Dims& dims, const ScalarArrayView& values,
                int numberOfIterations, const std::uint8_t* mask, const Monitor& monitor,
                void* smoothed, RunReport& report);

} // namespace topogpu::gpu
