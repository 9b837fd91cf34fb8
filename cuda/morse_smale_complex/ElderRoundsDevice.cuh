// The elder rule's rounds (core/morse_smale_complex/ElderRounds.h) on arrays already on
// the device: the persistence diagram's pipeline (SimplicialMorseSmaleComplexGpu.cu) runs
// them where it made the saddles' path ends, gpu::elderPairs after an upload.
#pragma once

#include "core/morse_smale_complex/ElderRounds.h"

#include <thrust/device_vector.h>

#include <vector>

namespace topogpu::gpu {

// ends: 2 per edge, each a node below nodes (the caller checks); skip: 1 per edge, or
// empty. younger (host) receives the kills; the edges left after the rounds finish in
// the host's serial sweep. Throws GpuError on a CUDA failure.
void elderRoundsOnDevice(const thrust::device_vector<SimplexId>& ends, SimplexId nodes,
                         const thrust::device_vector<char>& skip,
                         const morse_smale_complex::ElderSchedule& schedule,
                         std::vector<SimplexId>& younger,
                         morse_smale_complex::ElderStats& stats);

} // namespace topogpu::gpu
