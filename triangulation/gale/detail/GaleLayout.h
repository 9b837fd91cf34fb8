// GALE's arrays (internal to triangulation/gale): the segmentation (I_V), the cells in
// new ids, the per-segment cell lists (I_T) and the edge and triangle lists (I_E, I_F).
// GaleTriangulation holds them by value (its private base): the accessors, inline in
// its header, read them without an indirection.
#pragma once

#include "base/Types.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <cstdint>
#include <vector>

namespace topogpu::gale::detail {

struct Layout {
  IdArray cells_; // input connectivity in new vertex ids (input order)
  const std::int32_t* tets32_ = nullptr; // cells_'s data when 32-bit tets
  IdArray newOfOld_, oldOfNew_;          // the renumbering, both ways
  IdArray segmentOfNew_;
  std::vector<SimplexId> segmentStart_; // I_V
  // I_T's lists; in 3D with the GPU producer they stay on the device until a CPU
  // computation asks for them (ensureHostCellLists)
  mutable IdArray internalCells_, externalCells_;
  std::vector<SimplexId> internalOffsets_, externalOffsets_; // I_T
  bool edgesBuilt_ = false, trianglesBuilt_ = false;
  bool internalByTuple_ = false;  // else by id (3D until TT is preconditioned)
  IdArray edgeNew_, triangleNew_; // new ids, ascending per simplex
  std::vector<SimplexId> edgeOffsets_, triangleOffsets_; // I_E, I_F
  IdArray edgeFirst_,
      triangleFirst_; // per new vertex: its first edge / triangle as lowest
};

} // namespace topogpu::gale::detail
