// The Morse-Smale complex of a grid scalar field on the cubical complex of its discrete
// gradient (issue 6). Stage 2: saddle-extremum arcs and the manifolds of extrema, by
// root finding in the gradient forests (GradientForest.h), on the CPU (TBB) or the GPU
// with identical results. Saddle-saddle arcs (stage 3) are not computed yet.
//
// Labels (TTK's arrays): AscendingManifold (per vertex: the minimum its descending
// V-path reaches, an index into the minima), DescendingManifold (per vertex and per top
// cell: the maximum its ascending path reaches, an index into `maxima`). A top-cell path
// that leaves the box through a boundary facet goes on by steepest ascent of f on the
// boundary surface and ends at a boundary maximum (a boundary facet), unless that facet's
// top cell is a critical maximum. Every vertex and top cell gets a label.
#pragma once

#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/morse_smale_complex/SaddleConnections.h"

#include <algorithm>
#include <string>
#include <vector>

namespace topogpu::morse_smale_complex {

struct Parameters {
  Backend backend = Backend::Auto;
  // Stage 3, the 1-saddle to 2-saddle arcs with their multiplicities: the expensive
  // stage, so it can be switched off (3D only; 2D grids have none).
  bool computeSaddleConnections = true;
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

struct Output {
  discrete_gradient::Output gradient;
  // The maxima labels refer to: the critical top cells (gradient.criticalCells[d]) then
  // the boundary maxima (boundary facets reached by a path that left the box), all as
  // refined ids; boundaryMaxima counts the latter.
  std::vector<SimplexId> maxima;
  SimplexId boundaryMaxima = 0;
  std::vector<SimplexId> ascendingManifold;      // per vertex: index of its minimum
  std::vector<SimplexId> descendingManifold;     // per vertex: index in maxima
  std::vector<SimplexId> cellDescendingManifold; // per top cell (VTK cell id)
  std::vector<Arc> saddle1Minimum;               // from 1-saddles (critical edges)
  // From (d-1)-saddles: 2-saddles (critical squares) in 3D, 1-saddles in 2D.
  std::vector<Arc> saddleMaximum;
  // Vertices without an ascending / descending label, top cells without a label (0:
  // checked by the tests, reported by the CLI).
  SimplexId unlabelledAscending = 0, unlabelledDescending = 0, unlabelledCells = 0;
  // Stage 3 (empty in 2D or when switched off).
  saddle_connections::SaddleConnections saddleConnections;
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

void computeRootsCpu(const ScalarArrayView& values, const discrete_gradient::Output& dg,
                     const Monitor& monitor, Roots& roots, RunReport& report);
// GPU path in cuda/morse_smale_complex.
void computeRootsGpu(const ScalarArrayView& values, const discrete_gradient::Output& dg,
                     const Monitor& monitor, Roots& roots, RunReport& report);
std::size_t deviceBytes(const cubical::Grid& grid);
// Labels, maxima and arcs from the roots (host, shared by both paths).
void assemble(const Roots& roots, Output& output);

// Adds a stage's own report to the run's: timings appended (each names its backend), a
// warning both stages give (no device) kept once; the run counts as "gpu" only when every
// stage ran there, so a stage that fell back shows as "cpu" with its warning.
inline void mergeReport(const RunReport& stage, RunReport& report) {
  report.backend = report.backend == "gpu" && stage.backend == "gpu" ? "gpu" : "cpu";
  for (const std::string& w : stage.warnings)
    if (std::find(report.warnings.begin(), report.warnings.end(), w) ==
        report.warnings.end())
      report.warnings.push_back(w);
  report.timings.insert(report.timings.end(), stage.timings.begin(), stage.timings.end());
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, stage.peakDeviceBytes);
}

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output = Output();
  discrete_gradient::execute(tri, values,
                             discrete_gradient::Parameters{parameters.backend},
                             monitor.stage(0, 0.5), output.gradient);
  if (output.gradient.grid.dimension < 2)
    throw Error("the Morse-Smale complex needs a 2D or 3D grid; this grid has " +
                std::to_string(output.gradient.grid.dimension) +
                " axis of more than one "
                "vertex");
  // Stage 2's own report, merged below so that a warning both stages give (no device)
  // appears once.
  RunReport stage;
  const Backend resolved = resolveBackend(
      parameters.backend, detail::deviceBytes(output.gradient.grid), stage);
  detail::Roots roots;
  runWithFallback(
      resolved, "morse-smale complex", stage,
      [&] {
        detail::computeRootsGpu(values, output.gradient, monitor.stage(0.5, 0.8), roots,
                                stage);
      },
      [&] {
        roots = detail::Roots();
        detail::computeRootsCpu(values, output.gradient, monitor.stage(0.5, 0.8), roots,
                                stage);
      });
  output.report = output.gradient.report;
  detail::mergeReport(stage, output.report);
  monitor.checkAbort();
  detail::assemble(roots, output);
  if (parameters.computeSaddleConnections && output.gradient.grid.dimension == 3) {
    RunReport connections;
    const Backend resolvedConnections =
        resolveBackend(parameters.backend,
                       saddle_connections::deviceBytes(output.gradient), connections);
    saddle_connections::compute(output.gradient, resolvedConnections,
                                monitor.stage(0.85, 1), output.saddleConnections,
                                connections);
    detail::mergeReport(connections, output.report);
  }
  monitor.report(1.0);
}

} // namespace topogpu::morse_smale_complex
