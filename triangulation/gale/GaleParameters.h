// GALE's parameters (the segment capacity N, the batches, the caches, the producer)
// and the statistics it reports (the paper's figure 10 breakdown).
#pragma once

#include "base/Types.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace topogpu::gale {

class GpuProducerFactory;

enum class ProducerKind {
  Cpu, // the relations computed on the CPU by the leader (ACTOPO-like mode)
  Gpu, // Parameters::gpuFactory's producer; falls back to Cpu with a warning without one
};

struct Parameters {
  SimplexId segmentCapacity = 100; // N: most vertices in an octree leaf (segment)
  // Consecutive leaves (Z-order) packed into segments of at most N vertices; false: a
  // segment per leaf.
  bool packLeaves = true;
  // Segments computed per request: the requested one and the following ones (the
  // paper's n_b * t_b / t_s); 1 disables the precomputation. 0: the producer's
  // traits (16 for the CPU producer, 512 for the GPU one: launches of 128 segments,
  // pipelined).
  int segmentsPerRequest = 0;
  // How far (segments) the leaders compute ahead of the consumers of a segment-order
  // loop (parallelForSegments); 0: two batches, or none when consumers help (they use
  // every core already). Bounded by half the cache.
  int lookaheadSegments = 0;
  // Segments kept per relation (least recently used evicted; the boundary flags, a byte
  // per simplex, are all kept). 0: the lookahead window twice plus 64 per core (at least
  // 256), so segments behind a loop's front are dropped.
  int cacheSegments = 0;
  std::size_t cacheBytes = std::size_t(1) << 30; // per relation; 0 = no byte cap
  ProducerKind producer = ProducerKind::Cpu;
  // The GPU producer (ProducerKind::Gpu), given by the front end (cuda/gale's
  // galeGpuProducerFactory): the triangulation does not depend on the device code.
  std::shared_ptr<const GpuProducerFactory> gpuFactory;
  // For algorithms that revisit segments in any order (the Morse-Smale complex follows
  // V-paths across the mesh): with cacheSegments 0, every computed segment is kept,
  // within cacheBytes, instead of a window around a segment-order loop's front.
  bool randomAccess = false;
  // A consumer that misses a segment nobody computes yet computes it itself when the
  // producer allows it (the CPU producer does), instead of queueing and waiting.
  bool consumersHelp = true;
};

// GALE's initialization (section 4.3), by stage, in seconds.
struct InitializationSeconds {
  double segmentationSeconds = 0; // the octree, the renumbering
  double cellListSeconds = 0;     // cells in new ids, internal / external cells (I_T)
  double producerSeconds = 0;     // the producer's setup (the GPU's uploads)
  // edge / triangle lists (I_E, I_F) and the cells' tuple order, built when an
  // algorithm's precondition asks for them (inside its precondition's time)
  double simplexListSeconds = 0;
  // Construction alone: what precondition adds is not in it.
  double construction() const {
    return segmentationSeconds + cellListSeconds + producerSeconds;
  }
  double total() const { return construction() + simplexListSeconds; }
};

struct Statistics {
  double initializationSeconds = 0; // initialization.total()
  InitializationSeconds initialization;
  // The cells' checks, the same as the explicit backend's construction (not GALE's own
  // initialization: both backends validate a mesh the same way).
  double validationSeconds = 0;
  double consumerWaitSeconds = 0; // summed over consumer threads
  // The wait's breakdown (the paper's figure 10), summed: requests waiting in the queue
  // for the leader, the producers' batches (preparation, kernel + copies, integration
  // when the producer measures them), and the segments consumers computed themselves.
  double queueSeconds = 0, producerSeconds = 0;
  double prepareSeconds = 0, kernelSeconds = 0, integrateSeconds = 0;
  double consumerComputeSeconds = 0;
  std::uint64_t requests = 0; // queue round trips (consumer cache misses)
  std::uint64_t batches = 0;  // leader wake-ups
  std::uint64_t segmentsComputed = 0;
  std::uint64_t segmentsComputedByConsumers = 0;
  std::uint64_t segmentsAhead = 0; // computed ahead of a segment-order loop
  std::size_t peakCacheBytes = 0;  // all relations together
};

} // namespace topogpu::gale
