#include "SolverChoice.h"

#include <algorithm>
#include <cmath>

namespace topogpu::eikonal {

namespace {

// meshFIM-MT: single-thread seconds per vertex and the parallel efficiency exponent,
// fitted to the meshFIM-MT rows of docs/benchmarks.md (constant and random speed,
// regular, irregular and spherical meshes).
constexpr double kFimSecondsPerVertex = 1.4e-6;
constexpr double kFimThreadExponent = 0.85;
// The patches (partition and cell-assembly arrays, Patches.cpp): a serial part (the
// breadth-first search and growth, the prefix sums) and a parallel one.
constexpr double kPatchSerialSecondsPerVertex = 1.0e-7;
constexpr double kPatchParallelSecondsPerVertex = 8.0e-7;
// patchFIM on the device: the upload and download (per vertex), the rounds (about
// sqrt(n) of them, plus the solves' throughput) and the launch overheads; the measured
// values are listed with the model in docs/filters/geodesic-distance.md.
constexpr double kUploadSecondsPerVertex = 4.5e-9;
constexpr double kDownloadSecondsPerVertex = 1.5e-9;
constexpr double kRoundSeconds = 1.2e-5;
constexpr double kRoundsPerSqrtVertex = 0.8;
constexpr double kSolveSecondsPerVertex = 2.0e-9;
constexpr double kGpuFixedSeconds = 1.0e-3;

} // namespace

AutoCosts estimateAutoCosts(const AutoInputs& inputs) {
  const double n = double(std::max<SimplexId>(inputs.vertices, 0));
  const double threads = double(std::max(inputs.cpuThreads, 1));
  AutoCosts costs;
  costs.cpu = n * kFimSecondsPerVertex / std::pow(threads, kFimThreadExponent);
  const double patches = inputs.patchesReady
                             ? 0.0
                             : n *
                                   (kPatchSerialSecondsPerVertex +
                                    kPatchParallelSecondsPerVertex / threads) /
                                   double(1 + std::max(inputs.reruns, 0));
  const double rounds = kRoundsPerSqrtVertex * std::sqrt(n) * kRoundSeconds;
  costs.gpu =
      std::max(inputs.deviceReadyIn, 0.0) + patches + kGpuFixedSeconds +
      n * (kUploadSecondsPerVertex + kSolveSecondsPerVertex + kDownloadSecondsPerVertex) +
      rounds;
  return costs;
}

} // namespace topogpu::eikonal
