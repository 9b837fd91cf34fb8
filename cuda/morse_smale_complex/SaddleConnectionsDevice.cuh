// Stage 3 on a gradient already on the device (the Morse-Smale complex's GPU pipeline):
// CUDA translation units only. Same contract as computeSaddleConnections
// (SaddleConnectionsGpu.h), without the upload; CUDA failures surface as thrust or CUDA
// errors for the caller's translateCudaFailures.
#pragma once

#include "base/Types.h"
#include "core/discrete_gradient/CubicalGrid.h"
#include "core/morse_smale_complex/SaddleConnections.h"

#include <thrust/device_vector.h>

#include <cstdint>
#include <vector>

namespace topogpu::gpu {

void computeSaddleConnectionsOnDevice(const cubical::Grid& grid, const std::uint8_t* grad,
                                      const thrust::device_vector<SimplexId>& saddles1,
                                      const thrust::device_vector<SimplexId>& saddles2,
                                      const Monitor& monitor,
                                      saddle_connections::SaddleConnections& out,
                                      RunReport& report);

} // namespace topogpu::gpu
