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

class HostTwinOps : public BatchOps {
public:
  // budget: the bytes the twin pretends the device has for a dimension.
  HostTwinOps(const RipsGraph& graph, std::size_t budget)
      : budget_(budget), threshold_(graph.threshold), sparse_(graph.sparse),
        offsets_(graph.offsets), neighbors_(graph.neighbors),
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
  std::size_t available() const override { return budget_; }
  void setClearing(const std::vector<ApparentPair>& apparent,
                   const std::vector<SimplexId>& reduced) override {
    apparent_ = apparent;
    reduced_ = reduced;
  }
  void countMade(const Simplex* facets, std::size_t size, int count,
                 SimplexId* made) override {
    for (std::size_t f = 0; f < size; ++f)
      made[f] = sparse_
                    ? countCofacetsAbove(sparseView_, C_, threshold_, facets[f], count)
                    : countCofacetsAbove(dense_, C_, threshold_, facets[f], count);
  }
  void buildBatch(int dim, const Simplex* facets, const SimplexId* made, std::size_t size,
                  bool keep, PreparedDimension& out) override {
    // Exclusive scan of the counts, then one writer per facet.
    std::vector<SimplexId> offsets(size + 1, 0);
    for (std::size_t f = 0; f < size; ++f)
      offsets[f + 1] = offsets[f] + made[f];
    std::vector<Simplex> simplices(static_cast<std::size_t>(offsets[size]));
    for (std::size_t f = 0; f < size; ++f) {
      Simplex* at = simplices.data() + offsets[f];
      if (sparse_)
        writeCofacetsAbove(sparseView_, C_, threshold_, facets[f], dim, at);
      else
        writeCofacetsAbove(dense_, C_, threshold_, facets[f], dim, at);
    }
    classifyAndCompact(dim, simplices.data(), simplices.size(), true, out);
    if (keep)
      out.simplices.insert(out.simplices.end(), simplices.begin(), simplices.end());
  }
  void classifyGiven(int dim, const Simplex* columns, std::size_t size,
                     PreparedDimension& out) override {
    classifyAndCompact(dim, columns, size, false, out);
  }
  void takeTimings(double seconds[4]) override {
    for (int i = 0; i < 4; ++i)
      seconds[i] = 0;
  }

private:
  void classifyAndCompact(int dim, const Simplex* simplices, std::size_t size, bool sort,
                          PreparedDimension& out) {
    std::vector<SimplexId> pivot(size);
    for (std::size_t i = 0; i < size; ++i)
      pivot[i] = sparse_ ? classify(sparseView_, C_, threshold_, simplices[i], dim + 1,
                                    apparent_.data(), SimplexId(apparent_.size()),
                                    reduced_.data(), SimplexId(reduced_.size()))
                         : classify(dense_, C_, threshold_, simplices[i], dim + 1,
                                    apparent_.data(), SimplexId(apparent_.size()),
                                    reduced_.data(), SimplexId(reduced_.size()));
    std::vector<Simplex> columns;
    std::vector<ApparentPair> apparent;
    for (std::size_t i = 0; i < size; ++i) {
      if (pivot[i] == kToReduce)
        columns.push_back(simplices[i]);
      else if (pivot[i] >= 0)
        apparent.push_back({pivot[i], simplices[i]});
    }
    if (sort)
      std::sort(columns.begin(), columns.end(), ReverseFiltration{});
    std::stable_sort(
        apparent.begin(), apparent.end(),
        [](const ApparentPair& a, const ApparentPair& b) { return a.pivot < b.pivot; });
    out.columns.insert(out.columns.end(), columns.begin(), columns.end());
    out.apparent.insert(out.apparent.end(), apparent.begin(), apparent.end());
  }

  std::size_t budget_;
  float threshold_;
  bool sparse_;
  std::vector<SimplexId> binomial_, offsets_, neighbors_;
  std::vector<float> distances_;
  Binomials C_;
  DenseDistances dense_;
  SparseDistances sparseView_;
  std::vector<ApparentPair> apparent_;
  std::vector<SimplexId> reduced_;
};

// A ColumnBuilderFactory for detail::executeWith that runs the host twin.
inline ColumnBuilderFactory hostTwinFactory(std::size_t budget, const Monitor& monitor) {
  return [budget, &monitor](const RipsGraph& graph, RunReport&) {
    return std::unique_ptr<ColumnBuilder>(
        new BatchedColumnBuilder(std::make_unique<HostTwinOps>(graph, budget), monitor));
  };
}

} // namespace topogpu::rips_persistence::device
