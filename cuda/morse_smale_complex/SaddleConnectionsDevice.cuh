// Stage 3 on a gradient already on the device (the Morse-Smale complexes' GPU pipelines):
// CUDA translation units only. CUDA failures surface as thrust or CUDA errors for the
// caller's translateCudaFailures.
#pragma once

#include "base/Types.h"
#include "core/discrete_gradient/CubicalGrid.h"
#include "core/discrete_gradient/GridSimplices.h"
#include "core/morse_smale_complex/SaddleConnections.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplexGpu.h"

#include <thrust/device_vector.h>

#include <cstdint>
#include <vector>

namespace topogpu::gpu {

// The pipeline of docs/saddle-connections.md on the DAG Graph describes
// (SaddleConnectionsGraph.h's CubicalGridGraph, SimplicialSaddleGraph.h's
// SimplicialGridGraph; instantiated for those two): s1 and s2 are the saddles' node ids,
// ascending. Leaves the arcs on the device in (saddle1, saddle2) order with the saddles'
// cell ids (Graph::cellId), their counts exact, and the minor's statistics in stats;
// returns true (arcs left empty) when a count passed 2^64 - 1: every count is a lower
// bound of some 1-saddle's (each node is reached from one), so that is exactly when an
// arc's multiplicity does. Throws Error for a closed V-path, Aborted on abort.
template <typename Graph>
bool saddleArcsOnDevice(const Graph& graph, const thrust::device_vector<SimplexId>& s1,
                        const thrust::device_vector<SimplexId>& s2,
                        const Monitor& monitor,
                        thrust::device_vector<saddle_connections::Arc>& arcs,
                        saddle_connections::SaddleConnections& stats, RunReport& report);

// The cubical complex's: computeSaddleConnections' contract (SaddleConnectionsGpu.h)
// without the upload.
void computeSaddleConnectionsOnDevice(const cubical::Grid& grid, const std::uint8_t* grad,
                                      const thrust::device_vector<SimplexId>& saddles1,
                                      const thrust::device_vector<SimplexId>& saddles2,
                                      const Monitor& monitor,
                                      saddle_connections::SaddleConnections& out,
                                      RunReport& report);

// The simplicial complex's (implicit grids, 3D) on its gradient's edge and triangle
// bytes on the device, the saddles (edge and triangle ids, ascending) on the host: out
// as SimplicialGridConnections says, the stage timed as "saddle connections (gpu)".
void simplicialSaddleConnectionsOnDevice(
    const discrete_gradient::simplicial::GridSimplices& grid,
    const std::uint8_t* edgeBytes, const std::uint8_t* triangleBytes,
    const std::vector<SimplexId>& saddles1, const std::vector<SimplexId>& saddles2,
    const Monitor& monitor, SimplicialGridConnections& out, RunReport& report);

} // namespace topogpu::gpu
