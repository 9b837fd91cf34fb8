// GALE's GPU producer (the paper's heterogeneous mode): the mesh held on the device
// (cells renumbered there, the per-segment cell lists, every vertex's boundary flag from
// one sort of all facets, the edge and triangle lists when a precondition asks), and the
// vertex neighbours (VV), the vertex star and VE of a batch of segments computed there,
// 32 threads per segment, neighbours inserted duplicate-free by atomic compare-and-swap
// (Algorithms 1-2); the other relations by the CPU producer. A CUDA failure switches it
// to the CPU producer for good, with a warning (GaleTriangulation::warnings()).
#pragma once

#include "triangulation/gale/GpuProducerFactory.h"

#include <memory>

namespace topogpu::gpu {

// The factory the front ends pass in gale::Parameters::gpuFactory for
// ProducerKind::Gpu; in a CUDA-free build its producer is null, with the reason.
std::shared_ptr<const gale::GpuProducerFactory> galeGpuProducerFactory();

} // namespace topogpu::gpu
