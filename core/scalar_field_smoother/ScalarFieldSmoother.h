// Laplacian smoothing of a point scalar field (TTK's ScalarFieldSmoother), a common
// preprocessing step before critical points or a Morse-Smale complex: each of
// numberOfIterations passes replaces every vertex's value by the average of itself and
// its vertex neighbours (the triangulation's VV relation): in double for floating-point
// fields, exactly (rounded to the nearest integer) for integer fields.
//
// This is TopoGPU's module template (docs/developing.md): parameters, the execute
// template over every triangulation, the CPU path, the GPU path for grids through
// runWithFallback, progress and abort, bad input as Error.
#pragma once

#include "base/ScalarArray.h"
#include "base/Timer.h"
#include "base/Types.h"
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/common/TriangulationTraits.h"
#include "core/scalar_field_smoother/SmootherStencil.h"
#include "triangulation/Relations.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <vector>

namespace topogpu::scalar_field_smoother {

// More passes than this is a typo, not a smoothing (each pass spreads a value by one
// edge; a million passes flatten any field TopoGPU can hold).
constexpr int kMaxIterations = 1000000;

struct Parameters {
  int numberOfIterations = 1;      // 0 copies the input
  Backend backend = Backend::Auto; // the GPU runs on regular grids; meshes use the CPU
  // Optional, one per vertex: vertices whose mask is 0 keep their value (TTK's mask
  // field); nullptr smooths every vertex.
  const std::uint8_t* mask = nullptr;
};

// The relation the mesh path reads, as TTK's preconditionTriangulation.
constexpr Relations kRequiredRelations = VV;

// Writes the smoothed field to `smoothed`: values.size values of values.type (the
// caller's buffer, not aliasing values). Throws Error for bad input (size mismatch,
// NaN/Inf, float64 values too large to sum, an iteration count outside
// 0..kMaxIterations), Aborted on abort (checked between passes). Progress runs 0..1 over
// the passes. report says which backend ran and the stage timings.
template <typename Triangulation>
void execute(Triangulation& triangulation, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, void* smoothed,
             RunReport& report);

// ---- implementation ------------------------------------------------------------------

namespace detail {

void validate(SimplexId numberOfVertices, const ScalarArrayView& values,
              const Parameters& parameters);

// Device memory the GPU grid path needs, for resolveBackend.
std::size_t gridDeviceBytes(const ScalarArrayView& values, bool masked);

void smoothGridOnGpu(const grid::Dims& dims, const ScalarArrayView& values,
                     const Parameters& parameters, const Monitor& monitor, void* smoothed,
                     RunReport& report);

// The CPU passes, ping-ponging two buffers of the working type (double, or the input's
// integer type). Grids use the stencil function the CUDA kernel uses; meshes read the VV
// relation in its stored order.
template <typename Triangulation, typename W>
void smoothCpu(const Triangulation& tri, const Parameters& parameters,
               const Monitor& monitor, std::vector<W>& current) {
  const SimplexId n = SimplexId(current.size());
  const std::uint8_t* mask = parameters.mask;
  std::vector<W> next(current.size());
  for (int it = 0; it < parameters.numberOfIterations; ++it) {
    monitor.checkAbort();
    const W* in = current.data();
    W* out = next.data();
    tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n),
                      [&](const tbb::blocked_range<SimplexId>& r) {
                        for (SimplexId v = r.begin(); v < r.end(); ++v) {
                          if constexpr (isGridTriangulation<Triangulation>) {
                            out[v] = smoothedGridValue(tri.dims(), v, in, mask);
                          } else {
                            if (mask != nullptr && mask[v] == 0) {
                              out[v] = in[v];
                              continue;
                            }
                            const int degree = tri.getVertexNeighborNumber(v);
                            NeighbourSum<W> sum(in[v]);
                            for (int k = 0; k < degree; ++k)
                              sum.add(in[tri.getVertexNeighbor(v, k)]);
                            out[v] = sum.average(degree + 1);
                          }
                        }
                      });
    current.swap(next);
    monitor.report(double(it + 1) / parameters.numberOfIterations);
  }
}

// The input in the working type, the passes, and the result back in the input's type.
template <typename T, typename Triangulation>
void smoothValuesCpu(const Triangulation& tri, const T* input, SimplexId n,
                     const Parameters& parameters, const Monitor& monitor, T* output) {
  std::vector<Working<T>> current(n);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId v) { current[v] = input[v]; });
  smoothCpu(tri, parameters, monitor, current);
  tbb::parallel_for(SimplexId(0), n,
                    [&](SimplexId v) { output[v] = toValue<T>(current[v]); });
}

template <typename Triangulation>
void runCpu(Triangulation& tri, Relations relations, const ScalarArrayView& values,
            const Parameters& parameters, const Monitor& monitor, void* smoothed,
            RunReport& report) {
  Timer timer;
  tri.precondition(relations);
  report.timings.emplace_back("precondition", timer.seconds());
  monitor.checkAbort();
  timer.reset();
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    smoothValuesCpu(tri, static_cast<const ValueT*>(values.data), values.size, parameters,
                    monitor, static_cast<ValueT*>(smoothed));
  });
  report.timings.emplace_back("smooth (cpu)", timer.seconds());
}

} // namespace detail

template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, void* smoothed,
             RunReport& report) {
  report = RunReport();
  detail::validate(tri.getNumberOfVertices(), values, parameters);
  if constexpr (isGridTriangulation<Triangulation>) {
    // The stencil needs no relations.
    const Backend resolved = resolveBackend(
        parameters.backend, detail::gridDeviceBytes(values, parameters.mask != nullptr),
        report);
    runWithFallback(
        resolved, "scalar field smoother", report,
        [&] {
          detail::smoothGridOnGpu(tri.dims(), values, parameters, monitor, smoothed,
                                  report);
        },
        [&] {
          detail::runCpu(tri, Relations(0), values, parameters, monitor, smoothed,
                         report);
        });
  } else {
    if (parameters.backend == Backend::Gpu)
      report.warnings.push_back({WarningCode::NoGpuPath,
                                 "the GPU path of the scalar field smoother runs on "
                                 "regular grids only; this mesh runs on the CPU"});
    report.backend = "cpu";
    detail::runCpu(tri, kRequiredRelations, values, parameters, monitor, smoothed,
                   report);
  }
  monitor.report(1.0);
}

} // namespace topogpu::scalar_field_smoother
