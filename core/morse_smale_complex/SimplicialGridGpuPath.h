// The simplicial Morse-Smale complex of an implicit grid on the device: the gradient,
// both V-path forests, the manifold labels, the saddle-extremum arcs and the saddle
// connections run there (gpu::computeSimplicialGridLabels), the boundary forest of the
// ascending paths that leave the grid on the host, and the connections too when their
// paths are asked for (Parameters::keepConnectionPaths); the output is the CPU path's,
// field for field. With Parameters::diagramOnly only the saddles' path ends
// (gpu::computeSimplicialGridSaddleEnds) and the gradient bytes the pairs read.
#pragma once

#include "base/ScalarArray.h"
#include "base/Types.h"

namespace topogpu {
class ImplicitTriangulation;
}

namespace topogpu::morse_smale_complex::simplicial {

struct Parameters;
struct Output;

namespace detail {

// Runs the device path when parameters.backend resolves to the GPU for this grid (the
// gradient's rule, with the labels' memory counted) and returns true with output
// complete. Returns false when the CPU must run: the backend resolved to the CPU, or the
// device failed (fallback then holds the warning to report, and output is cleared).
// Throws Error for bad input, Aborted on abort.
bool runGridGpuPath(ImplicitTriangulation& tri, const ScalarArrayView& values,
                    const Parameters& parameters, const Monitor& monitor, Output& output,
                    RunReport& fallback);

} // namespace detail

} // namespace topogpu::morse_smale_complex::simplicial
