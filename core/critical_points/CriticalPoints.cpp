#include "CriticalPoints.h"

#include "core/common/BackendSelection.h"
#include "core/common/Timer.h"
#include "core/common/VertexOrder.h"
#include "core/critical_points/CriticalPointsCpu.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#if TOPOGPU_WITH_CUDA
#include "cuda/critical_points/CriticalPointsGpu.h"
#endif

#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>

namespace topogpu::critical_points {

namespace {

void validate(SimplexId numberOfVertices, const ScalarArrayView& values) {
  if (numberOfVertices == 0)
    throw Error("the input has no vertices");
  if (values.size != numberOfVertices)
    throw Error("scalar array has " + std::to_string(values.size) +
                " values but the domain has " + std::to_string(numberOfVertices) +
                " vertices");
  const SimplexId bad = firstNonFiniteValue(values);
  if (bad >= 0)
    throw Error("scalar array has a NaN or infinite value at vertex " +
                std::to_string(bad));
}

// Ascending ids of the non-regular vertices: counted per block in parallel, then each
// block writes its part at its prefix offset (the CPU twin of the GPU's copy_if).
std::vector<SimplexId> selectCritical(const std::vector<std::int8_t>& types) {
  const SimplexId n = SimplexId(types.size());
  const SimplexId blocks = std::max<SimplexId>(1, std::min<SimplexId>(256, n / 65536));
  std::vector<SimplexId> offsets(blocks + 1, 0);
  auto isCritical = [&](SimplexId v) {
    return types[v] != std::int8_t(CriticalType::Regular);
  };
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    for (SimplexId v = n * b / blocks; v < n * (b + 1) / blocks; ++v)
      offsets[b + 1] += isCritical(v);
  });
  for (SimplexId b = 0; b < blocks; ++b)
    offsets[b + 1] += offsets[b];
  std::vector<SimplexId> critical(offsets.back());
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    SimplexId at = offsets[b];
    for (SimplexId v = n * b / blocks; v < n * (b + 1) / blocks; ++v) {
      if (isCritical(v))
        critical[at++] = v;
    }
  });
  return critical;
}

// Compacted list (unless the GPU made it), counts and boundary flags.
template <typename Triangulation>
void summarize(const Triangulation& tri, Output& output, bool listReady) {
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
}

// What the classification and summary read from each backend: the grid's stencil needs
// nothing prepared but the summary reads the boundary flags (free on grids); meshes need
// the link relations.
constexpr Relations requiredRelations(const ImplicitTriangulation&) {
  return BoundaryVertices;
}
constexpr Relations requiredRelations(const ExplicitTriangulation&) {
  return kRequiredRelations;
}

template <typename Triangulation>
void runCpu(Triangulation& tri, const ScalarArrayView& values, const Monitor& monitor,
            Output& output) {
  Timer timer;
  tri.precondition(requiredRelations(tri));
  output.report.timings.emplace_back("precondition", timer.seconds());
  std::vector<SimplexId> order(values.size);
  timer.reset();
  computeVertexOrderCpu(values, order.data());
  output.report.timings.emplace_back("vertex order (cpu)", timer.seconds());
  monitor.checkAbort();
  output.vertexTypes.resize(values.size);
  timer.reset();
  classifyVerticesCpu(tri, order.data(), output.vertexTypes.data(), monitor);
  output.report.timings.emplace_back("classify (cpu)", timer.seconds());
  summarize(tri, output, false);
}

} // namespace

void execute(ImplicitTriangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output.clear();
  validate(tri.getNumberOfVertices(), values);
  // values, order, sort scratch (keys + indices, twice), types
  const std::size_t deviceBytes =
      values.size * (3 * scalarTypeSize(values.type) + 5 * sizeof(SimplexId) + 1);
  const Backend backend = resolveBackend(parameters.backend, deviceBytes, output.report);
#if TOPOGPU_WITH_CUDA
  if (backend == Backend::Gpu) {
    try {
      output.vertexTypes.resize(values.size);
      gpu::classifyGridVertices(tri.dims(), values, monitor, output.vertexTypes.data(),
                                output.criticalVertices, output.report);
      tri.precondition(requiredRelations(tri));
      summarize(tri, output, true);
      return;
    } catch (const Aborted&) {
      throw;
    } catch (const std::exception& e) {
      output.clear();
      output.report.warnings.push_back(std::string("GPU critical points failed (") +
                                       e.what() + "); ran on the CPU instead");
    }
  }
#else
  (void)backend;
#endif
  output.report.backend = "cpu";
  runCpu(tri, values, monitor, output);
}

void execute(ExplicitTriangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output) {
  output.clear();
  validate(tri.getNumberOfVertices(), values);
  if (parameters.backend == Backend::Gpu)
    output.report.warnings.push_back(
        "the GPU path of critical points runs on regular grids only; this mesh runs on "
        "the CPU");
  output.report.backend = "cpu";
  runCpu(tri, values, monitor, output);
  // Say what the classification cannot hide: pinched facets and vertices outside every
  // cell (the rule makes an isolated vertex a minimum: it is its own component).
  if (tri.getNumberOfNonManifoldFacets() > 0)
    output.report.warnings.push_back(
        "the mesh is non-manifold: " +
        std::to_string(tri.getNumberOfNonManifoldFacets()) +
        (tri.getDimension() == 3 ? " triangles are" : " edges are") +
        " shared by more than two cells; vertices are still classified by the components "
        "of their links");
  SimplexId isolated = 0;
  for (SimplexId v = 0; v < tri.getNumberOfVertices(); ++v)
    isolated += tri.getVertexNeighborNumber(v) == 0;
  if (isolated > 0)
    output.report.warnings.push_back(
        std::to_string(isolated) +
        " vertices belong to no cell; each is its own component and is reported as a "
        "minimum");
}

} // namespace topogpu::critical_points
