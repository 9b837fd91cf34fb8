// patchFIM's kept device state (PatchFimDeviceState.cuh) and the page-locked memory of
// the uploaded arrays (Patches.h: gpu::allocateUploadMemory).
#include "PatchFimDeviceState.cuh"

#include "core/eikonal/EikonalGpu.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace topogpu::gpu {

namespace {

// Pinned upload memory: below this size the C heap is as fast.
constexpr std::size_t kPinnedMinBytes = std::size_t(1) << 20;
constexpr std::size_t kHeader = 16; // keeps 16-byte alignment; byte 0: 1 when pinned
std::atomic<bool> pinningFailed{false};

std::atomic<int> liveResidents{0};

} // namespace

void* allocateUploadMemory(std::size_t bytes, bool alwaysPin) {
  const std::size_t total = bytes + kHeader;
  void* p = nullptr;
  if ((alwaysPin || bytes >= kPinnedMinBytes) &&
      !pinningFailed.load(std::memory_order_relaxed)) {
    if (cudaMallocHost(&p, total) == cudaSuccess) {
      static_cast<unsigned char*>(p)[0] = 1;
      return static_cast<unsigned char*>(p) + kHeader;
    }
    cudaGetLastError(); // no device, or no pinned memory left: the C heap
    pinningFailed.store(true, std::memory_order_relaxed);
    p = nullptr;
  }
  p = std::malloc(total);
  if (p == nullptr)
    throw std::bad_alloc();
  static_cast<unsigned char*>(p)[0] = 0;
  return static_cast<unsigned char*>(p) + kHeader;
}

void releaseUploadMemory(void* memory) noexcept {
  if (memory == nullptr)
    return;
  unsigned char* p = static_cast<unsigned char*>(memory) - kHeader;
  if (p[0] == 1)
    cudaFreeHost(p);
  else
    std::free(p);
}

int livePatchFimResidents() {
  return liveResidents.load();
}

namespace patchfim {

DeviceState::DeviceState(const eikonal::PatchArrays& a, const Launch& l)
    : arrays_(&a), np(a.patches), nv(a.patchOf.size()), slots(a.localVertices.size()),
      solveCount(a.solves.size()), readerCount(a.readers.size()), launch(l) {
  oLocalOffsets = block.reserve<std::int64_t>(std::size_t(np) + 1);
  oOwnCount = block.reserve<std::int32_t>(std::size_t(np));
  oLocalVertices = block.reserve<std::int32_t>(slots);
  oSolveOffsets = block.reserve<std::int64_t>(a.solveOffsets.size());
  oSolves = block.reserve<eikonal::PatchSolve>(solveCount);
  oReaderOffsets = block.reserve<std::int32_t>(a.readerOffsets.size());
  oReaders = block.reserve<std::int32_t>(readerCount);
  oSeed = block.reserve<std::uint8_t>(nv);
  oValueIn = block.reserve<double>(nv);
  oValueOut = block.reserve<double>(nv);
  oAnnounced = block.reserve<double>(nv);
  oLabelIn = block.reserve<SimplexId>(nv);
  oLabelOut = block.reserve<SimplexId>(nv);
  oPending = block.reserve<std::uint8_t>(nv);
  oStamp0 = block.reserve<std::int32_t>(nv);
  oStamp1 = block.reserve<std::int32_t>(nv);
  oScheduled = block.reserve<std::int32_t>(std::size_t(np));
  oList0 = block.reserve<std::int32_t>(std::size_t(np));
  oList1 = block.reserve<std::int32_t>(std::size_t(np));
  // The persistent kernel's value locations (RoundState) and ready count.
  oPatchOf = block.reserve<std::int32_t>(l.persistent ? nv : 0);
  oLocation = block.reserve<unsigned>(std::size_t(np));
  oSlotPatch = block.reserve<std::int32_t>(l.persistent ? slots : 0);
  oReady = block.reserve<unsigned>(1);
  oSmall = block.reserve<Small>(1);
  block.allocate();
  transfer.resize(kTransferCounts);
  // The download (values, then labels) and the start list's upload when it fits.
  staging.resize(nv * (sizeof(double) + sizeof(SimplexId)));

  view = PatchView{
      block.at<std::int64_t>(oLocalOffsets),  block.at<std::int32_t>(oOwnCount),
      block.at<std::int32_t>(oLocalVertices), block.at<std::int64_t>(oSolveOffsets),
      block.at<eikonal::PatchSolve>(oSolves), block.at<std::int32_t>(oReaderOffsets),
      block.at<std::int32_t>(oReaders),       block.at<std::uint8_t>(oSeed)};
  st = RoundState{};
  st.valueIn = block.at<double>(oValueIn);
  st.labelIn = block.at<SimplexId>(oLabelIn);
  st.valueOut = block.at<double>(oValueOut);
  st.labelOut = block.at<SimplexId>(oLabelOut);
  st.announced = block.at<double>(oAnnounced);
  st.pending = block.at<std::uint8_t>(oPending);
  // Device addresses inside the small state (never dereferenced here).
  const auto field = [&](std::size_t member) { return oSmall + member; };
  for (int k = 0; k < 3; ++k) {
    st.minPending[k] =
        block.at<unsigned long long>(field(offsetof(Small, minPending))) + k;
    st.count[k] = block.at<unsigned>(field(offsetof(Small, counts))) + k;
  }
  st.threshold[0] = block.at<double>(field(offsetof(Small, threshold)));
  st.threshold[1] = st.threshold[0] + 1;
  st.stamp[0] = block.at<std::int32_t>(oStamp0);
  st.stamp[1] = block.at<std::int32_t>(oStamp1);
  st.scheduled = block.at<std::int32_t>(oScheduled);
  st.list[0] = block.at<std::int32_t>(oList0);
  st.list[1] = block.at<std::int32_t>(oList1);
  st.patchOf = block.at<std::int32_t>(oPatchOf);
  st.location = block.at<unsigned>(oLocation);
  st.slotPatch = block.at<std::int32_t>(oSlotPatch);
  st.ready = block.at<unsigned>(oReady);
  st.next = block.at<unsigned>(field(offsetof(Small, next)));
  st.solves = block.at<unsigned long long>(field(offsetof(Small, counters)));
  st.patchRounds = st.solves + 1;
  st.rounds = st.solves + 2;
  liveResidents.fetch_add(1);
}

DeviceState::~DeviceState() {
  drain();
  liveResidents.fetch_sub(1);
}

// Made for these arrays (the same object and sizes) and these launch settings.
bool DeviceState::serves(const eikonal::PatchArrays& a, const Launch& l) const {
  return arrays_ == &a && np == a.patches && nv == a.patchOf.size() &&
         slots == a.localVertices.size() && solveCount == a.solves.size() &&
         readerCount == a.readers.size() && launch == l;
}

// Waits for everything queued on the streams (before memory they use is released or
// rewritten; errors are left to the next check).
void DeviceState::drain() noexcept {
  cudaStreamSynchronize(main.stream);
  cudaStreamSynchronize(copies.stream);
  cudaGetLastError();
}

// Room for a start list of `count` entries (a new allocation when it grows; nothing
// queued reads the old one: every run ends synchronized).
void DeviceState::reserveFixed(std::size_t count) {
  if (count <= fixedCapacity)
    return;
  const std::size_t capacity = std::max({count, 2 * fixedCapacity, std::size_t(4096)});
  fixedBlock.reset();
  auto grown = std::make_unique<DeviceBlock>();
  oFixedVertex = grown->reserve<std::int64_t>(capacity);
  oFixedValue = grown->reserve<double>(capacity);
  oFixedLabel = grown->reserve<SimplexId>(capacity);
  grown->allocate();
  fixedBlock = std::move(grown);
  fixedCapacity = capacity;
}

void DeviceState::put(std::size_t offset, const void* data, std::size_t bytes,
                      cudaStream_t stream) const {
  if (bytes > 0)
    cudaCheck(cudaMemcpyAsync(block.at<unsigned char>(offset), data, bytes,
                              cudaMemcpyHostToDevice, stream),
              "patchFIM: upload");
}

DeviceState& keepDeviceState(std::unique_ptr<PatchFimResident>& resident,
                             const eikonal::PatchArrays& arrays, const Launch& launch) {
  auto* kept = dynamic_cast<DeviceState*>(resident.get());
  if (kept == nullptr || !kept->serves(arrays, launch)) {
    resident.reset(); // its device memory first
    auto made = std::make_unique<DeviceState>(arrays, launch);
    kept = made.get();
    resident = std::move(made);
  }
  return *kept;
}

} // namespace patchfim

} // namespace topogpu::gpu
