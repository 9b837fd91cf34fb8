// patchFIM's upload (PatchFimUpload.cuh).
#include "PatchFimUpload.cuh"

#include "PatchFimKernels.cuh"

#include <algorithm>
#include <cstring>
#include <utility>

namespace topogpu::gpu::patchfim {

namespace {

// The start list (FixedVertices) into the device's start block, then scattered into
// the per-vertex state (launchFixedState).
void uploadFixed(DeviceState& d, const RoundState& st,
                 const eikonal::FixedVertices& fixed, std::uint8_t* seedFlags) {
  const std::size_t fixedCount = fixed.vertex.size();
  if (fixedCount == 0)
    return;
  cudaStream_t mainStream = d.main.stream;
  d.reserveFixed(fixedCount);
  DeviceBlock& list = *d.fixedBlock;
  // Through the page-locked staging block when it holds the list (it is idle until
  // the download, which the main stream orders after these copies); else from the
  // pageable vectors, each copy returning once its bytes are staged by the driver.
  const std::size_t vertexBytes = fixedCount * sizeof(std::int64_t);
  const std::size_t valueBytes = fixedCount * sizeof(double);
  const std::size_t labelBytes = fixedCount * sizeof(SimplexId);
  static_assert(sizeof(SimplexId) == sizeof(std::int64_t), "64-bit vertex ids");
  const void* vertices = fixed.vertex.data();
  const void* values = fixed.value.data();
  const void* labels = fixed.label.data();
  if (d.staging.size() >= vertexBytes + valueBytes + labelBytes) {
    unsigned char* pinned = d.staging.data();
    std::memcpy(pinned, vertices, vertexBytes);
    std::memcpy(pinned + vertexBytes, values, valueBytes);
    std::memcpy(pinned + vertexBytes + valueBytes, labels, labelBytes);
    vertices = pinned;
    values = pinned + vertexBytes;
    labels = pinned + vertexBytes + valueBytes;
  }
  const std::pair<std::size_t, std::pair<const void*, std::size_t>> parts[3] = {
      {d.oFixedVertex, {vertices, vertexBytes}},
      {d.oFixedValue, {values, valueBytes}},
      {d.oFixedLabel, {labels, labelBytes}}};
  for (const auto& [offset, source] : parts)
    cudaCheck(cudaMemcpyAsync(list.at<unsigned char>(offset), source.first, source.second,
                              cudaMemcpyHostToDevice, mainStream),
              "patchFIM: upload");
  launchFixedState(list.at<std::int64_t>(d.oFixedVertex), list.at<double>(d.oFixedValue),
                   list.at<SimplexId>(d.oFixedLabel), fixedCount, seedFlags, st,
                   mainStream);
}

// One of the tables the staged upload sends.
struct Table {
  std::size_t offset;
  const unsigned char* data;
  std::size_t elementBytes, elements;
  // What the elements count: slots (local vertices, slot patches), the solve offsets
  // (one more than the slots), GEO entries.
  enum Kind { kSlots, kSolveOffsets, kSolves } kind;
  // The elements patch p reads end here (monotone in p).
  std::size_t endOf(std::int32_t p, const eikonal::PatchArrays& a) const {
    const std::int64_t slotEnd = a.localOffsets[p + 1];
    switch (kind) {
    case kSolveOffsets:
      return std::size_t(slotEnd) + 1; // solveOffsets[s + 1] of its last slot
    case kSolves:
      return std::size_t(a.solveOffsets[std::size_t(slotEnd)]);
    default:
      return std::size_t(slotEnd);
    }
  }
};

} // namespace

std::vector<std::int32_t> uploadStart(DeviceState& d, const RoundState& st,
                                      const eikonal::PatchArrays& arrays,
                                      const eikonal::PatchFimSettings& settings,
                                      const eikonal::FixedVertices& fixed,
                                      bool uploadTables) {
  const std::int32_t np = arrays.patches;
  const std::size_t nv = d.nv;
  cudaStream_t mainStream = d.main.stream, copyStream = d.copies.stream;
  if (uploadTables) {
    cudaCheck(
        cudaMemsetAsync(d.block.at<unsigned>(d.oReady), 0, sizeof(unsigned), copyStream),
        "patchFIM: upload");
    cudaCheck(cudaEventRecord(d.readyZero.event, copyStream), "patchFIM: event");
    cudaCheck(cudaStreamWaitEvent(mainStream, d.readyZero.event, 0), "patchFIM: upload");
  }

  // The main stream: every vertex cleared, then the start list scattered.
  std::uint8_t* const seedFlags = d.block.at<std::uint8_t>(d.oSeed);
  launchClearState(seedFlags, nv, st, mainStream);
  uploadFixed(d, st, fixed, seedFlags);
  cudaCheck(cudaMemsetAsync(st.scheduled, 0, std::size_t(np) * sizeof(std::int32_t),
                            mainStream),
            "patchFIM: upload");
  // A block reads its first list entry before knowing the list's length: defined.
  for (std::int32_t* list : st.list)
    cudaCheck(
        cudaMemsetAsync(list, 0, std::size_t(np) * sizeof(std::int32_t), mainStream),
        "patchFIM: upload");
  if (uploadTables) {
    d.put(d.oLocalOffsets, arrays.localOffsets.data(),
          arrays.localOffsets.size() * sizeof(std::int64_t), mainStream);
    d.put(d.oOwnCount, arrays.ownCount.data(),
          arrays.ownCount.size() * sizeof(std::int32_t), mainStream);
  }
  // Round 1 reads list[1] and count[1]; minPending[1] (round 1's threshold comes
  // from threshold[1] = 0 + band) and the list after round 1's start empty.
  std::vector<std::int32_t> initial = eikonal::initialActivePatches(arrays, fixed.vertex);
  d.put(d.oList1, initial.data(), initial.size() * sizeof(std::int32_t), mainStream);
  const Small smallInit{{kInfBits, kInfBits, kInfBits},
                        {0, 0, 0},
                        {0.0, 0 + settings.band},
                        {0u, unsigned(initial.size()), 0u},
                        unsigned(initial.size())};
  d.put(d.oSmall, &smallInit, sizeof(Small), mainStream); // pageable: staged at once
  if (uploadTables) {
    d.put(d.oReaderOffsets, arrays.readerOffsets.data(),
          arrays.readerOffsets.size() * sizeof(std::int32_t), mainStream);
    d.put(d.oReaders, arrays.readers.data(), arrays.readers.size() * sizeof(std::int32_t),
          mainStream);
  }
  if (d.launch.persistent) {
    // All values start in valueIn (location 0, round 0).
    cudaCheck(
        cudaMemsetAsync(st.location, 0, std::size_t(np) * sizeof(unsigned), mainStream),
        "patchFIM: upload");
  }
  return initial;
}

void uploadTablesStaged(DeviceState& d, const eikonal::PatchArrays& arrays) {
  const std::int32_t np = arrays.patches;
  const bool persistent = d.launch.persistent;
  cudaStream_t mainStream = d.main.stream, copyStream = d.copies.stream;
  // The staged upload's ready counts, in the state's page-locked transfer block after
  // the rounds' two list lengths.
  const std::int32_t chunks = std::min<std::int32_t>(np, kReadyCounts);
  unsigned* const readyCounts = d.transfer.data() + 2;
  const Table tables[4] = {
      {d.oLocalVertices,
       reinterpret_cast<const unsigned char*>(arrays.localVertices.data()),
       sizeof(std::int32_t), d.slots, Table::kSlots},
      {d.oSolveOffsets,
       reinterpret_cast<const unsigned char*>(arrays.solveOffsets.data()),
       sizeof(std::int64_t), arrays.solveOffsets.size(), Table::kSolveOffsets},
      {d.oSolves, reinterpret_cast<const unsigned char*>(arrays.solves.data()),
       sizeof(eikonal::PatchSolve), arrays.solves.size(), Table::kSolves},
      {d.oSlotPatch, reinterpret_cast<const unsigned char*>(arrays.slotPatch.data()),
       sizeof(std::int32_t), persistent ? d.slots : 0, Table::kSlots}};
  std::size_t sent[4] = {0, 0, 0, 0};
  for (std::int32_t c = 0; c < chunks; ++c) {
    const bool last = c + 1 == chunks;
    const std::int32_t end = std::int32_t(std::int64_t(np) * (c + 1) / chunks);
    std::int32_t complete = np;
    for (int t = 0; t < 4; ++t) {
      const Table& table = tables[t];
      const std::size_t total = table.elements * table.elementBytes;
      const std::size_t upTo = last ? total
                                    : std::min(total, table.endOf(end - 1, arrays) *
                                                          table.elementBytes / 128 * 128);
      if (upTo > sent[t]) {
        d.put(table.offset + sent[t], table.data + sent[t], upTo - sent[t], copyStream);
        sent[t] = upTo;
      }
      if (table.elements == 0)
        continue;
      // Patches whose bytes of this table are all up: a binary search on p.
      std::int32_t lo = 0, hi = np;
      while (lo < hi) {
        const std::int32_t mid = lo + (hi - lo) / 2;
        if (table.endOf(mid, arrays) * table.elementBytes <= sent[t])
          lo = mid + 1;
        else
          hi = mid;
      }
      complete = std::min(complete, lo);
    }
    readyCounts[c] = unsigned(last ? np : complete);
    cudaCheck(cudaMemcpyAsync(d.block.at<unsigned>(d.oReady), readyCounts + c,
                              sizeof(unsigned), cudaMemcpyHostToDevice, copyStream),
              "patchFIM: upload");
  }
  // The patch of each vertex is read by the gather after the rounds only: it goes
  // last, off the path to the first round.
  if (persistent)
    d.put(d.oPatchOf, arrays.patchOf.data(), d.nv * sizeof(std::int32_t), copyStream);
  cudaCheck(cudaEventRecord(d.copied.event, copyStream), "patchFIM: event");
  if (!persistent) {
    cudaCheck(cudaStreamWaitEvent(mainStream, d.copied.event, 0), "patchFIM: upload");
    cudaCheck(cudaStreamSynchronize(mainStream), "patchFIM: upload");
  }
  d.tablesUp = true;
}

} // namespace topogpu::gpu::patchfim
