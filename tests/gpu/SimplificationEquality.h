// gpu_equality's cases for the topological simplification: the device's sweeps against
// the CPU's, bit for bit.
#pragma once

#include "tests/gpu/SimplicialEquality.h"

#include <string>

namespace topogpu::test {

// Synthetic grids, then the raw volumes of volumeFolder (none when empty); injectFaults:
// also the CPU fallback after a CUDA failure in each sweep stage.
void simplificationEquality(const std::string& volumeFolder, bool injectFaults,
                            EqualityChecks& checks);

} // namespace topogpu::test
