#pragma once

#include "core/discrete_gradient/CubicalGrid.h"
#include "core/morse_smale_complex/SaddleConnections.h"

#include <cstdint>
#include <vector>

namespace topogpu::gpu {

// Stage 3 of the Morse-Smale complex on the device (see
// core/morse_smale_complex/SaddleConnections.h and docs/saddle-connections.md): frontier
// BFS with stream compaction from all 1-saddles, the DAG minor by contracting simple
// paths, and path counts merged row by row in Kahn's order of the minor, in exact 64-bit
// integers. Fills out (arcs sorted by (saddle1, saddle2), their checked multiplicity sum,
// the minor's statistics). Throws GpuError on a CUDA failure, Error on a corrupt
// gradient or a multiplicity overflow, Aborted on abort.
void computeSaddleConnections(const cubical::Grid& grid,
                              const std::vector<std::uint8_t>& gradient,
                              const std::vector<SimplexId>& saddles1,
                              const std::vector<SimplexId>& saddles2,
                              const Monitor& monitor,
                              saddle_connections::SaddleConnections& out,
                              RunReport& report);

} // namespace topogpu::gpu
