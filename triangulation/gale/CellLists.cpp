// GALE's cell lists (I_T): per segment, its internal cells (lowest vertex in it) and its
// external cells (touching it otherwise), and the search of a cell among them.
#include "GaleTriangulation.h"

#include "base/Timer.h"
#include "triangulation/explicit/MeshBuilding.h"
#include "triangulation/gale/CellSegments.h"
#include "triangulation/gale/detail/GaleRuntime.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <utility>
#include <vector>

namespace topogpu {

using mesh_building::parallelFor;

// Internal cells (lowest vertex in the segment) and external cells (touching the
// segment otherwise: gale::cellSegments, the rule the GPU producer's lists follow too),
// each list by ascending id. The cells are cut into blocks of
// consecutive ids counted per (segment, block): the scan of those counts gives every
// block its place in each list, so the fill needs no atomics and no sort afterwards.
void GaleTriangulation::buildCellLists(std::vector<SimplexId>& internalOffsets,
                                       std::vector<SimplexId>& externalOffsets,
                                       IdArray& internalCells,
                                       IdArray& externalCells) const {
  const SimplexId segments = getNumberOfSegments();
  const int arity = dimension_ + 1;
  const auto segmentOf = [&](SimplexId v) { return segmentOfNew_[v]; };
  // blocks: a few per core, the counts bounded to 2^21 entries (16 MiB) per list
  const SimplexId wanted =
      4 * SimplexId(std::max(1, tbb::this_task_arena::max_concurrency()));
  const SimplexId blocks = std::max<SimplexId>(
      1, std::min({wanted, (SimplexId(1) << 21) / std::max<SimplexId>(1, segments),
                   numberOfCells_}));
  auto blockBegin = [&](SimplexId b) { return numberOfCells_ * b / blocks; };
  // at[b * segments + s]: block b's count in segment s, then its fill position (a row
  // per block: no false sharing between the blocks' threads)
  std::vector<SimplexId> internalAt(std::size_t(segments * blocks), 0),
      externalAt(std::size_t(segments * blocks), 0);
  auto forBlocks = [&](auto&& body) {
    tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
      for (SimplexId c = blockBegin(b); c < blockBegin(b + 1); ++c) {
        const auto t = sortedNewCell(c);
        SimplexId own = 0, others[3];
        const int n = gale::cellSegments(t.data(), arity, segmentOf, own, others);
        body(b, c, own, others, n);
      }
    });
  };
  forBlocks([&](SimplexId b, SimplexId, SimplexId own, const SimplexId* others, int n) {
    ++internalAt[std::size_t(b * segments + own)];
    for (int k = 0; k < n; ++k)
      ++externalAt[std::size_t(b * segments + others[k])];
  });
  auto scan = [&](std::vector<SimplexId>& at, std::vector<SimplexId>& offsets) {
    offsets.assign(segments + 1, 0);
    SimplexId total = 0;
    for (SimplexId s = 0; s < segments; ++s) {
      offsets[s] = total;
      for (SimplexId b = 0; b < blocks; ++b) {
        const SimplexId count = at[std::size_t(b * segments + s)];
        at[std::size_t(b * segments + s)] = total;
        total += count;
      }
    }
    offsets[segments] = total;
  };
  scan(internalAt, internalOffsets);
  scan(externalAt, externalOffsets);
  internalCells.allocate(numberOfCells_, numberOfCells_ - 1, false);
  externalCells.allocate(externalOffsets.back(), numberOfCells_ - 1, false);
  forBlocks([&](SimplexId b, SimplexId c, SimplexId own, const SimplexId* others, int n) {
    internalCells.set(std::size_t(internalAt[std::size_t(b * segments + own)]++), c);
    for (int k = 0; k < n; ++k)
      externalCells.set(std::size_t(externalAt[std::size_t(b * segments + others[k])]++),
                        c);
  });
}

// The host's copy of the cell lists when the GPU producer built them (3D): fetched from
// the device, or built here if the device no longer has them, the first time a CPU
// computation needs them (a relation the device does not serve, a consumer or a
// fallback computing a segment, the edge and triangle lists). Thread-safe.
void GaleTriangulation::ensureHostCellLists() const {
  if (runtime_->hostCellLists.load(std::memory_order_acquire))
    return;
  std::lock_guard<std::mutex> lock(runtime_->hostCellListsMutex);
  if (runtime_->hostCellLists.load(std::memory_order_relaxed))
    return;
  // isolated: this thread must not pick up a consumer's task meanwhile (which could
  // come back here)
  tbb::this_task_arena::isolate([&] {
    IdArray internal, external;
    if (!runtime_->producer ||
        !runtime_->producer->downloadCellLists(internal, external) ||
        internal.size() != std::size_t(numberOfCells_) ||
        external.size() != std::size_t(externalOffsets_.back())) {
      std::vector<SimplexId> internalOffsets, externalOffsets;
      buildCellLists(internalOffsets, externalOffsets, internal, external);
    }
    internalCells_ = std::move(internal);
    externalCells_ = std::move(external);
  });
  runtime_->hostCellLists.store(true, std::memory_order_release);
}

// Internal cells by their sorted vertex tuple, so that a cell is found by binary search
// (TT's rows, findTriangle in 2D); done when first needed, it costs a sort of every cell.
void GaleTriangulation::sortInternalByTuple() {
  if (internalByTuple_)
    return;
  Timer timer;
  parallelFor(getNumberOfSegments(), [&](SimplexId s) {
    std::vector<std::pair<std::array<SimplexId, 4>, SimplexId>> local;
    for (SimplexId k = internalOffsets_[s]; k < internalOffsets_[s + 1]; ++k)
      local.emplace_back(sortedNewCell(internalCells_[k]), internalCells_[k]);
    std::sort(local.begin(), local.end());
    for (std::size_t k = 0; k < local.size(); ++k)
      internalCells_.set(internalOffsets_[s] + k, local[k].second);
  });
  internalByTuple_ = true;
  runtime_->initialization.simplexListSeconds += timer.seconds();
}

// The first of segment s's internal cells (sorted by tuple) whose tuple is not below key.
SimplexId
GaleTriangulation::internalLowerBound(SimplexId s,
                                      const std::array<SimplexId, 4>& key) const {
  SimplexId first = internalOffsets_[s], last = internalOffsets_[s + 1];
  while (first < last) {
    const SimplexId mid = first + (last - first) / 2;
    if (sortedNewCell(internalCells_[mid]) < key)
      first = mid + 1;
    else
      last = mid;
  }
  return first;
}

SimplexId GaleTriangulation::findInternalCell(SimplexId c) const {
  const auto key = sortedNewCell(c);
  // cells are unique, so this is c's position
  return internalLowerBound(segmentOfNew_[key[0]], key);
}

} // namespace topogpu
