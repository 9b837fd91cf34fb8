// The simplicial Morse-Smale complex of an implicit grid on the device: its gradient and
// the per-element stages that follow it, with host types only.
#pragma once

#include "base/ScalarArray.h"
#include "core/discrete_gradient/DiscreteGradientGpu.h"

#include <vector>

namespace topogpu::gpu {

// The two V-path forests of the simplicial gradient, rooted by pointer jumping:
// minimumOf[v] is the index (in the critical vertices, ascending) of the minimum v's
// descending path reaches; topRoot[c], for top cell c, the critical top cell (a maximum)
// its ascending path reaches, or -1 - f when it leaves through boundary facet f (the
// CPU's jumpToRoots over ascendingSuccessor).
struct SimplicialGridForests {
  std::vector<SimplexId> minimumOf, topRoot;
};

// The gradient as computeSimplicialGradient (order receives the vertex order), then the
// forests of its V-paths (simplicial::gridDescendingSuccessor and
// gridAscendingSuccessor, the CPU grid path's functions), on the device. Progress 0..1.
// Throws GpuError on a CUDA failure, Error on a corrupt gradient, Aborted on abort.
void computeSimplicialGridForests(
    const discrete_gradient::simplicial::GridSimplices& grid,
    const ScalarArrayView& values, const Monitor& monitor,
    SimplicialGradientArrays& gradient, std::vector<SimplexId>& order,
    SimplicialGridForests& forests, RunReport& report);

} // namespace topogpu::gpu
