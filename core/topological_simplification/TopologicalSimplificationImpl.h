// The execute template of TopologicalSimplification.h: the input diagram, the kept
// extrema, the sweeps on the backend asked for (SimplificationSweep.h on the CPU, the
// grid kernels on the GPU), the check.
#pragma once

#include "base/Timer.h"
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/common/TriangulationTraits.h"
#include "core/persistence_diagram/SimplicialPersistence.h"
#include "core/topological_simplification/SimplificationSweep.h"
#include "core/topological_simplification/TopologicalSimplification.h"

#include <cstring>
#include <string>
#include <vector>

namespace topogpu::topological_simplification {

namespace detail {

void validate(SimplexId numberOfVertices, const ScalarArrayView& values,
              const Parameters& parameters);

// The absolute threshold (relative: times max - min of values).
double absoluteThreshold(const ScalarArrayView& values, const Parameters& parameters);

// The sources of the two sweeps and the input's extrema, per vertex.
struct Extrema {
  std::vector<char> keptMinimum, keptMaximum; // Kmin, Kmax
  std::vector<char> boundary;
};

// Kmin and Kmax from the diagram (threshold mode) or the constraints (constraint mode:
// those that are extrema of the input, isMinimum/isMaximum; warnings for the others),
// with the essential minima.
void selectExtrema(const pd::Diagram& diagram, const Parameters& parameters,
                   double threshold, const std::vector<char>& isMinimum,
                   const std::vector<char>& isMaximum, Extrema& extrema,
                   RunReport& report);

// The input diagram's pairs split into kept and removed, the kept extrema listed, the
// changed vertices counted, warnings for extra or lost extrema (minima, maxima: the
// output's, per vertex).
void finishOutput(const pd::Diagram& diagram, const ScalarArrayView& values,
                  const Extrema& extrema, const std::vector<char>& flattened,
                  const std::vector<char>& minima, const std::vector<char>& maxima,
                  Output& output);

// Device bytes of the grid path, for resolveBackend.
std::size_t gridDeviceBytes(const ScalarArrayView& values);

// The sweeps of a grid on the device (TopologicalSimplificationGpu.h), bit for bit the
// CPU's; output.values holds the input's values on entry.
void simplifyGridOnGpu(const grid::Dims& dims, const ScalarArrayView& values,
                       const std::vector<SimplexId>& rank, const Extrema& extrema,
                       int maximumIterations, const Monitor& monitor, Output& output,
                       std::vector<char>& flattened);

// Sources of the maximum sweep: Kmax and the boundary.
std::vector<char> maximumSources(const Extrema& extrema);

// The sweeps on the CPU, repeated until no extremum outside the kept ones is left or
// the iterations run out.
template <typename Triangulation>
void simplifyCpu(const Triangulation& tri, const std::vector<SimplexId>& inputRank,
                 const Extrema& extrema, int maximumIterations, const Monitor& monitor,
                 Output& output, std::vector<char>& flattened) {
  const SimplexId n = SimplexId(inputRank.size());
  const ScalarArrayView current{output.values.data(), output.type, n};
  const std::vector<char> maxSources = maximumSources(extrema);
  std::vector<SimplexId> rank(inputRank), next(static_cast<std::size_t>(n)),
      mirrored(static_cast<std::size_t>(n));
  output.iterations = 0;
  while (output.iterations < maximumIterations) {
    ++output.iterations;
    sweep(tri, rank.data(), extrema.keptMinimum.data(), current, output.values.data(),
          next.data(), flattened.data(), monitor);
    tbb::parallel_for(SimplexId(0), n,
                      [&](SimplexId v) { mirrored[std::size_t(v)] = n - 1 - next[v]; });
    sweep(tri, mirrored.data(), maxSources.data(), current, output.values.data(),
          next.data(), flattened.data(), monitor);
    tbb::parallel_for(SimplexId(0), n,
                      [&](SimplexId v) { rank[std::size_t(v)] = n - 1 - next[v]; });
    monitor.report(double(output.iterations) / maximumIterations);
    const auto minima = extremumFlags(tri, rank.data(), extrema.boundary.data(), n, true);
    const auto maxima =
        extremumFlags(tri, rank.data(), extrema.boundary.data(), n, false);
    bool extra = false;
    for (SimplexId v = 0; v < n && !extra; ++v)
      extra = (minima[std::size_t(v)] && !extrema.keptMinimum[std::size_t(v)]) ||
              (maxima[std::size_t(v)] && !extrema.keptMaximum[std::size_t(v)]);
    if (!extra)
      break;
  }
  output.order = std::move(rank);
}

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output = Output();
  output.type = values.type;
  if (values.size <= 1 && tri.getNumberOfVertices() == values.size) {
    if (firstNonFiniteValue(values) >= 0)
      throw Error("scalar array has a NaN or infinite value at vertex 0");
    output.report.backend = "cpu";
    return; // nothing to simplify: an empty output
  }
  detail::validate(tri.getNumberOfVertices(), values, parameters);
  RunReport& report = output.report;
  // The input diagram, and its vertex order.
  pd::Diagram diagram;
  std::vector<SimplexId> rank;
  {
    pd::Parameters pp;
    pp.backend = parameters.backend;
    pp.vertexOrder = parameters.vertexOrder;
    pp.memoryBudget = parameters.memoryBudget;
    morse_smale_complex::simplicial::Output complex;
    pd::execute(tri, values, pp, monitor.stage(0, 0.6), diagram, &complex);
    rank = std::move(complex.rank);
  }
  for (const auto& t : diagram.report.timings)
    report.timings.emplace_back("diagram: " + t.first, t.second);
  for (const Warning& w : diagram.report.warnings)
    report.warnings.push_back(w);
  Timer timer;
  const SimplexId n = values.size;
  if constexpr (!isGridTriangulation<Triangulation>)
    tri.precondition(kRequiredRelations);
  detail::Extrema extrema;
  extrema.boundary.assign(std::size_t(n), 0);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId v) {
    extrema.boundary[std::size_t(v)] = tri.isVertexOnBoundary(v) ? 1 : 0;
  });
  output.threshold = detail::absoluteThreshold(values, parameters);
  detail::selectExtrema(
      diagram, parameters, output.threshold,
      detail::extremumFlags(tri, rank.data(), extrema.boundary.data(), n, true),
      detail::extremumFlags(tri, rank.data(), extrema.boundary.data(), n, false), extrema,
      report);
  report.timings.emplace_back("kept extrema (cpu)", timer.seconds());
  monitor.checkAbort();
  timer.reset();
  const std::size_t bytes = std::size_t(n) * scalarTypeSize(values.type);
  std::vector<char> flattened(std::size_t(n), 0);
  auto cpu = [&] {
    output.values.assign(static_cast<const unsigned char*>(values.data),
                         static_cast<const unsigned char*>(values.data) + bytes);
    std::fill(flattened.begin(), flattened.end(), char(0));
    detail::simplifyCpu(tri, rank, extrema, parameters.maximumIterations,
                        monitor.stage(0.6, 0.95), output, flattened);
    report.timings.emplace_back("sweeps (cpu)", timer.seconds());
  };
  if constexpr (isGridTriangulation<Triangulation>) {
    const Backend resolved =
        resolveBackend(parameters.backend, detail::gridDeviceBytes(values), report);
    runWithFallback(
        resolved, "topological simplification", report,
        [&] {
          output.values.assign(static_cast<const unsigned char*>(values.data),
                               static_cast<const unsigned char*>(values.data) + bytes);
          detail::simplifyGridOnGpu(tri.dims(), values, rank, extrema,
                                    parameters.maximumIterations,
                                    monitor.stage(0.6, 0.95), output, flattened);
          report.timings.emplace_back("sweeps (gpu)", timer.seconds());
        },
        cpu);
  } else {
    if (parameters.backend == Backend::Gpu)
      report.warnings.push_back({WarningCode::NoGpuPath,
                                 "the GPU path of the topological simplification runs on "
                                 "regular grids only; this mesh runs on the CPU"});
    report.backend = "cpu";
    cpu();
  }
  timer.reset();
  detail::finishOutput(
      diagram, values, extrema, flattened,
      detail::extremumFlags(tri, output.order.data(), extrema.boundary.data(), n, true),
      detail::extremumFlags(tri, output.order.data(), extrema.boundary.data(), n, false),
      output);
  report.timings.emplace_back("check (cpu)", timer.seconds());
  monitor.report(1.0);
}

} // namespace topogpu::topological_simplification
