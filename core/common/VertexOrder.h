// The global vertex order shared by every algorithm: vertices sorted by scalar value,
// ties broken by vertex index (simulation of simplicity). order[v] is v's rank.
#pragma once

#include "ScalarArray.h"
#include "Types.h"

namespace topogpu {

// CPU path: TBB parallel sort.
void computeVertexOrderCpu(const ScalarArrayView& values, SimplexId* order);

// Runs on the backend the request resolves to (see resolveBackend) and records it in
// report; the GPU and CPU paths give identical orders.
void computeVertexOrder(const ScalarArrayView& values, SimplexId* order, Backend backend,
                        RunReport& report);

} // namespace topogpu
