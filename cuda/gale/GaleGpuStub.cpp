// GALE's GPU producer in a build without CUDA: the factory makes none (and says why), and
// the triangulation keeps its CPU producers.
#include "core/common/NoCuda.h"
#include "cuda/gale/GaleGpu.h"

#include <cstdint>
#include <string>
#include <vector>

namespace topogpu::gpu {

namespace {

class NoGaleGpuProducer : public gale::GpuProducerFactory {
public:
  void startContext() const override {}
  std::shared_ptr<gale::DeviceCells> uploadCells(const std::int32_t*,
                                                 std::size_t) const override {
    return nullptr;
  }
  std::shared_ptr<gale::DeviceStart>
  begin(const GaleTriangulation&, std::shared_ptr<gale::DeviceCells>) const override {
    return nullptr;
  }
  bool cellOffsets(const gale::DeviceStart*, std::vector<SimplexId>&,
                   std::vector<SimplexId>&) const override {
    return false;
  }
  std::shared_ptr<gale::SegmentProducer> make(const GaleTriangulation&,
                                              std::shared_ptr<gale::DeviceStart>,
                                              std::string& why) const override {
    why = kNoCudaReason;
    return nullptr;
  }
};

} // namespace

std::shared_ptr<const gale::GpuProducerFactory> galeGpuProducerFactory() {
  static const auto factory = std::make_shared<const NoGaleGpuProducer>();
  return factory;
}

} // namespace topogpu::gpu
