// patchFIM's kernels (PatchFimKernels.cu: Algorithms 2.3-2.5 of Fu et al. 2011 on the
// device, as runPatchFimHost does them through PatchRound.h) and the device data they
// read: the patch tables (PatchView) and the per-round state (RoundState). The kernels
// are launched through the host functions below, so that only their file sees them.
#pragma once

#include "base/Types.h"
#include "core/eikonal/PatchSolve.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace topogpu::gpu::patchfim {

struct PatchView {
  const std::int64_t* localOffsets;
  const std::int32_t* ownCount;
  const std::int32_t* localVertices;
  const std::int64_t* solveOffsets;
  const eikonal::PatchSolve* solves;
  const std::int32_t* readerOffsets;
  const std::int32_t* readers;
  const std::uint8_t* seed;
};

// The per-round state: values and labels twice (the paper's VAL_in / VAL_out), the
// vertices' round stamps twice (read the previous round's, write this round's), the
// announced values, the patches' schedule stamps, two worklists and three counts.
//
// Where the values are. The multi-launch rounds write a round's values to valueOut and
// copy them to valueIn in a second kernel (publish). The persistent kernel skips that
// copy and its grid-wide barrier: each patch keeps its own vertices' latest values in
// one of the two arrays, location[p] = (the round p last ran in) * 2 + (that array),
// and a round writes to the other one. A patch loading a halo vertex u of patch q in
// round r reads the array of location[q], or the other one when q already ran in round
// r (it rewrote location[q] meanwhile): either way the values at the end of round r-1,
// which nobody writes during round r. So a round reads exactly what the multi-launch
// round reads, whatever the timing.
struct RoundState {
  double* valueIn; // value[0]
  SimplexId* labelIn;
  double* valueOut; // value[1]
  SimplexId* labelOut;
  std::int32_t* patchOf;   // per vertex (persistent kernel only)
  std::int32_t* slotPatch; // per local slot: patchOf its vertex (persistent kernel only)
  unsigned* location;      // per patch (persistent kernel only)
  // Patches [0, *ready) have their tables on the device (persistent kernel only: the
  // staged upload goes on while it runs).
  const unsigned* ready;
  double* announced;
  std::uint8_t* pending;
  unsigned long long* minPending[3]; // as the bits of non-negative doubles
  double* threshold[2];
  double band;
  std::int32_t* stamp[2];
  std::int32_t* scheduled;
  std::int32_t* list[2];
  unsigned* count[3];
  unsigned* next; // the persistent kernel's: the list length after its last round
  unsigned long long* solves;
  unsigned long long* patchRounds;
  unsigned long long* rounds;
};

struct SolveSettings {
  int internalIterations;
  double epsilon;
  double stopDistance;
  int lanes; // threads per own vertex: 1, 2, 4 or 8
};

// +inf as the bits of a double: above those of every non-negative double.
constexpr unsigned long long kInfBits = 0x7ff0000000000000ull;

// The dynamic shared memory of a block of either round kernel (the local table).
void setRoundSharedMemory(std::size_t sharedBytes);
// Blocks of the persistent kernel (else the multi-launch round kernel) resident per
// multiprocessor with `threads` threads and sharedBytes of shared memory.
int roundBlocksPerSm(bool persistentKernel, int threads, std::size_t sharedBytes);

// Rounds first .. first + count - 1 by the multi-launch path: two launches per round
// (the round's patches, then the publish of their values and the next threshold).
void launchRounds(unsigned grid, int threads, std::size_t sharedBytes,
                  cudaStream_t stream, const PatchView& patches, const RoundState& st,
                  int first, long long count, const SolveSettings& s);
// Rounds first .. last in one cooperative launch of `grid` resident blocks (ending
// early when the list runs empty).
void launchPersistentRounds(unsigned grid, int threads, std::size_t sharedBytes,
                            cudaStream_t stream, const PatchView& patches,
                            const RoundState& st, int first, int last,
                            const SolveSettings& s);

// The per-vertex state before a run: every vertex cleared, then the start list
// (vertex, value, label; count entries) scattered, so nothing per vertex is uploaded.
void launchClearState(std::uint8_t* seed, std::size_t n, const RoundState& st,
                      cudaStream_t stream);
void launchFixedState(const std::int64_t* vertex, const double* value,
                      const SimplexId* label, std::size_t count, std::uint8_t* seed,
                      const RoundState& st, cudaStream_t stream);
// After the persistent rounds: every vertex's latest value and label into valueIn.
void launchGather(const RoundState& st, std::size_t n, cudaStream_t stream);

} // namespace topogpu::gpu::patchfim
