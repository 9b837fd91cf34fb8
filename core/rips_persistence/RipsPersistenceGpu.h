// The GPU backend of Rips persistence (CUDA-free header; a CUDA-free build links
// cuda/GpuStubs.cpp): the distances of a point cloud and, per dimension >= 1, the
// columns with clearing and the apparent pairs on the device (RipsBatching.h's driver);
// the reduction of what is left stays on the CPU (core/rips_persistence).
#pragma once

#include "core/rips_persistence/RipsPersistence.h"

#include <memory>
#include <vector>

namespace topogpu::gpu {

// Uploads the graph (dense matrix or CSR lists) and the binomial table; the builder
// plans its batches within `budget` bytes (its uploads included) and frees everything it
// allocated when destroyed. Throws GpuError on a CUDA failure (the
// caller reruns on the CPU), Aborted on abort (checked between batches).
std::unique_ptr<rips_persistence::ColumnBuilder>
makeRipsColumnBuilder(const rips_persistence::RipsGraph& graph, std::size_t budget,
                      const Monitor& monitor, RunReport& report);

// The lower-triangular Euclidean distance matrix of n points (row-major, dim
// coordinates) computed on the device: double sums without FMA contraction, one IEEE
// square root, one rounding to float, so every entry is the CPU's. Throws GpuError (out
// of memory when the matrix and the points exceed `budget` bytes).
void ripsPointDistances(const std::vector<double>& points, SimplexId n, int dim,
                        std::size_t budget, std::vector<float>& lower, RunReport& report);

} // namespace topogpu::gpu
