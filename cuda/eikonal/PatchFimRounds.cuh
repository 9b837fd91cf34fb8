// patchFIM's rounds from the host (PatchFimRounds.cu): the active-patch list's rounds
// queued in batches on the main stream, the list's length read back after each, the
// Monitor checked and the round cap applied between them.
#pragma once

#include "PatchFimDeviceState.cuh"
#include "base/Types.h"
#include "core/eikonal/Patches.h"

#include <cstddef>

namespace topogpu::gpu::patchfim {

// Both schemes go out in batches, each followed by an asynchronous read of the next
// list's length into pinned memory; the host queues the next batch before waiting for
// the previous one's length, so the device never idles for the host, and checks the
// Monitor's abort between batches.
//  - rounds: 16 rounds of two launches each (the round's patches, the publish); rounds
//    after the list ran empty do nothing (zero count) and are not counted.
//  - persistent: one cooperative launch runs up to settings.launch.chunk (128) rounds,
//    one grid-wide barrier each, the end detected on the device. Chunks rather than a
//    kernel polling a pinned abort flag: the Monitor may only be called from this
//    thread, so the host would have to spin on it anyway, and the flag (mapped host
//    memory) would put a PCIe read (about a microsecond) on every round's critical
//    path, read by every block or broadcast through an extra barrier so that all
//    blocks stop in the same round. A chunk boundary costs one launch (a few
//    microseconds, hidden as the next chunk is already queued) per 128 rounds and
//    delays an abort by at most a chunk (a few milliseconds). A chunk queued after the
//    run ended returns at once.
class RoundBatches {
public:
  // st: d.st with this run's band.
  RoundBatches(DeviceState& d, const RoundState& st,
               const eikonal::PatchFimSettings& settings);

  // The first persistent batch is launched before the staged upload is queued and
  // finished (run) after, so that the rounds start as soon as the main stream's uploads
  // are done, and no call that may block (a read into pageable memory, when pinning
  // failed) comes before every copy the rounds wait for is queued.
  bool startsEarly(std::size_t initialCount) const;
  void launchFirst() {
    launch(0);
    startedEarly_ = true;
  }

  struct End {
    bool capped = false;      // the round cap stopped the rounds
    unsigned activeAtCap = 0; // the patches listed then
  };
  // The rounds until the list runs empty or the cap (after launchFirst when
  // startsEarly); throws Aborted on abort.
  End run(std::size_t initialCount, const Monitor& monitor);

private:
  void launch(int slot); // queues a batch
  void finish(int slot); // queues the read of its list length and its event

  DeviceState& d_;
  RoundState st_;
  const eikonal::PatchFimSettings& settings_;
  SolveSettings solveSettings_;
  long long batch_;
  long long launched_ = 0, launchedAt_[2] = {0, 0};
  bool startedEarly_ = false;
};

} // namespace topogpu::gpu::patchfim
