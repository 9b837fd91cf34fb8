#pragma once

#include "core/discrete_gradient/CubicalGrid.h"

#include <cstdint>
#include <vector>

namespace topogpu::gpu {

// Stage 3 of the Morse-Smale complex on the device (see
// core/morse_smale_complex/SaddleConnections.h): frontier BFS with stream compaction
// from all 1-saddles, the DAG minor by contracting simple paths, and path counting by
// cuSPARSE SpGEMM. Returns the nonzeros of the 1-saddle x 2-saddle count matrix (rows:
// positions in saddles1, columns: positions in saddles2), sorted by (row, column);
// stats = {reached nodes, junctions, minor edges}. cuSPARSE multiplies in double: every
// entry is checked against 2^53 after each product (below it, double sums of
// non-negative integers are exact); above it the run throws GpuError, so that
// runWithFallback recounts on the CPU in exact checked 64-bit arithmetic. Throws
// GpuError on a CUDA/cuSPARSE failure, Error on a corrupt gradient, Aborted on abort.
void computeSaddleConnections(const cubical::Grid& grid,
                              const std::vector<std::uint8_t>& gradient,
                              const std::vector<SimplexId>& saddles1,
                              const std::vector<SimplexId>& saddles2,
                              const Monitor& monitor, std::vector<SimplexId>& rows,
                              std::vector<SimplexId>& cols,
                              std::vector<std::uint64_t>& values, SimplexId stats[3],
                              int& iterations, RunReport& report);

} // namespace topogpu::gpu
