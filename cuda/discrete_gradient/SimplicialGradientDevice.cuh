// Device-level pieces of the simplicial discrete gradient of implicit grids, for the GPU
// pipelines that keep the gradient on the device (the simplicial Morse-Smale complex):
// CUDA translation units only.
#pragma once

#include "core/discrete_gradient/DiscreteGradientGpu.h"
#include "core/discrete_gradient/GridSimplicialLowerStar.h"

#include <thrust/device_vector.h>

#include <array>
#include <cstdint>

namespace topogpu::gpu {

// The gradient's bytes per dimension on the device (simplexCount(grid, d) each; none for
// dimension 3 in 2D).
struct DeviceSimplicialGradient {
  std::array<thrust::device_vector<std::uint8_t>, 4> bytes;
  discrete_gradient::simplicial::GradientBytes pointers();
};

// One thread per vertex: its lower star (simplicial::processGridLowerStar) into
// gradient, whose bytes are allocated here and start as kUnassigned. rank: the vertex
// order on the device.
void computeGridSimplicialGradient(
    const discrete_gradient::simplicial::GridSimplices& grid, const SimplexId* rank,
    DeviceSimplicialGradient& gradient);

// The ids of dimension d's simplices whose byte is `code`, ascending, compacted with
// CUB's DeviceSelect.
void selectSimplices(const thrust::device_vector<std::uint8_t>& bytes, std::uint8_t code,
                     thrust::device_vector<SimplexId>& ids);

// Each simplex's highest vertex in the order (rank), parallel to ids.
void highestVertices(const discrete_gradient::simplicial::GridSimplices& grid,
                     int dimension, const thrust::device_vector<SimplexId>& ids,
                     const SimplexId* rank, thrust::device_vector<SimplexId>& vertices);

// The vertex order (rank, resized here), the gradient and its critical simplices with
// their highest vertices (downloaded into out; the bytes stay in gradient), with
// progress 0..1 and the stages' timings: computeSimplicialGradient's device part.
void gradientOnDevice(const discrete_gradient::simplicial::GridSimplices& grid,
                      const ScalarArrayView& values, const Monitor& monitor,
                      thrust::device_vector<SimplexId>& rank,
                      DeviceSimplicialGradient& gradient, SimplicialGradientArrays& out,
                      RunReport& report);

// The bytes into out.gradient, freeing the device's.
void downloadGradient(DeviceSimplicialGradient& gradient, SimplicialGradientArrays& out);

} // namespace topogpu::gpu
