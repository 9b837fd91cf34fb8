#include "RipsDimensions.h"

#include "RipsGraphs.h"
#include "RipsLockFreeReduction.h"

#include "base/Timer.h"

#include <tbb/parallel_sort.h>

#include <algorithm>
#include <string>
#include <utility>

namespace topogpu::rips_persistence::detail {

void dimensionZero(SimplexId n, const BinomialTable& binomial, std::vector<Entry>& edges,
                   std::vector<Interval>& intervals, DimensionStats& stats,
                   std::vector<Entry>& columns, const Monitor& monitor) {
  tbb::parallel_sort(edges.begin(), edges.end(), before);
  monitor.checkAbort();
  monitor.report(0.5);
  UnionFind components(n);
  columns.clear();
  SimplexId merges = 0;
  std::size_t seen = 0;
  for (const Entry& e : edges) {
    if (++seen % (std::size_t(1) << 20) == 0) {
      monitor.checkAbort();
      monitor.report(0.5 + 0.5 * double(seen) / double(edges.size()));
    }
    SimplexId v[2];
    simplexVertices(binomial, e.index, 2, v);
    if (components.unite(v[0], v[1])) {
      ++merges;
      if (e.diameter > 0)
        intervals.push_back({0.0f, e.diameter});
    } else {
      columns.push_back(e);
    }
  }
  std::reverse(columns.begin(), columns.end());
  for (SimplexId c = 0; c < n - merges; ++c)
    intervals.push_back({0.0f, kInfinity});
  stats.simplices = n;
  stats.columns = n;
  stats.pairs = merges;
  stats.essential = n - merges;
}

namespace {

// A builder's dimension (the GPU's): the columns to reduce and the number of apparent
// pairs from it, the reduction here (the apparent pairs found again where met). False
// when it declined (the CPU builds the dimension).
template <class Graph>
bool preparedDimension(ColumnBuilder& builder, Engine<Graph>& engine, int dim,
                       int maxDimension, std::vector<Entry>& simplices,
                       const std::vector<Entry>& columns, Result& result,
                       RunReport& report) {
  DimensionStats& stats = result.stats[std::size_t(dim)];
  PreparedDimension prepared;
  static const std::vector<SimplexId> none;
  const std::vector<SimplexId>& reduced = dim > 1 ? engine.reducedPivots() : none;
  if (!builder.prepare(dim, simplices, dim == 1 ? &columns : nullptr,
                       dim < maxDimension && dim > 1, reduced, prepared, report))
    return false;
  if (dim > 1) {
    stats.simplices = prepared.simplexCount;
    simplices.swap(prepared.simplices); // empty when the builder kept them
  } else {
    stats.simplices = SimplexId(simplices.size());
  }
  stats.columns = SimplexId(prepared.columns.size()) + prepared.apparentCount;
  stats.columnsBackend = "gpu";
  stats.batches = prepared.batches;
  if (prepared.batches > 1) {
    // The batches' sorted runs, joined (the budget-bound case only).
    Timer timer;
    tbb::parallel_sort(prepared.columns.begin(), prepared.columns.end(),
                       [](const Entry& a, const Entry& b) { return before(b, a); });
    report.timings.emplace_back("join batches dim " + std::to_string(dim) + " (cpu)",
                                timer.seconds());
  }
  engine.reducePrepared(dim, prepared, result.intervals[std::size_t(dim)], stats, report);
  return true;
}

} // namespace

template <class Graph>
void higherDimensions(const Graph& graph, const BinomialTable& binomial, float threshold,
                      int maxDimension, std::vector<Entry>& edges,
                      std::vector<Entry>& columns, ColumnBuilder* builder,
                      const Monitor& monitor, Result& result, RunReport& report,
                      const Parameters& parameters, std::size_t columnLimit) {
  float largestEdge = 0;
  for (const Entry& e : edges)
    largestEdge = std::max(largestEdge, e.diameter);
  Engine<Graph> engine(graph, binomial, threshold, largestEdge,
                       parameters.boundEveryColumn, monitor);
  if (parameters.cocycles)
    engine.keepRepresentatives(&result.representatives);
  std::vector<Entry> simplices = std::move(edges); // all edges: the dimension-1 simplices
  for (int dim = 1; dim <= maxDimension; ++dim) {
    monitor.checkAbort();
    const double share = 0.9 / double(maxDimension);
    const double begin = 0.1 + share * double(dim - 1);
    monitor.report(begin);
    engine.setProgress(monitor.stage(begin, begin + share));
    DimensionStats& stats = result.stats[std::size_t(dim)];
    if (builder != nullptr && preparedDimension(*builder, engine, dim, maxDimension,
                                                simplices, columns, result, report))
      continue;
    if (dim > 1) {
      Timer timer;
      std::vector<Entry> next;
      std::size_t apparentCount = 0;
      columns = {};
      stats.simplices =
          engine.assemble(dim - 1, simplices, dim < maxDimension ? &next : nullptr,
                          columns, apparentCount, columnLimit);
      simplices.swap(next);
      next = {};
      report.timings.emplace_back("columns dim " + std::to_string(dim) + " (cpu)",
                                  timer.seconds());
      stats.columns = SimplexId(columns.size() + apparentCount);
      engine.reduceAssembled(dim, columns, apparentCount,
                             result.intervals[std::size_t(dim)], stats, report);
      continue;
    }
    stats.simplices = SimplexId(simplices.size());
    stats.columns = SimplexId(columns.size());
    engine.reduce(dim, columns, result.intervals[std::size_t(dim)], stats, report);
  }
}

template void higherDimensions(const DenseGraph& graph, const BinomialTable& binomial,
                               float threshold, int maxDimension,
                               std::vector<Entry>& edges, std::vector<Entry>& columns,
                               ColumnBuilder* builder, const Monitor& monitor,
                               Result& result, RunReport& report,
                               const Parameters& parameters, std::size_t columnLimit);
template void higherDimensions(const SparseGraph& graph, const BinomialTable& binomial,
                               float threshold, int maxDimension,
                               std::vector<Entry>& edges, std::vector<Entry>& columns,
                               ColumnBuilder* builder, const Monitor& monitor,
                               Result& result, RunReport& report,
                               const Parameters& parameters, std::size_t columnLimit);

} // namespace topogpu::rips_persistence::detail
