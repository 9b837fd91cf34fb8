// Device-level pieces of the discrete gradient, for the GPU pipelines that keep the
// gradient on the device (the Morse-Smale complex): CUDA translation units only.
#pragma once

#include "core/discrete_gradient/CubicalGrid.h"

#include <thrust/device_vector.h>

#include <array>
#include <cstdint>

namespace topogpu::gpu {

// One thread per vertex: its lower star (cubical::processLowerStar) into gradient
// (device, cubical::cellCount bytes, initialised to kUnassigned).
void launchLowerStars(const cubical::Grid& grid, SimplexId n, const SimplexId* order,
                      std::uint8_t* gradient);

// The critical cells of each dimension, ascending refined ids, compacted on the device.
void compactCriticalCells(const cubical::Grid& grid, const std::uint8_t* gradient,
                          std::array<thrust::device_vector<SimplexId>, 4>& lists);

} // namespace topogpu::gpu
