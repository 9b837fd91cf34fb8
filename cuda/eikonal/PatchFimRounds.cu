// patchFIM's rounds from the host (PatchFimRounds.cuh).
#include "PatchFimRounds.cuh"

#include "PatchFimKernels.cuh"

#include <algorithm>

namespace topogpu::gpu::patchfim {

RoundBatches::RoundBatches(DeviceState& d, const RoundState& st,
                           const eikonal::PatchFimSettings& settings)
    : d_(d), st_(st),
      settings_(settings), solveSettings_{settings.internalIterations, settings.epsilon,
                                          settings.stopDistance, d.launch.lanes},
      batch_(d.launch.persistent ? settings.launch.chunk : 16) {}

bool RoundBatches::startsEarly(std::size_t initialCount) const {
  return d_.launch.persistent && initialCount > 0 && settings_.maxRounds > 0;
}

void RoundBatches::launch(int slot) {
  const Launch& l = d_.launch;
  const long long n = std::min<long long>(batch_, settings_.maxRounds - launched_);
  if (l.persistent)
    launchPersistentRounds(l.persistentGrid, l.threads, l.sharedBytes, d_.main.stream,
                           d_.view, st_, int(launched_ + 1), int(launched_ + n),
                           solveSettings_);
  else
    launchRounds(l.grid, l.threads, l.sharedBytes, d_.main.stream, d_.view, st_,
                 int(launched_ + 1), n, solveSettings_);
  launched_ += n;
  launchedAt_[slot] = launched_;
}

void RoundBatches::finish(int slot) {
  // The rounds' reads of the list length: the first two entries of the state's
  // page-locked transfer block.
  unsigned* const nextCount = d_.transfer.data();
  cudaCheck(
      cudaMemcpyAsync(nextCount + slot,
                      d_.launch.persistent ? st_.next : st_.count[(launched_ + 1) % 3],
                      sizeof(unsigned), cudaMemcpyDeviceToHost, d_.main.stream),
      "patchFIM: active count");
  cudaCheck(cudaEventRecord(d_.done[slot].event, d_.main.stream), "patchFIM: event");
}

RoundBatches::End RoundBatches::run(std::size_t initialCount, const Monitor& monitor) {
  End end;
  if (initialCount == 0)
    return end;
  if (settings_.maxRounds <= 0) {
    end.capped = true; // as the host twin: the cap before the first round
    end.activeAtCap = unsigned(initialCount);
    return end;
  }
  int slot = 0;
  if (!startedEarly_)
    launch(slot);
  finish(slot);
  const unsigned* const nextCount = d_.transfer.data();
  while (true) {
    // A batch is queued after `slot` unless the cap was reached with it.
    if (launchedAt_[slot] < settings_.maxRounds) {
      launch(1 - slot);
      finish(1 - slot);
    }
    cudaCheck(cudaEventSynchronize(d_.done[slot].event), "patchFIM: rounds");
    const unsigned next = nextCount[slot];
    if (next == 0)
      break;
    if (launchedAt_[slot] == settings_.maxRounds) {
      end.capped = true;
      end.activeAtCap = next;
      break;
    }
    monitor.checkAbort();
    slot = 1 - slot;
  }
  return end;
}

} // namespace topogpu::gpu::patchfim
