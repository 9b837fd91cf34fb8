// The simplification's device interface (host types only): the sweeps of a grid.
#pragma once

#include "base/GridStencil.h"
#include "base/ScalarArray.h"

namespace topogpu::gpu {

// The sweeps of SimplificationSweep.h on a grid's Freudenthal neighbours, repeated as
// the CPU's simplifyCpu does, bit for bit its result: values (n values of type, the
// input's on entry) is simplified in place, order receives the final ranks, flattened
// (zeroed on entry) marks the flattened vertices, iterations the rounds run. keptMinimum,
// maximumSources, keptMaximum, boundary: one byte per vertex. Throws GpuError on a CUDA
// failure, Aborted on abort.
void simplifyGrid(const grid::Dims& dims, ScalarType type, SimplexId n,
                  const SimplexId* rank, const char* keptMinimum,
                  const char* maximumSources, const char* keptMaximum,
                  const char* boundary, int maximumIterations, const Monitor& monitor,
                  void* values, SimplexId* order, char* flattened, int& iterations,
                  RunReport& report);

} // namespace topogpu::gpu
