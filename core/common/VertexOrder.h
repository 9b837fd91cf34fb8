// The global vertex order shared by every algorithm: vertices sorted by scalar value,
// ties broken by vertex index (simulation of simplicity). order[v] is v's rank.
#pragma once

#include "base/ScalarArray.h"
#include "base/Types.h"

namespace topogpu {

// CPU path: counting sort (8/16-bit values) or TBB parallel sort. Reports progress
// 0..1 between its stages and throws Aborted when monitor asks.
void computeVertexOrderCpu(const ScalarArrayView& values, SimplexId* order,
                           const Monitor& monitor = Monitor{});

// Runs on the backend the request resolves to (see resolveBackend) and records it in
// report; a GPU failure falls back to the CPU with a warning (runWithFallback). The GPU
// and CPU paths give identical orders.
void computeVertexOrder(const ScalarArrayView& values, SimplexId* order, Backend backend,
                        RunReport& report, const Monitor& monitor = Monitor{});

} // namespace topogpu
