#pragma once

#include "core/morse_smale_complex/MorseSmaleComplex.h"

namespace topogpu::gpu {

// The whole grid Morse-Smale complex on the device (morse_smale_complex::detail::runGpu):
// vertex order, discrete gradient, critical cells, the roots of the three gradient
// forests by pointer jumping, labels (ManifoldLabels.h) and saddle-extremum path ends,
// then the saddle connections on the same device gradient. Only the results come back
// (critical cells, labels, arcs, the gradient bytes for tracing separatrices). Fills out
// (timings, peak device memory and backend in out.report). Throws GpuError on a CUDA
// failure (the caller reruns on the CPU), Error on a corrupt gradient or a multiplicity
// overflow, Aborted on abort. With keepVertexOrder the vertex order comes back too
// (out.rank).
void computeMorseSmaleComplex(const cubical::Grid& grid, const ScalarArrayView& values,
                              bool saddleConnections, bool keepVertexOrder,
                              const Monitor& monitor, morse_smale_complex::Output& out);

} // namespace topogpu::gpu
