// The driver of the GPU backend's column construction, shared by the device
// (RipsPersistenceGpu.cu) and its host twin (RipsHostTwin.h, run by the unit tests): per
// dimension, the previous dimension's reduced pivots go to the device (few: its apparent
// pairs are found again there, never stored), the simplices are made from their facets
// in batches that fit the device budget (counted first, then cut), each batch is
// classified (apparent, cleared, to reduce) and compacted there, and the reduction gets
// the columns to reduce (reverse filtration order) and the number of apparent pairs.
// The simplices the next dimension needs as facets stay on the device when they fit.
// Header-only and CUDA-free.
#pragma once

#include "RipsDeviceLogic.h"

#include <algorithm>
#include <string>

namespace topogpu::rips_persistence::device {

// Where a batch's simplices go besides their classification: nowhere (the last
// dimension), to the host (out.simplices), or into the buffer reserveNext made.
enum class Keep { None, Host, Device };

// The steps a backend provides; each appends its batch's results to `out`. Facets come
// from the host (hostFacets, uploaded per call) or, with hostFacets null, from the
// simplices the previous dimension kept here.
class BatchOps {
public:
  virtual ~BatchOps() = default;
  virtual const char* name() const = 0; // "gpu", "host twin"
  // Bytes this backend may still allocate for a dimension (what it keeps excluded).
  virtual std::size_t available() const = 0;
  // The previous dimension's reduced pivots (sorted), for the clearing test.
  virtual void setClearing(const std::vector<SimplexId>& reduced) = 0;
  // made[f] = the simplices made from facets[first + f], f < size (count vertices each).
  virtual void countMade(const Simplex* hostFacets, std::size_t first, std::size_t size,
                         int count, SimplexId* made) = 0;
  // Makes the simplices of facets[first, first + size) (their counts given), classifies
  // and compacts them; appends the columns to reduce (sorted) and adds the apparent
  // pairs' number. keep == Device: the simplices go to the reserved buffer from
  // nextOffset on.
  virtual void buildBatch(int dim, const Simplex* hostFacets, std::size_t first,
                          const SimplexId* made, std::size_t size, Keep keep,
                          std::size_t nextOffset, PreparedDimension& out) = 0;
  // Dimension 1: classifies and compacts the given columns (no clearing: dimension 0
  // did it).
  virtual void classifyGiven(int dim, const Simplex* columns, std::size_t size,
                             PreparedDimension& out) = 0;
  // The simplices kept from the previous dimension (false: none).
  virtual bool holdsKept() const = 0;
  virtual std::size_t keptSize() const = 0;
  // Replaces `host` with the kept simplices and frees them.
  virtual void fetchKept(std::vector<Simplex>& host) = 0;
  virtual void dropKept() = 0;
  // A buffer for this dimension's simplices (the next one's facets); promoteNext makes
  // it the kept one (freeing the old), dropNext frees it.
  virtual void reserveNext(std::size_t size) = 0;
  virtual void promoteNext() = 0;
  virtual void dropNext() = 0;
  // Seconds spent per stage since the last call (made, classified, compacted and
  // sorted, downloaded), then reset.
  virtual void takeTimings(double seconds[4]) = 0;
};

// ColumnBuilder::prepare over BatchOps. False when the dimension needs more vertices
// than the device handles or does not fit the budget even one facet at a time (the kept
// facets then in `facets`).
inline bool prepareBatched(BatchOps& ops, const Monitor& monitor, int dim,
                           std::vector<Simplex>& facets,
                           const std::vector<Simplex>* given, bool keepSimplices,
                           const std::vector<SimplexId>& clearedReduced,
                           PreparedDimension& out, RunReport& report) {
  // Declined: the CPU builds the dimension, and the report says why.
  const auto decline = [&](const std::string& why) {
    if (ops.holdsKept())
      ops.fetchKept(facets);
    report.warnings.push_back(
        {WarningCode::RipsDimensionOnCpu, "dimension " + std::to_string(dim) + " " + why +
                                              ": its columns were built on the CPU"});
    return false;
  };
  const auto tooLarge = [&] {
    return decline("does not fit the device memory (" +
                   std::to_string(ops.available() >> 10) +
                   " KiB free for it) even one facet at a time");
  };
  if (dim + 2 > kMaxVertices)
    return decline("has cofacets of more than " + std::to_string(kMaxVertices) +
                   " vertices, more than the device handles");
  const std::size_t clearing = clearedReduced.size() * sizeof(SimplexId);
  const auto budget = [&] {
    const std::size_t available = ops.available();
    return available > clearing ? std::min(available - clearing, kBatchBytes) : 0;
  };
  if (budget() == 0 && ops.holdsKept())
    ops.fetchKept(facets); // the kept facets leave no room: they go to the host
  if (budget() == 0)
    return tooLarge();
  out = PreparedDimension{};
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  if (given != nullptr) {
    batches = cutColumnBatches(given->size(), budget());
    if (batches.empty() && !given->empty())
      return tooLarge();
    ops.setClearing({});
    for (const auto& [first, last] : batches) {
      monitor.checkAbort();
      ops.classifyGiven(dim, given->data() + first, last - first, out);
    }
  } else {
    // The facets: kept here by the previous dimension, or the host's.
    const bool kept = ops.holdsKept() && facets.empty();
    const std::size_t facetCount = kept ? ops.keptSize() : facets.size();
    // The count per facet, in chunks that fit, then the batches.
    std::vector<SimplexId> made(facetCount, 0);
    const std::size_t chunk = std::max<std::size_t>(1, budget() / kBytesPerFacet);
    for (std::size_t first = 0; first < facetCount; first += chunk) {
      monitor.checkAbort();
      ops.countMade(kept ? nullptr : facets.data(), first,
                    std::min(chunk, facetCount - first), dim, made.data() + first);
    }
    SimplexId total = 0;
    for (const SimplexId m : made)
      total += m;
    // This dimension's simplices stay here for the next one when they fit beside the
    // batches; else they go to the host.
    Keep keep = keepSimplices ? Keep::Host : Keep::None;
    const std::size_t nextBytes = std::size_t(total) * sizeof(Simplex);
    if (keepSimplices && nextBytes <= kKeptBytes && nextBytes <= ops.available() / 2) {
      ops.reserveNext(std::size_t(total));
      keep = Keep::Device;
    }
    batches = cutBatches(made, budget());
    if (batches.empty() && keep == Keep::Device) {
      ops.dropNext();
      keep = Keep::Host;
      batches = cutBatches(made, budget());
    }
    if (batches.empty() && kept) {
      ops.fetchKept(facets); // frees the device for the batches
      return prepareBatched(ops, monitor, dim, facets, given, keepSimplices,
                            clearedReduced, out, report);
    }
    if (batches.empty() && !made.empty())
      return tooLarge();
    ops.setClearing(clearedReduced);
    std::size_t offset = 0;
    for (const auto& [first, last] : batches) {
      monitor.checkAbort();
      ops.buildBatch(dim, kept ? nullptr : facets.data(), first, made.data() + first,
                     last - first, keep, offset, out);
      for (std::size_t f = first; f < last; ++f)
        offset += std::size_t(made[f]);
    }
    out.simplexCount = total;
    if (keep == Keep::Device)
      ops.promoteNext();
    else
      ops.dropKept();
    ops.setClearing({});
  }
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
  bool prepare(int dim, std::vector<Simplex>& facets, const std::vector<Simplex>* given,
               bool keepSimplices, const std::vector<SimplexId>& clearedReduced,
               PreparedDimension& out, RunReport& report) override {
    return prepareBatched(*ops_, monitor_, dim, facets, given, keepSimplices,
                          clearedReduced, out, report);
  }

private:
  std::unique_ptr<BatchOps> ops_;
  const Monitor& monitor_;
};

} // namespace topogpu::rips_persistence::device
