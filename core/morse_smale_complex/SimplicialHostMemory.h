// The host memory of the simplicial Morse-Smale complex (SimplicialMorseSmaleComplex.h),
// estimated from the arrays each stage holds at once, for the CPU path and for the
// implicit grid's GPU path (SimplicialGridGpuPath.h), so that a run too large for the
// host is refused with the estimate instead of being killed by the system.
#pragma once

#include "core/discrete_gradient/SimplicialHostMemory.h"

#include <array>
#include <string>

namespace topogpu::morse_smale_complex::simplicial {

namespace sg = discrete_gradient::simplicial;

enum class HostPath { Cpu, Gpu };

// Bytes the complex holds on the host at its peak, the field included, with `critical`
// critical simplices per dimension (zeros before the gradient: few on smooth fields).
//  - CPU: the field, the vertex order, the gradient bytes and critical simplices, then
//    the descending labels (the minima's indices and DescendingManifold), the ascending
//    forest's successors, the maxima's indices and the cells' labels (8 + 8 + 4 bytes
//    per top cell: the peak), the boundary facets' forest, the vertices' labels, the
//    arcs and the saddle connections;
//  - GPU: the field, the downloaded gradient, order and labels (minima's indices,
//    DescendingManifold, cell and vertex labels), the boundary forest built on the host
//    while they are held (a byte per facet, two offsets per vertex) and the arcs and
//    saddle connections. The device's own memory is resolveBackend's matter.
// The triangulation's relations on meshes are not counted (they are built before).
double complexHostBytes(const sg::ComplexSize& size,
                        const std::array<SimplexId, 4>& critical, HostPath path,
                        bool saddleConnections);

// Throws Error naming the estimate, the budget and what to do when the path's estimate
// exceeds budget (bytes). implicitGrid: the input is an implicit grid, which has a GPU
// path and a cubical complex to suggest.
void refuseOverBudget(const sg::ComplexSize& size,
                      const std::array<SimplexId, 4>& critical, HostPath path,
                      bool saddleConnections, bool implicitGrid, double budget);

} // namespace topogpu::morse_smale_complex::simplicial
