#include "GaleReport.h"

namespace topogpu::cli {

void addGaleReport(const Domain& domain, CommandResult& result) {
  const GaleTriangulation* gale = domain.galeTriangulation();
  if (gale == nullptr)
    return;
  // a GPU producer failure during the run: the warnings come in the order they were
  // given, and those of the build are notes already
  const std::vector<Warning> warnings = gale->warnings();
  for (std::size_t i = domain.galeWarningsInNotes; i < warnings.size(); ++i)
    result.report.warnings.push_back(warnings[i]);
  const gale::Statistics stats = gale->statistics();
  JsonObject g;
  g.add("producer", gale->producerName());
  g.add("segments", static_cast<long long>(gale->getNumberOfSegments()));
  g.add("initialization_seconds", stats.initializationSeconds);
  g.add("construction_seconds", stats.initialization.construction());
  g.add("segmentation_seconds", stats.initialization.segmentationSeconds);
  g.add("cell_list_seconds", stats.initialization.cellListSeconds);
  g.add("producer_setup_seconds", stats.initialization.producerSeconds);
  g.add("simplex_list_seconds", stats.initialization.simplexListSeconds);
  g.add("validation_seconds", stats.validationSeconds);
  g.add("consumer_wait_seconds", stats.consumerWaitSeconds);
  g.add("queue_seconds", stats.queueSeconds);
  g.add("producer_seconds", stats.producerSeconds);
  g.add("prepare_seconds", stats.prepareSeconds);
  g.add("kernel_seconds", stats.kernelSeconds);
  g.add("integrate_seconds", stats.integrateSeconds);
  g.add("consumer_compute_seconds", stats.consumerComputeSeconds);
  g.add("requests", static_cast<long long>(stats.requests));
  g.add("batches", static_cast<long long>(stats.batches));
  g.add("segments_computed", static_cast<long long>(stats.segmentsComputed));
  g.add("segments_computed_by_consumers",
        static_cast<long long>(stats.segmentsComputedByConsumers));
  g.add("segments_ahead", static_cast<long long>(stats.segmentsAhead));
  g.add("peak_cache_bytes", static_cast<long long>(stats.peakCacheBytes));
  g.add("memory_bytes", static_cast<long long>(gale->memoryBytes()));
  result.fields.add("gale", g);
  result.lines.push_back(
      "GALE: initialization " + std::to_string(stats.initializationSeconds) +
      " s, consumers waited " + std::to_string(stats.consumerWaitSeconds) + " s (" +
      std::to_string(stats.requests) + " requests)");
}

} // namespace topogpu::cli
