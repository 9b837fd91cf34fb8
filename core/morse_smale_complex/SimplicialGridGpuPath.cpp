#include "SimplicialGridGpuPath.h"

#include "base/HostMemory.h"
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/morse_smale_complex/SimplicialHostMemory.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplexGpu.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <algorithm>

namespace topogpu::morse_smale_complex::simplicial::detail {

namespace {

// The saddle connections run on the device (3D, counts only: the paths are traced on
// the host; the device counts saturate, so the parity mode, which cannot overflow, stays
// on the host too).
bool connectionsOnDevice(const sg::GridSimplices& grid, const Parameters& parameters) {
  return parameters.computeSaddleConnections && !parameters.keepConnectionPaths &&
         !parameters.connectionParity && grid.dims.dimension == 3;
}

// The gradient's device memory, then the forests (pointer jumping in place) and
// the labels beside the gradient's bytes and the order; then the saddle connections
// beside what is left of them (the order, the minima, the cells' and vertices' labels):
// one reach mark per edge and, as the cubical complex's estimate, frontier slots for a
// third of the edges.
std::size_t deviceBytes(const sg::GridSimplices& grid, const ScalarArrayView& values,
                        bool connections) {
  const std::size_t n = std::size_t(sg::simplexCount(grid, 0)),
                    cells = std::size_t(sg::simplexCount(grid, grid.dims.dimension)),
                    edges = std::size_t(sg::simplexCount(grid, 1));
  std::size_t simplices = 0;
  for (int d = 0; d <= grid.dims.dimension; ++d)
    simplices += std::size_t(sg::simplexCount(grid, d));
  const std::size_t labels = n * 2 * sizeof(SimplexId) + simplices +
                             cells * (sizeof(SimplexId) + sizeof(std::int32_t)) +
                             n * sizeof(std::int32_t);
  const std::size_t saddles = connections ? n * 2 * sizeof(SimplexId) + simplices +
                                                (cells + n) * sizeof(std::int32_t) +
                                                edges + edges / 3 * 6 * sizeof(SimplexId)
                                          : std::size_t(0);
  return std::max({sg::detail::gridDeviceBytes(grid.dims, values), labels, saddles});
}

// The arcs of one saddle from its path ends (-1: none), equal ends merged.
void appendArcs(SimplexId saddle, SimplexId a, SimplexId b, std::vector<Arc>& arcs) {
  if (a > b)
    std::swap(a, b);
  if (a < 0 || a == b) {
    if (b >= 0)
      arcs.push_back({saddle, b, a == b ? 2 : 1});
    return;
  }
  arcs.push_back({saddle, a, 1});
  arcs.push_back({saddle, b, 1});
}

// The boundary maxima reached and every root's label (simplicial::execute's rule).
void labelRoots(ImplicitTriangulation& tri, int top,
                const std::vector<SimplexId>& criticalTop,
                const std::vector<char>& reached, Output& output,
                std::vector<std::int32_t>& rootLabel) {
  output.maxima.clear();
  for (const SimplexId c : criticalTop)
    output.maxima.push_back({top, c});
  const auto& facets = output.boundaryFacets;
  for (std::size_t i = 0; i < facets.size(); ++i) {
    if (!reached[i])
      continue;
    const SimplexId cell = sg::getFacetStar(tri, top, facets[i], 0);
    const auto at = std::lower_bound(criticalTop.begin(), criticalTop.end(), cell);
    if (at != criticalTop.end() && *at == cell) {
      rootLabel[i] = std::int32_t(at - criticalTop.begin());
    } else {
      rootLabel[i] = std::int32_t(output.maxima.size());
      output.maxima.push_back({top - 1, facets[i]});
      ++output.boundaryMaxima;
    }
  }
  morse_smale_complex::detail::checkLabelRange(SimplexId(output.maxima.size()), "maxima");
}

// The device's connections as the CPU's (saddleConnections), with its overflow Error.
void takeConnections(const gpu::SimplicialGridConnections& found, Output& output) {
  if (found.overflow)
    throwConnectionOverflow();
  output.connections.resize(found.arcs.size());
  bool overflow = false;
  for (std::size_t i = 0; i < found.arcs.size(); ++i) {
    const saddle_connections::Arc& a = found.arcs[i];
    output.connections[i] = {a.saddle1, a.saddle2, a.multiplicity};
    output.connectionMultiplicitySum =
        addSaturating(output.connectionMultiplicitySum, a.multiplicity, overflow);
  }
  if (overflow)
    throwConnectionOverflow();
  output.connectionsComputed = true;
}

// The gradient's arrays from the device into g.
void takeGradient(gpu::SimplicialGradientArrays& arrays, sg::Output& g) {
  g.gradient = std::move(arrays.gradient);
  g.edgePairStencils = std::move(arrays.edgePairStencils);
  g.criticalCells = std::move(arrays.criticalCells);
  g.criticalVertices = std::move(arrays.criticalVertices);
  for (int k = 0; k <= g.dimension; ++k)
    g.counts[k] = SimplexId(g.criticalCells[k].size());
}

// diagramOnly: the saddles' path ends on the device, no labels, no boundary forest;
// the gradient's bytes come down when the host computes the saddle connections.
void saddleEndsOnDevice(const ScalarArrayView& values, const sg::GridSimplices& grid,
                        bool connections, bool hostConnections, const Monitor& monitor,
                        Output& output) {
  gpu::SimplicialGradientArrays arrays;
  gpu::SimplicialGridConnections found;
  gpu::SimplicialGridSaddleEnds ends;
  gpu::computeSimplicialGridSaddleEnds(grid, values, monitor.stage(0, 0.85), arrays,
                                       output.rank, ends, output.report,
                                       connections ? &found : nullptr, hostConnections);
  takeGradient(arrays, output.gradient);
  output.filtrationOrder = std::move(ends.filtrationOrder);
  output.minimumKills = std::move(ends.minimumKills);
  output.maximumKills = std::move(ends.maximumKills);
  output.elder = ends.elder;
  output.gradient.report = output.report;
  output.extremumKillsComputed = true;
  if (connections)
    takeConnections(found, output);
}

// connections: the saddle connections' counts on the device; hostConnections: the
// host computes them afterwards (from the gradient's bytes).
void runOnDevice(ImplicitTriangulation& tri, const ScalarArrayView& values,
                 const sg::GridSimplices& grid, const Parameters& parameters,
                 bool connections, bool hostConnections, const Monitor& monitor,
                 Output& output) {
  sg::Output& g = output.gradient;
  const int top = grid.dims.dimension;
  g.dimension = top;
  g.simplexCounts = {tri.getNumberOfVertices(), tri.getNumberOfEdges(),
                     tri.getNumberOfTriangles(),
                     top == 3 ? tri.getNumberOfCells() : SimplexId(0)};
  if (parameters.diagramOnly) {
    saddleEndsOnDevice(values, grid, connections, hostConnections, monitor, output);
    return;
  }
  gpu::SimplicialGradientArrays arrays;
  gpu::SimplicialGridLabels labels;
  gpu::SimplicialGridBoundaryHooks hooks;
  hooks.forest = [&](const std::vector<SimplexId>& order, std::vector<SimplexId>& facets,
                     std::vector<SimplexId>& roots) {
    Timer timer;
    boundaryForest(tri, top, order.data(), output);
    facets = output.boundaryFacets;
    roots = output.boundaryNext;
    discrete_gradient::jumpToRoots(roots, monitor);
    output.report.timings.emplace_back("boundary forest (cpu)", timer.seconds());
  };
  hooks.label = [&](const std::vector<char>& reached, std::vector<std::int32_t>& label) {
    Timer timer;
    labelRoots(tri, top, arrays.criticalCells[top], reached, output, label);
    output.report.timings.emplace_back("boundary maxima (cpu)", timer.seconds());
  };
  const bool ttkRule = parameters.ascendingSegmentation == AscendingSegmentation::Ttk;
  gpu::SimplicialGridConnections found;
  gpu::computeSimplicialGridLabels(grid, values, monitor.stage(0, 0.85), hooks, ttkRule,
                                   arrays, output.rank, labels, output.report,
                                   connections ? &found : nullptr);
  takeGradient(arrays, g);
  g.report = output.report;
  morse_smale_complex::detail::checkLabelRange(SimplexId(g.criticalCells[0].size()),
                                               "minima");
  output.descendingManifold.assign(labels.minimumOf.begin(), labels.minimumOf.end());
  output.cellAscendingManifold = std::move(labels.cellLabel);
  output.ascendingManifold = std::move(labels.vertexLabel);
  // Two arcs per saddle at most: reserved, so no vector doubles past the estimate.
  output.saddle1Minimum.reserve(2 * g.criticalCells[1].size());
  output.saddleMaximum.reserve(2 * g.criticalCells[top - 1].size());
  for (std::size_t i = 0; i < g.criticalCells[1].size(); ++i)
    appendArcs(g.criticalCells[1][i], labels.saddle1Ends[2 * i],
               labels.saddle1Ends[2 * i + 1], output.saddle1Minimum);
  for (std::size_t i = 0; i < g.criticalCells[top - 1].size(); ++i)
    appendArcs(g.criticalCells[top - 1][i], labels.facetSaddleEnds[2 * i],
               labels.facetSaddleEnds[2 * i + 1], output.saddleMaximum);
  if (connections)
    takeConnections(found, output);
}

} // namespace

bool runGridGpuPath(ImplicitTriangulation& tri, const ScalarArrayView& values,
                    const Parameters& parameters, const Monitor& monitor, Output& output,
                    RunReport& fallback) {
  validateVertexField(tri.getNumberOfVertices(), values);
  const sg::GridSimplices grid = sg::gridSimplicesOf(tri.dims());
  if (grid.dims.dimension < 2)
    return false;     // the CPU path says why
  RunReport decision; // the CPU path repeats the decision's warnings
  bool deviceConnections = connectionsOnDevice(grid, parameters);
  const std::size_t bytes = deviceBytes(grid, values, deviceConnections);
  Backend resolved = resolveBackend(parameters.backend, bytes, decision);
  RunReport withoutConnections;
  std::vector<Warning> warnings;
  if (resolved != Backend::Gpu && deviceConnections &&
      resolveBackend(parameters.backend, deviceBytes(grid, values, false),
                     withoutConnections) == Backend::Gpu) {
    // Only the saddle connections' frontiers do not fit: the rest stays on the device
    // and the connections walk their walls on the host, as with their paths.
    deviceConnections = false;
    resolved = Backend::Gpu;
    warnings.push_back({WarningCode::GpuMemoryInsufficient,
                        "the saddle connections need about " + byteSize(double(bytes)) +
                            " of GPU memory, more than is free; they run on the CPU"});
  }
  if (resolved != Backend::Gpu)
    return false;
  const bool hostConnections = parameters.computeSaddleConnections &&
                               grid.dims.dimension == 3 && !deviceConnections;
  const sg::ComplexSize size = sg::gridComplexSize(tri.dims(), values);
  const bool connections = parameters.computeSaddleConnections;
  const HostPart part = parameters.diagramOnly ? HostPart::Diagram : HostPart::Complex;
  refuseOverBudget(size, {}, HostPath::Gpu, connections, true, parameters.memoryBudget,
                   part);
  tri.precondition(kRequiredRelations);
  bool ran = true;
  runWithFallback(
      resolved, "simplicial Morse-Smale complex", fallback,
      [&] {
        runOnDevice(tri, values, grid, parameters, deviceConnections, hostConnections,
                    monitor, output);
      },
      [&] { ran = false; });
  if (!ran) {
    output = Output();
    return false;
  }
  output.report.backend = output.gradient.report.backend = "gpu";
  output.report.warnings.insert(output.report.warnings.begin(), warnings.begin(),
                                warnings.end());
  // Again with the critical simplices found, before the host's saddle connections.
  refuseOverBudget(size, output.gradient.counts, HostPath::Gpu, connections, true,
                   parameters.memoryBudget, part);
  output.hostMemoryEstimate =
      complexHostBytes(size, output.gradient.counts, HostPath::Gpu, connections, part);
  monitor.checkAbort();
  if (hostConnections)
    saddleConnections(tri, output.gradient, parameters, output); // with their paths
  if (!parameters.diagramOnly)
    countUnlabelled(output);
  monitor.report(1.0);
  return true;
}

} // namespace topogpu::morse_smale_complex::simplicial::detail
