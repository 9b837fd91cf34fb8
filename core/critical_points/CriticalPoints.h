// Critical points of a piecewise-linear scalar field: each vertex is classified by the
// connected components of its lower and upper links (Banchoff; TTK's
// ScalarFieldCriticalPoints), with ties broken by the shared vertex order.
#pragma once

#include "base/ScalarArray.h"
#include "base/Timer.h"
#include "base/Types.h"
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/common/TriangulationTraits.h"
#include "core/common/VertexOrder.h"
#include "core/critical_points/CriticalPointsCpu.h"
#include "core/critical_points/CriticalType.h"
#include "triangulation/Relations.h"

#include <tbb/parallel_for.h>

#include <array>
#include <string>
#include <vector>

namespace topogpu::critical_points {

struct Parameters {
  Backend backend = Backend::Auto; // GPU runs on regular grids; meshes use the CPU
  // The CPU path's vertex order: the front end's (sorted once per field), else its own.
  VertexOrderSource vertexOrder{};
};

struct Output {
  std::vector<std::int8_t> vertexTypes;    // CriticalType of every vertex
  std::vector<SimplexId> criticalVertices; // non-regular vertices, ascending ids
  std::vector<char> criticalOnBoundary;    // parallel to criticalVertices
  std::array<SimplexId, kCriticalTypeCount> counts{};
  RunReport report;

  void clear() { *this = Output(); }
  SimplexId count(CriticalType t) const { return counts[int(t)]; }
};

// The relations the generic (mesh) classification reads, as TTK's
// preconditionTriangulation; the grid path's stencil needs none.
constexpr Relations kRequiredRelations = VV | VertexStar | BoundaryVertices;

// Throws Error for bad input (size mismatch, NaN/Inf values), Aborted on abort.
// Fills output; report says which backend ran and the stage timings. Progress runs
// 0..1 once over the stages (vertex order, classification, summary).
// Triangulation: any backend with the generic accessors; regular grids
// (isGridTriangulation) run on the GPU when the backend resolves to it, falling back to
// the CPU on a GPU failure.
template <typename Triangulation>
void execute(Triangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output);

// ---- implementation ------------------------------------------------------------------

namespace detail {

// Where each stage ends on the 0..1 progress bar.
constexpr double kOrderEnd = 0.4, kClassifyEnd = 0.9;

// Ascending ids of the non-regular vertices.
std::vector<SimplexId> selectCritical(const std::vector<std::int8_t>& types);

// Device memory the GPU grid path needs, for resolveBackend.
std::size_t gridDeviceBytes(const ScalarArrayView& values);

// The GPU grid path: vertex order, classification and the compacted list on the device.
void classifyGridOnGpu(const grid::Dims& dims, const ScalarArrayView& values,
                       const Monitor& monitor, Output& output);

// Mesh-only diagnostics: non-manifold facets and vertices outside every cell (counted
// by the classification).
template <typename Triangulation>
void warnAboutMesh(const Triangulation& tri, SimplexId isolated, RunReport& report) {
  if constexpr (CountsNonManifoldFacets<Triangulation>::value) {
    if (tri.getNumberOfNonManifoldFacets() > 0)
      report.warnings.push_back(
          {WarningCode::NonManifoldMesh,
           "the mesh is non-manifold: " +
               std::to_string(tri.getNumberOfNonManifoldFacets()) +
               (tri.getDimension() == 3 ? " triangles are" : " edges are") +
               " shared by more than two cells; vertices are still classified by the "
               "components of their links"});
  }
  if (isolated > 0)
    report.warnings.push_back({WarningCode::IsolatedVertices,
                               std::to_string(isolated) +
                                   " vertices belong to no cell; their links are empty "
                                   "and each is reported as degenerate"});
}

// Compacted list (unless the GPU made it), counts and boundary flags.
template <typename Triangulation>
void summarize(const Triangulation& tri, Output& output, bool listReady,
               const Monitor& monitor) {
  Timer timer;
  if (!listReady)
    output.criticalVertices = selectCritical(output.vertexTypes);
  output.counts.fill(0);
  output.counts[int(CriticalType::Regular)] =
      SimplexId(output.vertexTypes.size() - output.criticalVertices.size());
  for (const SimplexId v : output.criticalVertices)
    ++output.counts[output.vertexTypes[v]];
  output.criticalOnBoundary.resize(output.criticalVertices.size());
  tbb::parallel_for(std::size_t(0), output.criticalVertices.size(), [&](std::size_t i) {
    output.criticalOnBoundary[i] =
        tri.isVertexOnBoundary(output.criticalVertices[i]) ? 1 : 0;
  });
  output.report.timings.emplace_back("summary", timer.seconds());
  monitor.report(1.0);
}

// The CPU path: the relations the classifier reads, the vertex order, the classifier.
template <typename Triangulation>
SimplexId runCpu(Triangulation& tri, Relations relations, const ScalarArrayView& values,
                 const VertexOrderSource& vertexOrder, const Monitor& monitor,
                 Output& output) {
  Timer timer;
  tri.precondition(relations);
  output.report.timings.emplace_back("precondition", timer.seconds());
  monitor.checkAbort();
  const VertexOrderView order =
      vertexOrderOf(vertexOrder, values, monitor.stage(0, kOrderEnd), output.report);
  monitor.checkAbort();
  output.vertexTypes.resize(values.size);
  timer.reset();
  const SimplexId isolated =
      classifyVerticesCpu(tri, order.data(), output.vertexTypes.data(),
                          monitor.stage(kOrderEnd, kClassifyEnd));
  output.report.timings.emplace_back("classify (cpu)", timer.seconds());
  return isolated;
}

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output.clear();
  validateVertexField(tri.getNumberOfVertices(), values);
  bool listReady = false;
  SimplexId isolated = 0;
  if constexpr (isGridTriangulation<Triangulation>) {
    // The grid's stencil classifier needs no relations; the summary reads the boundary
    // flags (free on grids, but asked for like any relation).
    tri.precondition(BoundaryVertices);
    const Backend resolved = resolveBackend(
        parameters.backend, detail::gridDeviceBytes(values), output.report);
    runWithFallback(
        resolved, "critical points", output.report,
        [&] {
          detail::classifyGridOnGpu(tri.dims(), values,
                                    monitor.stage(0, detail::kClassifyEnd), output);
          listReady = true;
        },
        [&] {
          output.vertexTypes.clear();
          output.criticalVertices.clear();
          detail::runCpu(tri, Relations(0), values, parameters.vertexOrder, monitor,
                         output);
        });
  } else {
    if (parameters.backend == Backend::Gpu)
      output.report.warnings.push_back(
          {WarningCode::NoGpuPath,
           "the GPU path of critical points runs on regular grids only; this mesh runs "
           "on the CPU"});
    output.report.backend = "cpu";
    isolated = detail::runCpu(tri, kRequiredRelations, values, parameters.vertexOrder,
                              monitor, output);
  }
  monitor.checkAbort();
  detail::summarize(tri, output, listReady, monitor.stage(detail::kClassifyEnd, 1));
  if constexpr (!isGridTriangulation<Triangulation>)
    detail::warnAboutMesh(tri, isolated, output.report);
}

} // namespace topogpu::critical_points
