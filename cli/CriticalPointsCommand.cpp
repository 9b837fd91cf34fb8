// `topogpu critical-points`: the domain loader, the core call, the shared envelope.
#include "Commands.h"
#include "Domain.h"
#include "GaleReport.h"
#include "Report.h"

#include "core/critical_points/CriticalPoints.h"

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
  result.report = output.report;
  addGaleReport(domain, result);
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
