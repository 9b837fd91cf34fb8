// The elder rule's rounds on the GPU (cuda/persistence_diagram/ElderRoundsGpu.cu): the
// twin of elderPairs (ElderRounds.h), the same kills; the edges left after the rounds
// finish in the host's serial sweep.
#pragma once

#include "core/persistence_diagram/ElderRounds.h"

#include <vector>

namespace topogpu::gpu {

// Throws GpuError on a CUDA failure (runWithFallback reruns on the CPU), Error for an
// end that is not a node.
void elderPairs(const persistence_diagram::ElderGraph& graph,
                const persistence_diagram::ElderSchedule& schedule,
                std::vector<SimplexId>& younger, persistence_diagram::ElderStats& stats);

} // namespace topogpu::gpu
