// GALE's GPU producer behind the triangulation's factory (GaleGpu.h): the device's
// context, the cells uploaded while the host checks them, and the producer's setup in
// two parts (GaleGpuProducer.cuh).
#include "GaleGpu.h"

#include "GaleGpuProducer.cuh"

#include "core/common/GpuDevice.h"
#include "cuda/common/CudaCheck.h"

#include <climits>
#include <memory>
#include <string>
#include <vector>

namespace topogpu::gpu {

namespace {

using galegpu::GpuProducer;

void startGaleGpuContext() {
  try {
    std::string why;
    if (deviceAvailable(&why))
      cudaFree(nullptr); // creates the primary context, shared by every host thread
    cudaGetLastError();
  } catch (...) {
  }
}

struct GaleGpuStart : gale::DeviceStart {
  std::shared_ptr<GpuProducer> producer;
  std::string why; // why there is none
};

struct GaleGpuCells : gale::DeviceCells {
  thrust::device_vector<int> ids; // the input's cells, old ids
};

std::shared_ptr<GaleGpuCells> uploadGaleGpuCells(const std::int32_t* cells,
                                                 std::size_t count) {
  std::string why;
  if (!deviceAvailable(&why))
    return nullptr;
  try {
    auto uploaded = std::make_shared<GaleGpuCells>();
    translateCudaFailures("GALE GPU producer (upload)",
                          [&] { uploaded->ids.assign(cells, cells + count); });
    return uploaded;
  } catch (const GpuError&) {
    return nullptr; // the producer's setup uploads them again, and reports what fails
  }
}

bool galeGpuCellOffsets(const GaleGpuStart* start, std::vector<SimplexId>& internal,
                        std::vector<SimplexId>& external) {
  if (start == nullptr || !start->producer)
    return false;
  internal.assign(start->producer->internalOffsets().begin(),
                  start->producer->internalOffsets().end());
  external.assign(start->producer->externalOffsets().begin(),
                  start->producer->externalOffsets().end());
  return true;
}

std::shared_ptr<GaleGpuStart> beginGaleGpuProducer(const GaleTriangulation& mesh,
                                                   std::shared_ptr<GaleGpuCells> cells) {
  auto start = std::make_shared<GaleGpuStart>();
  if (!deviceAvailable(&start->why))
    return start;
  if (mesh.getNumberOfVertices() > INT_MAX ||
      mesh.getNumberOfCells() > INT_MAX / (mesh.getDimension() + 1)) {
    start->why = "the mesh's ids do not fit the GPU producer's 32-bit ids";
    return start;
  }
  try {
    start->producer = std::make_shared<GpuProducer>(mesh, cells ? &cells->ids : nullptr);
  } catch (const std::exception& error) { // a GpuError, or host memory
    start->why = error.what();
  }
  return start;
}

std::shared_ptr<gale::SegmentProducer>
makeGaleGpuProducer(const GaleTriangulation& mesh, std::shared_ptr<GaleGpuStart> start,
                    std::string& why) {
  if (!start)
    start = beginGaleGpuProducer(mesh, nullptr);
  if (!start->producer) {
    why = start->why;
    return nullptr;
  }
  try {
    start->producer->createLaunchSlots();
    return std::move(start->producer);
  } catch (const GpuError& error) {
    why = error.what();
    return nullptr;
  }
}

// The parts above behind the triangulation's interface (the opaque parts are this
// file's own types: only what this factory made comes back to it).
class GaleGpuProducerFactory : public gale::GpuProducerFactory {
public:
  void startContext() const override { startGaleGpuContext(); }
  std::shared_ptr<gale::DeviceCells> uploadCells(const std::int32_t* cells,
                                                 std::size_t count) const override {
    return uploadGaleGpuCells(cells, count);
  }
  std::shared_ptr<gale::DeviceStart>
  begin(const GaleTriangulation& mesh,
        std::shared_ptr<gale::DeviceCells> cells) const override {
    return beginGaleGpuProducer(mesh, std::static_pointer_cast<GaleGpuCells>(cells));
  }
  bool cellOffsets(const gale::DeviceStart* start, std::vector<SimplexId>& internal,
                   std::vector<SimplexId>& external) const override {
    return galeGpuCellOffsets(static_cast<const GaleGpuStart*>(start), internal,
                              external);
  }
  std::shared_ptr<gale::SegmentProducer> make(const GaleTriangulation& mesh,
                                              std::shared_ptr<gale::DeviceStart> start,
                                              std::string& why) const override {
    return makeGaleGpuProducer(mesh, std::static_pointer_cast<GaleGpuStart>(start), why);
  }
};

} // namespace

std::shared_ptr<const gale::GpuProducerFactory> galeGpuProducerFactory() {
  static const auto factory = std::make_shared<const GaleGpuProducerFactory>();
  return factory;
}

} // namespace topogpu::gpu
