// Rips persistence (Ripser's method, with Ripser++'s apparent pairs): the checks of a
// run, its distances, threshold and size estimate, the edges and dimension 0, the graph
// of the dimensions above (dense or sparse) and the backend's entry point.
#include "RipsPersistence.h"

#include "RipsCombinatorics.h"
#include "RipsDimensions.h"
#include "RipsDistances.h"
#include "RipsEstimate.h"
#include "RipsGraphs.h"

#include "base/Timer.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::rips_persistence {

namespace {

using detail::denseEnclosingRadius;
using detail::Entry;
using detail::sparseEnclosingRadius;
using detail::SparseGraph;
using detail::streamedEnclosingRadius;
using detail::validate;

RipsGraph graphView(SimplexId n, float threshold, int maxDimension,
                    const BinomialTable& binomial) {
  RipsGraph view;
  view.n = n;
  view.threshold = threshold;
  view.maxDimension = maxDimension;
  view.binomial = binomial.data();
  return view;
}

// The edges under the threshold, named by their combinatorial index (a point cloud's
// distances streamed when `lower` is null, a sparse input's from its edges).
std::vector<Entry> edgesUnder(const RipsInput& input, const std::vector<float>* lower,
                              float threshold, const Monitor& monitor) {
  const SimplexId n = input.numberOfPoints;
  const bool cloud = lower == nullptr;
  std::vector<Entry> edges;
  if (input.format == InputFormat::Sparse) {
    for (const auto& e : input.edges) {
      if (e.distance <= threshold)
        edges.push_back({e.distance, e.i * (e.i - 1) / 2 + e.j});
    }
  } else {
    tbb::enumerable_thread_specific<std::vector<Entry>> locals;
    detail::forRowsInBlocks(n, monitor, [&](SimplexId i) {
      auto& local = locals.local();
      for (SimplexId j = 0; j < i; ++j) {
        const SimplexId e = i * (i - 1) / 2 + j;
        const float d =
            cloud ? detail::pointDistance(input, i, j) : (*lower)[std::size_t(e)];
        if (d <= threshold)
          local.push_back({d, e});
      }
    });
    for (auto& local : locals)
      edges.insert(edges.end(), local.begin(), local.end());
  }
  return edges;
}

// Each vertex's neighbours under the threshold and their distances, sorted by
// neighbour, as CSR lists (the layout of RipsGraph and device::SparseDistances).
struct SparseLists {
  std::vector<SimplexId> offsets, neighbors;
  std::vector<float> distances;
};
SparseLists sparseLists(SimplexId n, const BinomialTable& binomial,
                        const std::vector<Entry>& edges) {
  SparseLists lists;
  lists.offsets.assign(std::size_t(n) + 1, 0);
  for (const Entry& e : edges) {
    SimplexId v[2];
    simplexVertices(binomial, e.index, 2, v);
    ++lists.offsets[std::size_t(v[0]) + 1];
    ++lists.offsets[std::size_t(v[1]) + 1];
  }
  for (SimplexId v = 0; v < n; ++v)
    lists.offsets[std::size_t(v) + 1] += lists.offsets[std::size_t(v)];
  std::vector<std::pair<SimplexId, float>> entries(2 * edges.size());
  std::vector<SimplexId> at(lists.offsets.begin(), lists.offsets.end() - 1);
  for (const Entry& e : edges) {
    SimplexId v[2];
    simplexVertices(binomial, e.index, 2, v);
    entries[std::size_t(at[std::size_t(v[0])]++)] = {v[1], e.diameter};
    entries[std::size_t(at[std::size_t(v[1])]++)] = {v[0], e.diameter};
  }
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId v) {
    std::sort(entries.begin() + lists.offsets[std::size_t(v)],
              entries.begin() + lists.offsets[std::size_t(v) + 1]);
  });
  lists.neighbors.reserve(entries.size());
  lists.distances.reserve(entries.size());
  for (const auto& [w, d] : entries) {
    lists.neighbors.push_back(w);
    lists.distances.push_back(d);
  }
  return lists;
}

} // namespace

double enclosingRadius(const RipsInput& input) {
  const float stored =
      input.format == InputFormat::Sparse
          ? sparseEnclosingRadius(input.numberOfPoints, input.edges)
      : input.format == InputFormat::PointCloud
          ? streamedEnclosingRadius(input, Monitor{})
          : denseEnclosingRadius(input.numberOfPoints, input.lowerDistances, Monitor{});
  return std::ldexp(double(stored), input.scaleExponent);
}

namespace detail {

void validate(const RipsInput& input, const Parameters& parameters) {
  if (parameters.maxDimension < 0 || parameters.maxDimension > kMaxDimensionLimit)
    throw Error("the maximum dimension must be >= 0 and at most " +
                std::to_string(kMaxDimensionLimit) + ", got " +
                std::to_string(parameters.maxDimension));
  if (std::isnan(parameters.threshold) || parameters.threshold <= 0)
    throw Error("the threshold must be > 0, got " + std::to_string(parameters.threshold));
  if (parameters.threads < 0 || parameters.threads > kMaxThreads)
    throw Error("the number of threads must be >= 0 (0: all cores) and at most " +
                std::to_string(kMaxThreads) + ", got " +
                std::to_string(parameters.threads));
  const SimplexId n = input.numberOfPoints;
  if (n < 2)
    throw Error(n == 0
                    ? "the input is empty: no points or distances"
                    : "the input has a single point: Rips persistence needs at least 2");
  if (SimplexId(parameters.maxDimension) + 2 > n)
    throw Error("dimension " + std::to_string(parameters.maxDimension) +
                " needs at least " + std::to_string(parameters.maxDimension + 2) +
                " points (simplices of " + std::to_string(parameters.maxDimension + 2) +
                " vertices), the input has " + std::to_string(n));
  const bool dense = input.format != InputFormat::Sparse;
  if (dense && input.format != InputFormat::PointCloud &&
      input.lowerDistances.size() != std::size_t(n) * std::size_t(n - 1) / 2)
    throw Error("the distance matrix has " + std::to_string(input.lowerDistances.size()) +
                " entries, not n(n-1)/2 for n = " + std::to_string(n));
  if (input.format == InputFormat::PointCloud &&
      input.points.size() != std::size_t(n) * std::size_t(input.pointDimension))
    throw Error("the point cloud's coordinates do not match its size");
  if (!(parameters.memoryBudget > 0))
    throw Error("the memory budget must be > 0 bytes, got " +
                std::to_string(parameters.memoryBudget));
  // Simplex indices must fit in 63 bits: checked before anything is allocated.
  BinomialTable::checkIndexRange(n, parameters.maxDimension + 2);
}

void executeWith(const RipsInput& input, const Parameters& parameters,
                 const Monitor& monitor, const ColumnBuilderFactory& factory,
                 const DistanceFunction& deviceDistances, Result& result,
                 RunReport& report) {
  result = Result{};
  validate(input, parameters);
  std::unique_ptr<tbb::global_control> threads;
  if (parameters.threads > 0)
    threads = std::make_unique<tbb::global_control>(
        tbb::global_control::max_allowed_parallelism, std::size_t(parameters.threads));
  const SimplexId n = input.numberOfPoints;
  const int maxDimension = parameters.maxDimension;
  result.numberOfPoints = n;
  result.intervals.assign(std::size_t(maxDimension) + 1, {});
  result.stats.assign(std::size_t(maxDimension) + 1, {});

  Timer timer;
  // A point cloud's matrix is streamed (never stored) until the dense path needs it.
  bool cloud = input.format == InputFormat::PointCloud;
  std::vector<float> computed;
  const std::vector<float>* lower = &input.lowerDistances;
  // The device's matrix is stored on the host too: not when it alone passes the budget.
  const double matrixBytes = double(n) * double(n - 1) / 2 * sizeof(float);
  if (cloud && deviceDistances && matrixBytes <= parameters.memoryBudget) {
    // The device's matrix (the same floats: double sums, one rounding) replaces the
    // streamed distances from here on.
    deviceDistances(input, computed, report);
    lower = &computed;
    cloud = false;
  }
  // The progress bar: distances, estimate, edges and dimension 0 take the first tenth,
  // the dimensions above share the rest (higherDimensions).
  const bool sparseInput = input.format == InputFormat::Sparse;
  const Monitor radiusStage = monitor.stage(0, 0.02);
  // Distances as stored (times 2^-scaleExponent); the results in the input's units.
  const int scale = input.scaleExponent;
  const float radius = sparseInput ? sparseEnclosingRadius(n, input.edges)
                       : cloud     ? streamedEnclosingRadius(input, radiusStage)
                                   : denseEnclosingRadius(n, *lower, radiusStage);
  const float threshold = detail::runThreshold(input, parameters.threshold, radius);
  result.enclosingRadius = std::ldexp(double(radius), scale);
  result.threshold = std::ldexp(double(threshold), scale);
  report.timings.emplace_back("distances (cpu)", timer.seconds());
  monitor.checkAbort();
  timer.reset();

  // The run's size before anything large is allocated: refused when it does not fit.
  const std::vector<float>* stored = sparseInput || cloud ? nullptr : lower;
  const Monitor estimateStage = monitor.stage(0.02, 0.04);
  const Estimate size = detail::estimateAt(input, stored, parameters, threshold, radius,
                                           estimateStage, false);
  detail::refuseUnlessItFits(input, stored, parameters, size, estimateStage);
  // What is left for the columns of dimensions >= 2 (stored twice while gathered).
  const double columnBytes =
      parameters.memoryBudget - size.bytes[std::size_t(maxDimension)];
  const std::size_t columnLimit =
      columnBytes / (2 * sizeof(Entry)) >= double(std::numeric_limits<std::size_t>::max())
          ? std::numeric_limits<std::size_t>::max()
          : std::size_t(columnBytes / (2 * sizeof(Entry)));
  report.timings.emplace_back("estimate (cpu)", timer.seconds());
  timer.reset();
  const BinomialTable binomial(n, maxDimension + 2);

  std::vector<Entry> edges = edgesUnder(input, sparseInput || cloud ? nullptr : lower,
                                        threshold, monitor.stage(0.04, 0.07));
  result.edges = SimplexId(edges.size());
  const double allPairs = double(n) * double(n - 1) / 2;
  result.sparse =
      sparseInput || parameters.sparse == SparseMode::Sparse ||
      (parameters.sparse == SparseMode::Auto && double(edges.size()) * 4 < allPairs);

  std::vector<Entry> columns;
  dimensionZero(n, binomial, edges, result.intervals[0], result.stats[0], columns,
                monitor.stage(0.07, 0.1));
  report.timings.emplace_back("dim 0 (cpu)", timer.seconds());
  monitor.report(0.1);
  if (maxDimension >= 1) {
    if (result.sparse) {
      timer.reset();
      SparseLists lists = sparseLists(n, binomial, edges);
      RipsGraph view; // outlives the builder
      std::unique_ptr<ColumnBuilder> builder;
      if (factory) {
        view = graphView(n, threshold, maxDimension, binomial);
        view.sparse = true;
        view.offsets = lists.offsets;
        view.neighbors = lists.neighbors;
        view.distances = lists.distances;
        builder = factory(view, report);
      }
      const SparseGraph graph(n, std::move(lists.offsets), std::move(lists.neighbors),
                              std::move(lists.distances));
      report.timings.emplace_back("sparse graph (cpu)", timer.seconds());
      higherDimensions(graph, binomial, threshold, maxDimension, edges, columns,
                       builder.get(), monitor, result, report, parameters, columnLimit);
    } else {
      if (cloud) {
        timer.reset();
        computed = pointDistances(input, monitor.stage(0.1, 0.1));
        lower = &computed;
        report.timings.emplace_back("distance matrix (cpu)", timer.seconds());
      }
      const detail::DenseGraph graph(n, lower->data());
      RipsGraph view; // outlives the builder
      std::unique_ptr<ColumnBuilder> builder;
      if (factory) {
        view = graphView(n, threshold, maxDimension, binomial);
        view.lower = lower->data();
        builder = factory(view, report);
      }
      higherDimensions(graph, binomial, threshold, maxDimension, edges, columns,
                       builder.get(), monitor, result, report, parameters, columnLimit);
    }
  }
  if (scale != 0) {
    for (auto& bars : result.intervals) {
      for (Interval& bar : bars) {
        bar.birth = std::ldexp(bar.birth, scale);
        bar.death = std::ldexp(bar.death, scale);
      }
    }
  }
  monitor.report(1.0);
}

} // namespace detail

void execute(const RipsInput& input, const Parameters& parameters, const Monitor& monitor,
             Result& result, RunReport& report) {
  result = Result{};
  validate(input, parameters);
  // Auto runs the CPU backend: on the H200 host (16 cores) it is within 1.8x of the GPU
  // backend on every set of the benchmark (faster on sphere_3_192 and dragon1000, whose
  // time is the reduction) with no device start-up or memory (docs/benchmarks.md); the
  // GPU runs when asked for.
  if (parameters.backend != Backend::Gpu) {
    report.backend = "cpu";
    detail::executeWith(input, parameters, monitor, {}, {}, result, report);
    return;
  }
  detail::executeOnDevice(input, parameters, monitor, result, report);
}

} // namespace topogpu::rips_persistence
