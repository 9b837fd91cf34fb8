// The host memory of the simplicial discrete gradient, estimated from the arrays its
// stages hold at once (SimplicialGradient.h), so that a run too large for the host is
// refused with the estimate before it allocates anything. The Morse-Smale complex adds
// its own stages (core/morse_smale_complex/SimplicialHostMemory.h).
#pragma once

#include "base/GridStencil.h"
#include "base/ScalarArray.h"
#include "base/Types.h"

#include <array>
#include <cstddef>
#include <string>

namespace topogpu::discrete_gradient::simplicial {

// What the estimates read: the simplices per dimension and the field's value size.
struct ComplexSize {
  int dimension = 0;
  std::array<SimplexId, 4> simplices{}; // vertices, edges, triangles, tets
  std::size_t valueBytes = 0;
};

// The grid's Freudenthal simplices (dimension 0 for a grid of one point).
ComplexSize gridComplexSize(const grid::Dims& dims, const ScalarArrayView& values);

// "1073741824 vertices, 7.5e+09 edges, ..." for messages.
std::string describe(const ComplexSize& size);

// Bytes of the gradient's host path with `critical` critical simplices (0 before the
// run: they are not known yet, and few on smooth fields): the field, then either the
// vertex order with its sort keys or the order, one byte per simplex and the critical
// simplices with their highest vertices (16 bytes each), whichever is larger. The GPU
// path holds less on the host (no sort keys).
double gradientHostBytes(const ComplexSize& size, SimplexId critical);

} // namespace topogpu::discrete_gradient::simplicial
