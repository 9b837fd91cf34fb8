// `topogpu discrete-gradient`: the domain loader (grids only), the core call, the
// critical cells per dimension in the shared envelope.
#include "Commands.h"
#include "Domain.h"
#include "Report.h"

#include "core/discrete_gradient/DiscreteGradient.h"

namespace topogpu::cli {

int runDiscreteGradient(const Arguments& args, CommandContext& context) {
  const RunOptions run = parseRunOptions(args);
  Domain domain = loadDomain(args, context);
  context.activity = "computing the discrete gradient of '" + domain.input + "' (" +
                     std::to_string(domain.numberOfVertices()) + " vertices)";
  CommandResult result;
  discrete_gradient::Output output;
  domain.visit([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      discrete_gradient::execute(triangulation, domain.values,
                                 discrete_gradient::Parameters{run.backend}, Monitor{},
                                 output);
      result.totals.push_back(output.report.totalSeconds());
    }
  });
  static const char* const kNames[4] = {"minima (0-cells)", "1-saddles (1-cells)",
                                        "2-saddles (2-cells)", "maxima (3-cells)"};
  std::vector<std::string> counts;
  for (int k = 0; k < 4; ++k) {
    counts.push_back(std::to_string(output.counts[k]));
    result.lines.push_back(std::string("critical ") +
                           (k == output.grid.dimension ? "maxima" : kNames[k]) + ": " +
                           std::to_string(output.counts[k]));
  }
  // In 2D the maxima are the 2-cells: the text names them so, the array keeps n3 = 0.
  if (output.grid.dimension == 2)
    result.lines.pop_back();
  result.fields.addRaw("critical_cells", jsonArray(counts));
  result.fields.add("cells", static_cast<long long>(cubical::cellCount(output.grid)));
  result.report = output.report;
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
