// Pointer jumping on the device (the twin of core/discrete_gradient/PointerJumping.h),
// shared by the cubical and the simplicial Morse-Smale complexes: CUDA translation units
// only.
#pragma once

#include "base/Types.h"

#include <thrust/device_vector.h>

namespace topogpu::gpu {

// root[i]: the successor of i (root[i] == i at a root, negative: a terminal kept as is);
// on return each entry's root or terminal. Abort is checked between rounds.
void pointerJump(thrust::device_vector<SimplexId>& root, const Monitor& monitor);

} // namespace topogpu::gpu
