// GALE's GPU producer as the triangulation sees it: an interface given from above (the
// CLI, the filters, the tests pass cuda/gale's implementation in gale::Parameters), so
// that triangulation/ never depends on the device code. Its setup comes in parts that
// GaleTriangulation's construction overlaps with its own work: the device's context
// while the host segments and checks the mesh, the cells' upload while the host checks
// them, the device's cell lists while the host renumbers its own.
#pragma once

#include "base/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace topogpu {

class GaleTriangulation;

namespace gale {

class SegmentProducer;

// What the factory's parts hand to the next one; only the factory knows what is inside.
struct DeviceCells {
  virtual ~DeviceCells() = default;
};
struct DeviceStart {
  virtual ~DeviceStart() = default;
};

class GpuProducerFactory {
public:
  virtual ~GpuProducerFactory() = default;
  // Starts the device's context (the first CUDA call's cost, a good part of a second);
  // never throws, a no-op without a device.
  virtual void startContext() const = 0;
  // The input's cells (32-bit, not yet renumbered) uploaded while the host validates
  // them; null without a device or on failure. Never throws.
  virtual std::shared_ptr<DeviceCells> uploadCells(const std::int32_t* cells,
                                                   std::size_t count) const = 0;
  // The setup's first part (it reads only the cells in new ids and the segmentation),
  // run on a thread of its own: the device's copy of the mesh, the per-segment cell
  // lists (I_T), every vertex's boundary flag. Never throws; a failure is kept for
  // make() to report.
  virtual std::shared_ptr<DeviceStart>
  begin(const GaleTriangulation& mesh, std::shared_ptr<DeviceCells> cells) const = 0;
  // The per-segment cell list offsets (I_T) the device built, the same as the host's;
  // false when the setup failed. The lists themselves reach the host through
  // SegmentProducer::downloadCellLists when a CPU computation needs them.
  virtual bool cellOffsets(const DeviceStart* start, std::vector<SimplexId>& internal,
                           std::vector<SimplexId>& external) const = 0;
  // The setup's end, from what begin() started (null: both parts here); null (and why)
  // without a usable device, in a CUDA-free build, or when ids do not fit its ids.
  virtual std::shared_ptr<SegmentProducer> make(const GaleTriangulation& mesh,
                                                std::shared_ptr<DeviceStart> start,
                                                std::string& why) const = 0;
};

} // namespace gale

} // namespace topogpu
