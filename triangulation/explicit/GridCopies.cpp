// Explicit meshes made from an implicit grid: the whole grid's cells (explicitCopyOf) and
// the cells whose vertices are all kept (maskedCellsOf), both in the grid's cell order.
#include "ExplicitTriangulation.h"
#include "MeshBuilding.h"

#include "base/BlockSelection.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace topogpu {

using mesh_building::parallelFor;

ExplicitTriangulation explicitCopyOf(const ImplicitTriangulation& grid, IdWidth width) {
  const int arity = grid.getCellVertexNumber();
  const SimplexId cells = grid.getNumberOfCells();
  if (width == IdWidth::Auto &&
      grid.getNumberOfVertices() <= std::numeric_limits<std::int32_t>::max()) {
    std::vector<std::int32_t> connectivity(std::size_t(cells) * arity);
    parallelFor(cells, [&](SimplexId c) {
      for (int k = 0; k < arity; ++k)
        connectivity[c * arity + k] = std::int32_t(grid.getCellVertex(c, k));
    });
    return ExplicitTriangulation::fromCells32(
        grid.getNumberOfVertices(), grid.getDimension(), std::move(connectivity), width);
  }
  std::vector<SimplexId> connectivity(std::size_t(cells) * arity);
  parallelFor(cells, [&](SimplexId c) {
    for (int k = 0; k < arity; ++k)
      connectivity[c * arity + k] = grid.getCellVertex(c, k);
  });
  return ExplicitTriangulation(grid.getNumberOfVertices(), grid.getDimension(),
                               std::move(connectivity), width);
}

// Blocks of consecutive ids, each counted then filled by one task: the cells and the
// kept vertices stay in id order without a global sort.
constexpr SimplexId kMaskBlock = SimplexId(1) << 16;

MaskedGridCells maskedCellsOf(const ImplicitTriangulation& grid,
                              const std::vector<std::uint8_t>& keep) {
  const SimplexId n = grid.getNumberOfVertices();
  if (keep.size() != std::size_t(n))
    throw Error("maskedCellsOf: " + std::to_string(keep.size()) + " keep flags for " +
                std::to_string(n) + " grid vertices");
  MaskedGridCells result;
  const BlockSelection<SimplexId> keptVertices(
      n, kMaskBlock, [&](SimplexId first, SimplexId last) {
        return SimplexId(std::count_if(keep.begin() + first, keep.begin() + last,
                                       [](std::uint8_t k) { return k != 0; }));
      });
  const SimplexId kept = keptVertices.total();
  std::vector<SimplexId> newId(std::size_t(n), -1);
  result.keptVertices.resize(std::size_t(kept));
  keptVertices.write([&](SimplexId first, SimplexId last, SimplexId at) {
    for (SimplexId v = first; v < last; ++v)
      if (keep[v] != 0) {
        newId[v] = at;
        result.keptVertices[at++] = v;
      }
  });
  const int arity = grid.getCellVertexNumber();
  const SimplexId cells = grid.getNumberOfCells();
  // body(c, vertices) for the kept cells of [first, last), in id order.
  auto forKeptCells = [&](SimplexId first, SimplexId last, auto&& body) {
    thread_local std::vector<SimplexId> vertices;
    vertices.resize(std::size_t(last - first) * arity);
    grid.getCellVertices(first, last, vertices.data());
    for (SimplexId c = first; c < last; ++c) {
      const SimplexId* v = vertices.data() + std::size_t(c - first) * arity;
      if (std::all_of(v, v + arity, [&](SimplexId u) { return keep[u] != 0; }))
        body(v);
    }
  };
  const BlockSelection<SimplexId> keptCells(
      cells, kMaskBlock, [&](SimplexId first, SimplexId last) {
        SimplexId count = 0;
        forKeptCells(first, last, [&](const SimplexId*) { ++count; });
        return count;
      });
  result.numberOfCells = keptCells.total();
  auto fill = [&](auto& connectivity) {
    using Id = typename std::decay_t<decltype(connectivity)>::value_type;
    connectivity.resize(std::size_t(result.numberOfCells) * arity);
    keptCells.write([&](SimplexId first, SimplexId last, SimplexId at) {
      Id* out = connectivity.data() + std::size_t(at) * arity;
      forKeptCells(first, last, [&](const SimplexId* v) {
        for (int k = 0; k < arity; ++k)
          *out++ = Id(newId[v[k]]);
      });
    });
  };
  if (kept <= std::numeric_limits<std::int32_t>::max())
    fill(result.cells32);
  else
    fill(result.cells);
  return result;
}

} // namespace topogpu
