// The host twin of the GPU backend's column construction: RipsBatching.h's driver over
// BatchOps whose steps are plain loops over the kernels' per-simplex functions
// (RipsDeviceLogic.h), one loop iteration where the device runs one thread, with the
// same compaction (stable) and the same sort orders. The unit tests run the Rips
// pipeline through it (detail::executeWith), small budgets included, so that the
// device's logic and the batching are checked in CI without a GPU.
#pragma once

#include "RipsBatching.h"

#include <memory>

namespace topogpu::rips_persistence::device {

// How often the twin kept a dimension's simplices for the next one, and how often it
// had to hand them to the host after all (for the tests of those paths).
struct HostTwinCounts {
  int kept = 0, fetched = 0;
};

class HostTwinOps : public BatchOps {
public:
  // budget: the bytes the twin pretends the device has for a dimension.
  HostTwinOps(const RipsGraph& graph, std::size_t budget, HostTwinCounts* counts)
      : counts_(counts), budget_(budget), threshold_(graph.threshold),
        sparse_(graph.sparse), offsets_(graph.offsets), neighbors_(graph.neighbors),
        distances_(graph.distances) {
    binomial_.assign(graph.binomial,
                     graph.binomial +
                         std::size_t(graph.maxDimension + 3) * std::size_t(graph.n + 1));
    C_ = Binomials{binomial_.data(), graph.n};
    dense_ = DenseDistances{graph.n, graph.lower};
    sparseView_ =
        SparseDistances{graph.n, offsets_.data(), neighbors_.data(), distances_.data()};
  }
  const char* name() const override { return "host twin"; }
  std::size_t available() const override {
    const std::size_t held = (kept_.size() + next_.size()) * sizeof(Simplex);
    return budget_ > held ? budget_ - held : 0;
  }
  void setClearing(const std::vector<SimplexId>& reduced) override { reduced_ = reduced; }
  void countMade(const Simplex* hostFacets, std::size_t first, std::size_t size,
                 int count, SimplexId* made) override {
    const Simplex* facets = (hostFacets != nullptr ? hostFacets : kept_.data()) + first;
    for (std::size_t f = 0; f < size; ++f)
      made[f] = sparse_
                    ? countCofacetsAbove(sparseView_, C_, threshold_, facets[f], count)
                    : countCofacetsAbove(dense_, C_, threshold_, facets[f], count);
  }
  void buildBatch(int dim, const Simplex* hostFacets, std::size_t first,
                  const SimplexId* made, std::size_t size, Keep keep,
                  std::size_t nextOffset, PreparedDimension& out) override {
    const Simplex* facets = (hostFacets != nullptr ? hostFacets : kept_.data()) + first;
    // Exclusive scan of the counts, then one writer per facet.
    std::vector<SimplexId> offsets(size + 1, 0);
    for (std::size_t f = 0; f < size; ++f)
      offsets[f + 1] = offsets[f] + made[f];
    std::vector<Simplex> own;
    Simplex* simplices = nullptr;
    if (keep == Keep::Device) {
      simplices = next_.data() + nextOffset;
    } else {
      own.resize(static_cast<std::size_t>(offsets[size]));
      simplices = own.data();
    }
    for (std::size_t f = 0; f < size; ++f) {
      Simplex* at = simplices + offsets[f];
      if (sparse_)
        writeCofacetsAbove(sparseView_, C_, threshold_, facets[f], dim, at);
      else
        writeCofacetsAbove(dense_, C_, threshold_, facets[f], dim, at);
    }
    const std::size_t total = std::size_t(offsets[size]);
    classifyAndCompact(dim, simplices, total, true, out);
    if (keep == Keep::Host)
      out.simplices.insert(out.simplices.end(), simplices, simplices + total);
  }
  void classifyGiven(int dim, const Simplex* columns, std::size_t size,
                     PreparedDimension& out) override {
    classifyAndCompact(dim, columns, size, false, out);
  }
  bool holdsKept() const override { return holdsKept_; }
  std::size_t keptSize() const override { return kept_.size(); }
  void fetchKept(std::vector<Simplex>& host) override {
    if (counts_ != nullptr)
      ++counts_->fetched;
    host.swap(kept_);
    dropKept();
  }
  void dropKept() override {
    kept_ = {};
    holdsKept_ = false;
  }
  void reserveNext(std::size_t size) override { next_.assign(size, Simplex{}); }
  void promoteNext() override {
    if (counts_ != nullptr)
      ++counts_->kept;
    kept_.swap(next_);
    next_ = {};
    holdsKept_ = true;
  }
  void dropNext() override { next_ = {}; }
  void takeTimings(double seconds[4]) override {
    for (int i = 0; i < 4; ++i)
      seconds[i] = 0;
  }

private:
  // The device's classification, one loop iteration per thread; its stable selection
  // of the columns to reduce, then their sort.
  void classifyAndCompact(int dim, const Simplex* simplices, std::size_t size,
                          bool clearing, PreparedDimension& out) {
    std::vector<Simplex> columns;
    for (std::size_t i = 0; i < size; ++i) {
      const SimplexKind kind =
          sparse_ ? classify(sparseView_, C_, simplices[i], dim + 1, clearing,
                             reduced_.data(), SimplexId(reduced_.size()))
                  : classify(dense_, C_, simplices[i], dim + 1, clearing, reduced_.data(),
                             SimplexId(reduced_.size()));
      if (kind == kToReduce)
        columns.push_back(simplices[i]);
      else if (kind == kApparent)
        ++out.apparentCount;
    }
    std::sort(columns.begin(), columns.end(), ReverseFiltration{});
    out.columns.insert(out.columns.end(), columns.begin(), columns.end());
  }

  HostTwinCounts* counts_;
  std::size_t budget_;
  float threshold_;
  bool sparse_;
  std::vector<SimplexId> binomial_, offsets_, neighbors_;
  std::vector<float> distances_;
  Binomials C_;
  DenseDistances dense_;
  SparseDistances sparseView_;
  std::vector<SimplexId> reduced_;
  std::vector<Simplex> kept_, next_; // what the device would hold between dimensions
  bool holdsKept_ = false;
};

// A ColumnBuilderFactory for detail::executeWith that runs the host twin.
inline ColumnBuilderFactory hostTwinFactory(std::size_t budget, const Monitor& monitor,
                                            HostTwinCounts* counts = nullptr) {
  return [budget, &monitor, counts](const RipsGraph& graph, RunReport&) {
    return std::unique_ptr<ColumnBuilder>(new BatchedColumnBuilder(
        std::make_unique<HostTwinOps>(graph, budget, counts), monitor));
  };
}

} // namespace topogpu::rips_persistence::device
