// The byte the simplicial discrete gradient stores per simplex, shared by the generic
// lower star, the grid's (host and device) and the readers of the gradient.
#pragma once

#include <cstdint>

namespace topogpu::discrete_gradient::simplicial {

// 0..3: paired with the face of that index (the backend's face order); otherwise:
constexpr std::uint8_t kPairedUp = 4;      // paired with the coface whose byte names it
constexpr std::uint8_t kCritical = 5;      // a critical simplex
constexpr std::uint8_t kUnassigned = 0xff; // never left by a complete run

} // namespace topogpu::discrete_gradient::simplicial
