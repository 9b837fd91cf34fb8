// The Morse-Smale complex of a grid scalar field on the cubical complex of its discrete
// gradient: stage 1 the discrete gradient, stage 2 saddle-extremum arcs and
// the manifolds of extrema by root finding in the gradient forests (GradientForest.h,
// ManifoldLabels.h), stage 3 the saddle connections (SaddleConnections.h). The CPU path
// runs the stages one after the other with TBB; the GPU path runs them all on the
// device (the gradient never leaves it between stages) with identical results, and a
// GPU failure reruns the whole complex on the CPU with a warning.
//
// Labels (TTK's arrays): DescendingManifold (per vertex: the minimum its descending
// V-path reaches, an index into the minima), AscendingManifold (per vertex and per top
// cell: the maximum its ascending path reaches, an index into `maxima`). A top-cell path
// that leaves the box through a boundary facet goes on by steepest ascent of f on the
// boundary surface and ends at a boundary maximum (a boundary facet), unless that facet's
// top cell is a critical maximum. Every vertex and top cell gets a label.
#pragma once

#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/morse_smale_complex/SaddleConnections.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::morse_smale_complex {

struct Parameters {
  Backend backend = Backend::Auto;
  // Stage 3, the 1-saddle to 2-saddle arcs with their multiplicities: the expensive
  // stage, so it can be switched off (3D only; 2D grids have none).
  bool computeSaddleConnections = true;
  // The CPU path's vertex order: the front end's (sorted once per field), else its own.
  VertexOrderSource vertexOrder{};
  // Keep the vertex order in Output::rank (the output records read it; the GPU path
  // then downloads it).
  bool keepVertexOrder = false;
};

// One saddle-extremum arc: refined-grid ids of the saddle and the extremum (a maximum
// is a critical top cell or a boundary maximum facet). Both V-paths of a saddle may reach
// the same extremum: then one arc with multiplicity 2.
struct Arc {
  SimplexId saddle = -1;
  SimplexId extremum = -1;
  int multiplicity = 1;
  bool operator==(const Arc& o) const {
    return saddle == o.saddle && extremum == o.extremum && multiplicity == o.multiplicity;
  }
};

// Manifold labels are indices of extrema: 32 bits (as TTK's default SimplexId) halve the
// three per-element arrays, the complex's largest output and the GPU's largest download.
// More than 2^31 - 1 extrema of one kind is an Error (checkLabelRange).
using ManifoldLabel = std::int32_t;

struct Output {
  discrete_gradient::Output gradient;
  // The maxima labels refer to: the critical top cells (gradient.criticalCells[d]) then
  // the boundary maxima (boundary facets reached by a path that left the box), all as
  // refined ids; boundaryMaxima counts the latter.
  std::vector<SimplexId> maxima;
  SimplexId boundaryMaxima = 0;
  std::vector<ManifoldLabel> descendingManifold;    // per vertex: index of its minimum
  std::vector<ManifoldLabel> ascendingManifold;     // per vertex: index in maxima
  std::vector<ManifoldLabel> cellAscendingManifold; // per top cell (VTK cell id)
  std::vector<Arc> saddle1Minimum;                  // from 1-saddles (critical edges)
  // From (d-1)-saddles: 2-saddles (critical squares) in 3D, 1-saddles in 2D.
  std::vector<Arc> saddleMaximum;
  // Vertices without an ascending / descending label, top cells without a label (0:
  // checked by the tests, reported by the CLI).
  SimplexId unlabelledDescending = 0, unlabelledAscending = 0, unlabelledCells = 0;
  // Stage 3 (empty in 2D or when switched off; saddleConnectionsComputed tells which).
  saddle_connections::SaddleConnections saddleConnections;
  bool saddleConnectionsComputed = false;
  // The vertex order, with Parameters::keepVertexOrder (else empty).
  std::vector<SimplexId> rank;
  RunReport report;
};

// Throws Error for bad input (a mesh, a grid of dimension < 2, as the gradient's).
template <typename Triangulation>
void execute(Triangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output);

// Arc geometry is recomputed on demand rather than stored: the cells (refined ids) of one
// V-path, from a saddle's face or coface to its extremum. descendingPath: from vertex v,
// vertex, edge, vertex, ..., minimum. ascendingPath: from top cell t (VTK cell id), top
// cell, facet, top cell, ..., maximum; a path that leaves the box goes on over boundary
// facets (the boundary rule, which needs the vertex order `rank`) to its boundary root.
std::vector<SimplexId> descendingPath(const discrete_gradient::Output& gradient,
                                      SimplexId v);
std::vector<SimplexId> ascendingPath(const discrete_gradient::Output& gradient,
                                     const SimplexId* rank, SimplexId t);

namespace detail {

// Roots of the three forests: per vertex its minimum vertex, per top cell its maximum top
// cell or -1 - exit facet; per boundary facet its boundary root (boundary index).
struct Roots {
  std::vector<SimplexId> vertex, topCell, boundary;
  std::vector<SimplexId> rank; // the vertex order
};

// The roots of the three forests; roots.rank must hold the vertex order already.
void computeRootsCpu(const discrete_gradient::Output& dg, const Monitor& monitor,
                     Roots& roots, RunReport& report);
// Labels, maxima and arcs from the roots (the CPU path; the GPU computes the same with
// the rules of ManifoldLabels.h on the device).
void assemble(const Roots& roots, Output& output);
void countUnlabelled(Output& output);
// Throws Error when `count` extrema (`kind`: "minima", "maxima") cannot be numbered by a
// ManifoldLabel.
void checkLabelRange(SimplexId count, const char* kind);
// Arcs of each saddle from its two path ends (2 per saddle, -1 for a side outside the
// box).
void addArcs(const std::vector<SimplexId>& saddles, const std::vector<SimplexId>& ends,
             std::vector<Arc>& arcs);

// Device memory the whole GPU pipeline needs (resolveBackend's estimate).
std::size_t deviceBytes(const cubical::Grid& grid, const ScalarArrayView& values,
                        const Parameters& parameters);

// The GPU pipeline (cuda/morse_smale_complex): all stages on the device, the gradient,
// vertex order and roots never leaving it; identical output to the CPU's.
void runGpu(const cubical::Grid& grid, const ScalarArrayView& values,
            const Parameters& parameters, const Monitor& monitor, Output& output);

// Adds a stage's own report to the run's: timings appended (each names its backend), a
// warning both stages give (no device) kept once; the run counts as "gpu" only when every
// stage ran there, so a stage that fell back shows as "cpu" with its warning.
inline void mergeReport(const RunReport& stage, RunReport& report) {
  report.backend = report.backend == "gpu" && stage.backend == "gpu" ? "gpu" : "cpu";
  for (const Warning& w : stage.warnings)
    if (std::find(report.warnings.begin(), report.warnings.end(), w) ==
        report.warnings.end())
      report.warnings.push_back(w);
  report.timings.insert(report.timings.end(), stage.timings.begin(), stage.timings.end());
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, stage.peakDeviceBytes);
}

// The CPU path: the discrete gradient, the forests' roots, labels and arcs, then the
// saddle connections, every stage with TBB. The gradient's vertex order serves the
// later stages (execute has validated the field and made the grid).
template <typename Triangulation>
void runCpu(Triangulation& tri, const ScalarArrayView& values,
            const Parameters& parameters, const Monitor& monitor, Output& output) {
  Roots roots;
  output.gradient.grid = cubical::gridOf(tri.dims());
  discrete_gradient::detail::runCpu(values, monitor.stage(0, 0.5), output.gradient,
                                    &roots.rank, parameters.vertexOrder);
  discrete_gradient::detail::summarize(output.gradient);
  output.gradient.report.backend = "cpu";
  output.report = output.gradient.report;
  computeRootsCpu(output.gradient, monitor.stage(0.5, 0.8), roots, output.report);
  monitor.checkAbort();
  assemble(roots, output);
  if (parameters.keepVertexOrder)
    output.rank = std::move(roots.rank);
  roots = Roots(); // 4 words per vertex, not needed by stage 3
  if (parameters.computeSaddleConnections && output.gradient.grid.dimension == 3) {
    RunReport connections;
    saddle_connections::compute(output.gradient, Backend::Cpu, monitor.stage(0.85, 1),
                                output.saddleConnections, connections);
    mergeReport(connections, output.report);
  }
}

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output = Output();
  if constexpr (!isGridTriangulation<Triangulation>) {
    // The gradient's own check names the problem (a mesh has no cubical complex).
    discrete_gradient::execute(tri, values, {parameters.backend}, monitor,
                               output.gradient);
  } else {
    validateVertexField(tri.getNumberOfVertices(), values);
    const cubical::Grid grid = cubical::gridOf(tri.dims());
    if (grid.dimension < 2)
      throw Error("the Morse-Smale complex needs a 2D or 3D grid; this grid has " +
                  std::to_string(grid.dimension) + " axis of more than one vertex");
    RunReport report;
    const Backend resolved = resolveBackend(
        parameters.backend, detail::deviceBytes(grid, values, parameters), report);
    runWithFallback(
        resolved, "morse-smale complex", report,
        [&] { detail::runGpu(grid, values, parameters, monitor, output); },
        [&] {
          output = Output();
          detail::runCpu(tri, values, parameters, monitor, output);
        });
    output.saddleConnectionsComputed =
        parameters.computeSaddleConnections && grid.dimension == 3;
    // The run's warnings (no device, a GPU failure) first, then the stages'.
    detail::mergeReport(output.report, report);
    output.report = std::move(report);
    monitor.report(1.0);
  }
}

} // namespace topogpu::morse_smale_complex
