// The tuning and test knobs that every front end reads from the environment (the CLI, the
// VTK filters, the GPU test driver), read here once for all of them: the algorithms
// (core/, cuda/) never read the environment; they take these values through their
// Parameters or, for the process-wide ones, a setter. docs/developing.md ("Tuning and
// test hooks") lists every variable, those one front end reads itself included.
#pragma once

#include "core/eikonal/Eikonal.h"

#include <cstddef>
#include <optional>

namespace topogpu::frontend {

// The process-wide knobs, set (or cleared) as the environment holds them now:
//  - TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES: a byte count caps the device memory every run
//    plans with (setDeviceMemoryBudgetCap); anything else is ignored;
//  - TOPOGPU_TEST_GPU_FAULT=<stage>: that GPU stage fails with a real CUDA out-of-memory
//    error mid-run (gpu::setInjectedFault), for the fallback tests.
void applyProcessKnobs();

// The device patchFIM's launch (eikonal::PatchFimLaunch) from TOPOGPU_PATCHFIM_LAUNCH
// (rounds, persistent or auto), TOPOGPU_PATCHFIM_BLOCKS_PER_SM (1-64),
// TOPOGPU_PATCHFIM_LANES (1, 2, 4 or 8) and TOPOGPU_PATCHFIM_CHUNK (1-2^20); unset or
// empty: the default. A malformed value is an Error naming the variable and the value.
eikonal::PatchFimLaunch patchFimLaunchFromEnvironment();

// TOPOGPU_RIPS_BOUND_EVERY_COLUMN set (any value): rips_persistence's boundEveryColumn.
bool ripsBoundEveryColumnFromEnvironment();

// TOPOGPU_SEPARATRICES2_MAX_CELLS: a positive integer (digits only) lowers the
// 2-separatrices' cell limit of the Morse-Smale complex; anything else: none.
std::optional<std::size_t> separatrices2MaxCellsFromEnvironment();

// TOPOGPU_WHOLE_DOMAIN_MEMORY_BYTES, when set: the memory rank 0 may use to gather a
// distributed input (read as a number, strtod), instead of the host's available memory.
std::optional<double> wholeDomainMemoryFromEnvironment();

} // namespace topogpu::frontend
