// A tetrahedron's edges and faces as positions of its vertex tuple, in the order GALE's
// lists and relations enumerate them.
#pragma once

namespace topogpu::gale::detail {

constexpr int kTetEdgePairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
constexpr int kTetFaces[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};

} // namespace topogpu::gale::detail
