// The discrete gradient of a grid scalar field on the grid's cubical cell complex
// (vertices, edges, squares, voxels): ProcessLowerStars of Robins, Wood and Sheppard,
// "Theory and algorithms for constructing discrete Morse complexes from grayscale
// digital images" (2011), with values made distinct by the shared vertex order. Its
// critical cells are exactly the homology changes of the lower-star filtration. The
// first stage of the grid Morse-Smale complex.
//
// The cubical complex exists on regular grids only, so execute accepts any
// triangulation type (the filter and the CLI visit whichever they hold) but rejects a
// mesh with an Error. A grid with a 1-voxel-thick axis is the 2D complex of its other
// two axes (the implicit triangulation squeezes the axis), as for the critical points.
#pragma once

#include "base/ScalarArray.h"
#include "base/Timer.h"
#include "base/Types.h"
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/common/TriangulationTraits.h"
#include "core/common/VertexOrder.h"
#include "core/discrete_gradient/CubicalGrid.h"

#include <array>
#include <cstdint>
#include <vector>

namespace topogpu::discrete_gradient {

struct Parameters {
  Backend backend = Backend::Auto;
  // The CPU path's vertex order: the front end's (sorted once per field), else its own.
  VertexOrderSource vertexOrder{};
};

struct Output {
  cubical::Grid grid; // the (squeezed) vertex counts the cell ids refer to
  // One byte per cell of the refined grid (cubical::cellCount): the direction of the
  // paired cell (cubical::pairCode) or cubical::kCritical.
  std::vector<std::uint8_t> gradient;
  // Critical cells of each dimension 0..3 as ascending refined-grid ids, and the same
  // cells as ids within their dimension (cubical::cellIdInDimension; TTK's CellDimension
  // + CellId pair).
  std::array<std::vector<SimplexId>, 4> criticalCells;
  std::array<std::vector<SimplexId>, 4> criticalCellIds;
  std::array<SimplexId, 4> counts{}; // n0 n1 n2 n3 (n3 = 0 in 2D)
  RunReport report;

  void clear() { *this = Output(); }
};

// Throws Error for bad input (a mesh, size mismatch, NaN/Inf values), Aborted on abort.
// Progress runs 0..1 once over the stages (vertex order, gradient, critical cells).
template <typename Triangulation>
void execute(Triangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output);

// ---- implementation ------------------------------------------------------------------

namespace detail {

constexpr double kOrderEnd = 0.3, kGradientEnd = 0.9;

// Device memory the GPU path needs, for resolveBackend.
std::size_t deviceBytes(const cubical::Grid& grid, const ScalarArrayView& values);

// The CPU path: vertex order, lower stars in parallel, compaction. With keepOrder, the
// vertex order is handed over there (the Morse-Smale complex's later stages need it).
void runCpu(const ScalarArrayView& values, const Monitor& monitor, Output& output,
            std::vector<SimplexId>* keepOrder = nullptr,
            const VertexOrderSource& vertexOrder = {});

// The GPU path (cuda/discrete_gradient): the same stages on the device.
void runGpu(const ScalarArrayView& values, const Monitor& monitor, Output& output);

// Counts and the per-dimension cell ids, from output.criticalCells.
void summarize(Output& output);

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output.clear();
  if constexpr (!isGridTriangulation<Triangulation>) {
    (void)tri;
    (void)values;
    (void)parameters;
    (void)monitor;
    throw Error("the discrete gradient is defined on the cubical complex of a regular "
                "grid (vtkImageData or a raw volume); this input is an unstructured "
                "mesh");
  } else {
    validateVertexField(tri.getNumberOfVertices(), values);
    output.grid = cubical::gridOf(tri.dims());
    const Backend resolved = resolveBackend(
        parameters.backend, detail::deviceBytes(output.grid, values), output.report);
    runWithFallback(
        resolved, "discrete gradient", output.report,
        [&] { detail::runGpu(values, monitor, output); },
        [&] {
          const cubical::Grid grid = output.grid;
          const RunReport report = output.report;
          output.clear();
          output.grid = grid;
          output.report = report;
          detail::runCpu(values, monitor, output, nullptr, parameters.vertexOrder);
        });
    detail::summarize(output);
    monitor.report(1.0);
  }
}

} // namespace topogpu::discrete_gradient
