// A vertex order given with a field (TTK's `<field>_Order` array, ScalarArrayView::order)
// instead of one sorted from the values: checked once by the front end that reads it,
// then taken by every algorithm as it is.
#pragma once

#include "base/ScalarArray.h"

#include <string>
#include <vector>

namespace topogpu {

// Throws Error naming orderName (and fieldName) when values.order is not a vertex order
// of values: a permutation of 0..n-1 ("rank 7 appears twice", "rank -1 at vertex 3 is
// outside 0..9") whose values never decrease along the ranks (a lower value ranked
// after a higher one). NaN values are left to the algorithms' own check.
void checkGivenVertexOrder(const ScalarArrayView& values, const std::string& orderName,
                           const std::string& fieldName);

// The ranks of order restricted to the vertices kept (kept[i] = the old id of new vertex
// i), renumbered 0..kept.size()-1 in the same relative order: the order of a part of the
// domain (a piece, the vertices a mask leaves).
std::vector<SimplexId> restrictVertexOrder(const SimplexId* order,
                                           const std::vector<SimplexId>& kept);

} // namespace topogpu
