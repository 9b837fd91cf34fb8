// `topogpu critical-points`: the domain loader, the core call, the shared envelope.
#include "Commands.h"
#include "Domain.h"
#include "Report.h"

#include "core/critical_points/CriticalPoints.h"

#include <algorithm>

namespace topogpu::cli {

int runCriticalPoints(const Arguments& args, CommandContext& context) {
  const RunOptions run = parseRunOptions(args);
  Domain domain = loadDomain(args, context, true);
  context.activity = "computing the critical points of '" + domain.input + "' (" +
                     std::to_string(domain.numberOfVertices()) + " vertices)";
  CommandResult result;
  critical_points::Output output;
  domain.visitWithGale([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      critical_points::execute(triangulation, domain.values,
                               critical_points::Parameters{run.backend}, Monitor{},
                               output);
      result.totals.push_back(output.report.totalSeconds());
    }
  });
  JsonObject counts;
  for (int t = 0; t < kCriticalTypeCount; ++t) {
    counts.add(criticalTypeKey(CriticalType(t)),
               static_cast<long long>(output.counts[t]));
    result.lines.push_back(std::string(criticalTypeKey(CriticalType(t))) + ": " +
                           std::to_string(output.counts[t]));
  }
  result.fields.add("counts", counts);
  if (domain.galeTriangulation) {
    // a GPU producer failure during the run (the selection's warnings are notes already)
    for (const std::string& warning : domain.galeTriangulation->warnings())
      if (std::find(domain.notes.begin(), domain.notes.end(), warning) ==
          domain.notes.end())
        output.report.warnings.push_back(warning);
    // GALE's own costs (the paper's figure 10): initialization (segmentation, cells per
    // segment, edge/triangle lists) and the time consumers spent waiting on producers.
    const gale::Statistics stats = domain.galeTriangulation->statistics();
    JsonObject g;
    g.add("producer", domain.galeTriangulation->producerName());
    g.add("segments",
          static_cast<long long>(domain.galeTriangulation->getNumberOfSegments()));
    g.add("initialization_seconds", stats.initializationSeconds);
    g.add("consumer_wait_seconds", stats.consumerWaitSeconds);
    g.add("requests", static_cast<long long>(stats.requests));
    g.add("batches", static_cast<long long>(stats.batches));
    g.add("segments_computed", static_cast<long long>(stats.segmentsComputed));
    g.add("peak_cache_bytes", static_cast<long long>(stats.peakCacheBytes));
    g.add("memory_bytes",
          static_cast<long long>(domain.galeTriangulation->memoryBytes()));
    result.fields.add("gale", g);
    result.lines.push_back(
        "GALE: initialization " + std::to_string(stats.initializationSeconds) +
        " s, consumers waited " + std::to_string(stats.consumerWaitSeconds) + " s (" +
        std::to_string(stats.requests) + " requests)");
  }
  result.report = output.report;
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
