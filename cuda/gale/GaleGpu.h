// GALE's GPU producer (the paper's heterogeneous mode): the vertex neighbours (VV) and
// the vertex star of a batch of segments computed on the device, 32 threads per segment,
// neighbours inserted duplicate-free by atomic compare-and-swap (Algorithms 1-2); the
// other relations by the CPU producer. A CUDA failure switches it to the CPU producer for
// good, with a warning (GaleTriangulation::warnings()).
#pragma once

#include "triangulation/gale/GaleTriangulation.h"

#include <memory>
#include <string>

namespace topogpu::gpu {

// Uploads the mesh's cells and per-segment cell lists once; nullptr (and why) without a
// usable device, in a CUDA-free build, or when ids do not fit 32 bits.
std::shared_ptr<gale::SegmentProducer> makeGaleGpuProducer(const GaleTriangulation& mesh,
                                                           std::string& why);
// Starts the device's context (the first CUDA call's cost, a good part of a second), so
// that GALE's construction does it on a thread of its own while it builds the cells
// lists; never throws, a no-op without CUDA.
void startGaleGpuContext();

} // namespace topogpu::gpu
