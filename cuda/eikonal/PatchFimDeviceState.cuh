// What patchFIM keeps on the device between runs on one PatchArrays (DeviceState, the
// PatchFimResident a Preparation holds): the patch tables, the per-vertex and per-patch
// state, the start list, the streams and events, and the page-locked transfer and
// staging blocks, with the small device-memory tools they are made of.
#pragma once

#include "PatchFimKernels.cuh"
#include "PatchFimLaunch.cuh"
#include "core/eikonal/Patches.h"
#include "cuda/common/CudaCheck.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace topogpu::gpu::patchfim {

// The transfer block (DeviceState::transfer, page-locked): the two list lengths, the
// staged upload's ready counts (one per chunk), then the run's three 64-bit counters
// (8-byte aligned: the block is).
constexpr std::int32_t kReadyCounts = 32;
constexpr std::size_t kTransferTotals = 2 + kReadyCounts;
constexpr std::size_t kTransferCounts = kTransferTotals + 6;
static_assert(kTransferTotals % 2 == 0, "the counters are 8-byte aligned");

struct Event {
  cudaEvent_t event = nullptr;
  Event() {
    cudaCheck(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
              "patchFIM: event");
  }
  ~Event() { cudaEventDestroy(event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

struct Stream {
  cudaStream_t stream = nullptr;
  Stream() {
    cudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
              "patchFIM: stream");
  }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// Device arrays in one allocation (one cudaMalloc instead of one per array; each
// allocation of this size costs tens to hundreds of microseconds).
class DeviceBlock {
public:
  // Reserves n elements of T (at least one, so every pointer is valid); returns the
  // offset, turned into a pointer by at() once allocate() ran.
  template <typename T> std::size_t reserve(std::size_t n) {
    const std::size_t at = (bytes_ + 255) / 256 * 256;
    bytes_ = at + std::max<std::size_t>(n, 1) * sizeof(T);
    return at;
  }
  void allocate() { cudaCheck(cudaMalloc(&base_, bytes_), "patchFIM: device memory"); }
  template <typename T> T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(base_) + offset);
  }
  DeviceBlock() = default;
  ~DeviceBlock() {
    if (base_ != nullptr)
      cudaFree(base_);
  }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;

private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
};

// The small state, set by one copy per run: minPending[3], counters[3] (solves,
// patch-rounds, rounds), threshold[2], counts[3], next.
struct Small {
  unsigned long long minPending[3];
  unsigned long long counters[3];
  double threshold[2];
  unsigned counts[3];
  unsigned next;
};

// What solvePatchFim keeps between runs on one PatchArrays (PatchFimResident): one
// device allocation holding the patch tables (uploaded by the first run, read by every
// later one) and the per-vertex and per-patch state (set again by each run's kernels
// from the start list), a growable one for the start list, the streams and events, and
// the page-locked transfer and staging blocks (a cudaMallocHost costs as much as the
// rest of a million-vertex upload).
class DeviceState final : public PatchFimResident {
public:
  DeviceState(const eikonal::PatchArrays& a, const Launch& l);
  ~DeviceState() override;

  // Made for these arrays (the same object and sizes) and these launch settings.
  bool serves(const eikonal::PatchArrays& a, const Launch& l) const;

  // Waits for everything queued on the streams (before memory they use is released or
  // rewritten; errors are left to the next check).
  void drain() noexcept;

  // Room for a start list of `count` entries (a new allocation when it grows; nothing
  // queued reads the old one: every run ends synchronized).
  void reserveFixed(std::size_t count);

  // Queues the copy of `bytes` bytes from data to the block's `offset` on `stream`.
  void put(std::size_t offset, const void* data, std::size_t bytes,
           cudaStream_t stream) const;

private:
  const eikonal::PatchArrays* arrays_;

public:
  const std::int32_t np;
  const std::size_t nv, slots, solveCount, readerCount;
  const Launch launch;
  Stream main, copies;
  Event copied, readyZero, done[2];
  DeviceBlock block;
  std::size_t oLocalOffsets = 0, oOwnCount = 0, oLocalVertices = 0, oSolveOffsets = 0,
              oSolves = 0, oReaderOffsets = 0, oReaders = 0, oSeed = 0, oValueIn = 0,
              oValueOut = 0, oAnnounced = 0, oLabelIn = 0, oLabelOut = 0, oPending = 0,
              oStamp0 = 0, oStamp1 = 0, oScheduled = 0, oList0 = 0, oList1 = 0,
              oPatchOf = 0, oLocation = 0, oSlotPatch = 0, oReady = 0, oSmall = 0;
  std::unique_ptr<DeviceBlock> fixedBlock;
  std::size_t fixedCapacity = 0, oFixedVertex = 0, oFixedValue = 0, oFixedLabel = 0;
  PatchView view{};
  RoundState st{};
  eikonal::PinnedVector<unsigned> transfer;
  eikonal::PinnedVector<unsigned char> staging;
  // The tables' upload was queued by an earlier run (it completed: runs end
  // synchronized), so they are on the device and the ready count is np.
  bool tablesUp = false;
};

// The device state kept in `resident` when it was made for these arrays and launch
// settings, else a new one (the old one's device memory released first).
DeviceState& keepDeviceState(std::unique_ptr<PatchFimResident>& resident,
                             const eikonal::PatchArrays& arrays, const Launch& launch);

} // namespace topogpu::gpu::patchfim
