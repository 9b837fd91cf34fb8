#include "SimplicialHostMemory.h"

#include "core/discrete_gradient/GridSimplices.h"

#include <algorithm>
#include <cstdio>

namespace topogpu::discrete_gradient::simplicial {

ComplexSize gridComplexSize(const grid::Dims& dims, const ScalarArrayView& values) {
  const GridSimplices grid = gridSimplicesOf(dims);
  ComplexSize size;
  size.dimension = dims.dimension;
  for (int d = 0; d <= dims.dimension && d < 4; ++d)
    size.simplices[std::size_t(d)] = simplexCount(grid, d);
  size.valueBytes = scalarTypeSize(values.type);
  return size;
}

std::string describe(const ComplexSize& size) {
  static const char* const kNames[4] = {"vertices", "edges", "triangles", "tetrahedra"};
  std::string text;
  for (int d = 0; d <= size.dimension && d < 4; ++d) {
    char number[32];
    const double n = double(size.simplices[std::size_t(d)]);
    std::snprintf(number, sizeof number, n < 1e7 ? "%.0f" : "%.3g", n);
    text += (d ? ", " : "") + std::string(number) + " " + kNames[d];
  }
  return text;
}

double gradientHostBytes(const ComplexSize& size, SimplexId critical) {
  const double n = double(size.simplices[0]), id = double(sizeof(SimplexId));
  double simplices = 0;
  for (int d = 0; d <= size.dimension && d < 4; ++d)
    simplices += double(size.simplices[std::size_t(d)]);
  const double order = 2 * id * n; // the ranks and the sort's keys (or indices)
  const double gradient = id * n + simplices + 2 * id * double(critical);
  return double(size.valueBytes) * n + std::max(order, gradient);
}

} // namespace topogpu::discrete_gradient::simplicial
