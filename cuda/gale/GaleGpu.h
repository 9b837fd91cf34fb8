// GALE's GPU producer (the paper's heterogeneous mode): the mesh held on the device
// (cells renumbered there, the per-segment cell lists, every vertex's boundary flag from
// one sort of all facets, the edge and triangle lists when a precondition asks), and the
// vertex neighbours (VV), the vertex star and VE of a batch of segments computed there,
// 32 threads per segment, neighbours inserted duplicate-free by atomic compare-and-swap
// (Algorithms 1-2); the other relations by the CPU producer. A CUDA failure switches it
// to the CPU producer for good, with a warning (GaleTriangulation::warnings()).
#pragma once

#include "triangulation/gale/GaleTriangulation.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace topogpu::gpu {

// The setup's first part (it reads only the cells in new ids and the segmentation),
// started on a thread of its own: uploads the cells and the renumbering, builds the
// per-segment cell lists (I_T) and every vertex's boundary flag on the device. Never
// throws; a failure is kept for makeGaleGpuProducer to report.
struct GaleGpuStart;
struct GaleGpuCells;
std::shared_ptr<GaleGpuStart> beginGaleGpuProducer(const GaleTriangulation& mesh,
                                                   std::shared_ptr<GaleGpuCells> cells);
// The input's cells (32-bit, not yet renumbered) uploaded while the host validates them
// (beginGaleGpuProducer then renumbers them on the device instead of uploading GALE's);
// null without a device or on failure. Never throws.
std::shared_ptr<GaleGpuCells> uploadGaleGpuCells(const std::int32_t* cells,
                                                 std::size_t count);
// The per-segment cell list offsets (I_T) the device built, the same as
// GaleTriangulation's own; false when the setup failed. The lists themselves reach the
// host through SegmentProducer::downloadCellLists when a CPU computation needs them.
bool galeGpuCellOffsets(const GaleGpuStart* start, std::vector<SimplexId>& internal,
                        std::vector<SimplexId>& external);
// The setup's end (the launch slots' streams), from what beginGaleGpuProducer started
// (null: both parts here); nullptr (and why) without a usable device, in a
// CUDA-free build, or when ids do not fit 32 bits.
std::shared_ptr<gale::SegmentProducer>
makeGaleGpuProducer(const GaleTriangulation& mesh, std::shared_ptr<GaleGpuStart> start,
                    std::string& why);
// Starts the device's context (the first CUDA call's cost, a good part of a second), so
// that GALE's construction does it on a thread of its own while it segments and checks
// the mesh; never throws, a no-op without CUDA.
void startGaleGpuContext();

} // namespace topogpu::gpu
