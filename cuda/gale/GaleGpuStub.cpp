// GALE's GPU producer in a build without CUDA: none is made, and the triangulation keeps
// its CPU producers.
#include "core/common/NoCuda.h"
#include "cuda/gale/GaleGpu.h"

namespace topogpu::gpu {

struct GaleGpuStart {};
struct GaleGpuCells {};

std::shared_ptr<GaleGpuStart> beginGaleGpuProducer(const GaleTriangulation&,
                                                   std::shared_ptr<GaleGpuCells>) {
  return nullptr;
}

std::shared_ptr<GaleGpuCells> uploadGaleGpuCells(const std::int32_t*, std::size_t) {
  return nullptr;
}

bool galeGpuCellOffsets(const GaleGpuStart*, std::vector<SimplexId>&,
                        std::vector<SimplexId>&) {
  return false;
}

std::shared_ptr<gale::SegmentProducer> makeGaleGpuProducer(const GaleTriangulation&,
                                                           std::shared_ptr<GaleGpuStart>,
                                                           std::string& why) {
  why = kNoCudaReason;
  return nullptr;
}

void startGaleGpuContext() {}

} // namespace topogpu::gpu
