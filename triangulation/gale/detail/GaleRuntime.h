// What runs GALE's relations (internal to triangulation/gale, behind GaleTriangulation's
// pointer): the producer and its device setup, one relation server per preconditioned
// relation, the consumers' front, and what construction measured and warned about.
#pragma once

#include "base/Warning.h"
#include "triangulation/Relations.h"
#include "triangulation/gale/GaleParameters.h"
#include "triangulation/gale/GpuProducerFactory.h"
#include "triangulation/gale/SegmentProducer.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

namespace topogpu::gale {

class RelationServer;

namespace detail {

struct Runtime {
  Runtime();
  ~Runtime();

  std::atomic<Relations> boundaryFlagsWanted{0};
  // whether the host holds I_T's lists (else on the device until a CPU computation asks)
  std::atomic<bool> hostCellLists{true};
  std::mutex hostCellListsMutex;
  std::shared_ptr<SegmentProducer> producer;
  std::future<void> gpuContext; // the device's context, started at construction
  // The 32-bit input cells on the device, uploaded while the host validated them
  std::shared_ptr<DeviceCells> gpuCells;
  std::array<std::unique_ptr<RelationServer>, kServedRelationCount> servers;
  std::vector<Warning> warnings;
  InitializationSeconds initialization;
  double validationSeconds = 0;
  std::atomic<SimplexId> nonManifoldFacets{-1};
  // The segment the consumers of a segment-order loop took last (-1 outside one).
  std::atomic<SimplexId> front{-1};
  std::atomic<std::uint64_t> pass{0}; // segment-order loops ended so far
};

} // namespace detail

} // namespace topogpu::gale
