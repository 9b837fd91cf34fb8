// The elder rule's rounds on the GPU (cuda/morse_smale_complex/ElderRoundsGpu.cu): the
// twin of elderPairs (ElderRounds.h), the same kills; the edges left after the rounds
// finish in the host's serial sweep.
#pragma once

#include "core/morse_smale_complex/ElderRounds.h"

#include <vector>

namespace topogpu::gpu {

// Throws GpuError on a CUDA failure (runWithFallback reruns on the CPU), Error for an
// end that is not a node.
void elderPairs(const morse_smale_complex::ElderGraph& graph,
                const morse_smale_complex::ElderSchedule& schedule,
                std::vector<SimplexId>& younger, morse_smale_complex::ElderStats& stats);

} // namespace topogpu::gpu
