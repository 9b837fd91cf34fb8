// The driver of the GPU backend's column construction, shared by the device
// (RipsPersistenceGpu.cu) and its host twin (RipsHostTwin.h, run by the unit tests): per
// dimension, the clearing pivots go to the device, the simplices are made from their
// facets in batches that fit the device budget (counted first, then cut), each batch is
// classified (cleared, apparent, to reduce) and compacted there, and the reduction gets
// the columns to reduce (reverse filtration order) and the apparent pairs (sorted by
// pivot; with several batches, runs that the caller joins). Header-only and CUDA-free.
#pragma once

#include "RipsDeviceLogic.h"


#include <algorithm>
#include <string>

namespace topogpu::rips_persistence::device {

// The steps a backend provides; each appends its batch's results to `out`.
class BatchOps {
public:
  virtual ~BatchOps() = default;
  virtual const char* name() const = 0; // "gpu", "host twin"
  // Bytes this backend may still allocate for a dimension.
  virtual std::size_t available() const = 0;
  // The previous dimension's pivots, for the clearing test (kept until the next call).
  virtual void setClearing(const std::vector<ApparentPair>& apparent,
                           const std::vector<SimplexId>& reduced) = 0;
  // made[f] = the simplices made from facets[f] (count vertices each).
  virtual void countMade(const Simplex* facets, std::size_t size, int count,
                         SimplexId* made) = 0;
  // Makes the simplices of facets[0, size) (their counts given), classifies and
  // compacts them; appends the columns to reduce (sorted), the apparent pairs (sorted by
  // pivot) and, when keep, every simplex made.
  virtual void buildBatch(int dim, const Simplex* facets, const SimplexId* made,
                          std::size_t size, bool keep, PreparedDimension& out) = 0;
  // Dimension 1: classifies and compacts the given columns (no clearing: dimension 0
  // did it).
  virtual void classifyGiven(int dim, const Simplex* columns, std::size_t size,
                             PreparedDimension& out) = 0;
  // Seconds spent per stage since the last call (made, classified, compacted and
  // sorted, downloaded), then reset.
  virtual void takeTimings(double seconds[4]) = 0;
};

// ColumnBuilder::prepare over BatchOps. False when the dimension needs more vertices
// than the device handles or does not fit the budget even one facet at a time.
inline bool prepareBatched(BatchOps& ops, const Monitor& monitor, int dim,
                           const std::vector<Simplex>& facets,
                           const std::vector<Simplex>* given, bool keepSimplices,
                           const std::vector<ApparentPair>& clearedApparent,
                           const std::vector<SimplexId>& clearedReduced,
                           PreparedDimension& out, RunReport& report) {
  if (dim + 2 > kMaxVertices)
    return false;
  const std::size_t clearing = clearedApparent.size() * sizeof(ApparentPair) +
                               clearedReduced.size() * sizeof(SimplexId);
  const std::size_t available = ops.available();
  if (clearing >= available)
    return false;
  const std::size_t budget = available - clearing;
  out = PreparedDimension{};
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  if (given != nullptr) {
    batches = cutColumnBatches(given->size(), budget);
    if (batches.empty() && !given->empty())
      return false;
    ops.setClearing({}, {});
    for (const auto& [first, last] : batches) {
      monitor.checkAbort();
      ops.classifyGiven(dim, given->data() + first, last - first, out);
    }
  } else {
    // The count per facet, in chunks that fit, then the batches.
    std::vector<SimplexId> made(facets.size(), 0);
    const std::size_t chunk = std::max<std::size_t>(1, budget / kBytesPerFacet);
    for (std::size_t first = 0; first < facets.size(); first += chunk) {
      monitor.checkAbort();
      ops.countMade(facets.data() + first, std::min(chunk, facets.size() - first), dim,
                    made.data() + first);
    }
    batches = cutBatches(made, budget);
    if (batches.empty() && !facets.empty())
      return false;
    ops.setClearing(clearedApparent, clearedReduced);
    for (const auto& [first, last] : batches) {
      monitor.checkAbort();
      ops.buildBatch(dim, facets.data() + first, made.data() + first, last - first,
                     keepSimplices, out);
    }
    for (const SimplexId m : made)
      out.simplexCount += m;
  }
  ops.setClearing({}, {});
  out.batches = int(std::max<std::size_t>(1, batches.size()));
  double seconds[4];
  ops.takeTimings(seconds);
  const std::string suffix = " dim " + std::to_string(dim) + " (" + ops.name() + ")";
  if (given == nullptr)
    report.timings.emplace_back("columns" + suffix, seconds[0]);
  report.timings.emplace_back("apparent pairs" + suffix, seconds[1]);
  report.timings.emplace_back("compact + sort" + suffix, seconds[2]);
  report.timings.emplace_back("download" + suffix, seconds[3]);
  return true;
}

// A ColumnBuilder over BatchOps.
class BatchedColumnBuilder : public ColumnBuilder {
public:
  BatchedColumnBuilder(std::unique_ptr<BatchOps> ops, const Monitor& monitor)
      : ops_(std::move(ops)), monitor_(monitor) {}
  bool prepare(int dim, const std::vector<Simplex>& facets,
               const std::vector<Simplex>* given, bool keepSimplices,
               const std::vector<ApparentPair>& clearedApparent,
               const std::vector<SimplexId>& clearedReduced, PreparedDimension& out,
               RunReport& report) override {
    return prepareBatched(*ops_, monitor_, dim, facets, given, keepSimplices,
                          clearedApparent, clearedReduced, out, report);
  }

private:
  std::unique_ptr<BatchOps> ops_;
  const Monitor& monitor_;
};

} // namespace topogpu::rips_persistence::device
