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
// What the run computes: the whole complex, or only what the persistence pairs read
// (Parameters::diagramOnly: the saddles' path ends; in 3D the edges' pair stencils and
// the saddle boundary expansion's chains).
enum class HostPart { Complex, Diagram };

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
// Diagram: the field, the vertex order, the gradient bytes (CPU; the device keeps its
// own) and critical simplices, then the larger of the CPU's saddle ends (a successor per
// vertex, then per top cell) and what the pairs hold: the ends, the filtration order,
// kPairRecordBytes per critical simplex (cells, positions, union-finds, records) and in
// 3D the edges' pair stencils and kChainBytes per 2-saddle (the boundary expansion's
// stored chains, which grow with the field's noise: about 550 bytes on white noise).
// The triangulation's relations on meshes are not counted (they are built before).
constexpr double kPairRecordBytes = 192, kChainBytes = 768;
double complexHostBytes(const sg::ComplexSize& size,
                        const std::array<SimplexId, 4>& critical, HostPath path,
                        bool saddleConnections, HostPart part = HostPart::Complex);

// Throws Error naming the estimate, the budget and what to do when the path's estimate
// exceeds budget (bytes). implicitGrid: the input is an implicit grid, which has a GPU
// path and a cubical complex to suggest.
void refuseOverBudget(const sg::ComplexSize& size,
                      const std::array<SimplexId, 4>& critical, HostPath path,
                      bool saddleConnections, bool implicitGrid, double budget,
                      HostPart part = HostPart::Complex);

} // namespace topogpu::morse_smale_complex::simplicial
