// `topogpu msc --complex simplicial` (and msc on a mesh): the Morse-Smale complex's first
// stages on the simplicial gradient (core/discrete_gradient/SimplicialSeparatrices.h):
// critical cells, 1-separatrices and saddle connectors counted as TTK's
// MorseSmaleComplex, and the ascending and descending segmentations (unlabelled
// counts). The grid path (cubical complex) stays in MorseSmaleComplexCommand.cpp.
#include "Commands.h"
#include "Domain.h"
#include "Report.h"

#include "core/common/Timer.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/discrete_gradient/SimplicialSeparatrices.h"

#include <algorithm>

namespace topogpu::cli {

int runSimplicialMorseSmaleComplex(const Arguments& args, CommandContext& context,
                                   Domain& domain) {
  namespace sg = discrete_gradient::simplicial;
  for (const char* option : {"--details", "--persistence-pairs"})
    if (args.has(option))
      throw Error(std::string(option) +
                  " is not yet implemented for the simplicial complex (--complex "
                  "simplicial, or a mesh)");
  const RunOptions run = parseRunOptions(args);
  const bool connectors = !args.has("--no-saddle-connections");
  context.activity = "computing the simplicial Morse-Smale complex of '" + domain.input +
                     "' (" + std::to_string(domain.numberOfVertices()) + " vertices)";
  CommandResult result;
  sg::Output gradient;
  sg::Separatrices separatrices;
  std::vector<SimplexId> descending, ascendingCells, ascending;
  RunReport report;
  domain.visit([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      const Timer wall;
      sg::execute(triangulation, domain.values, sg::Parameters{run.backend}, Monitor{},
                  gradient);
      report = gradient.report;
      Timer timer;
      sg::computeSeparatrices1(triangulation, gradient, separatrices);
      report.timings.emplace_back("1-separatrices (cpu)", timer.seconds());
      if (connectors) {
        timer.reset();
        sg::computeSaddleConnectors(triangulation, gradient, separatrices);
        report.timings.emplace_back("saddle connectors (cpu)", timer.seconds());
      }
      timer.reset();
      sg::computeDescendingManifold(triangulation, gradient, descending);
      sg::computeAscendingManifold(triangulation, gradient, ascendingCells, ascending);
      report.timings.emplace_back("segmentation (cpu)", timer.seconds());
      result.totals.push_back(wall.seconds());
    }
  });
  result.fields.add("complex", "simplicial");
  std::vector<std::string> items;
  items.reserve(4);
  for (int k = 0; k < 4; ++k)
    items.push_back(std::to_string(gradient.counts[k]));
  result.fields.addRaw("critical_cells", jsonArray(items));
  JsonObject sep;
  sep.add("ascending", static_cast<long long>(separatrices.ascending.size()));
  sep.add("descending", static_cast<long long>(separatrices.descending.size()));
  if (connectors)
    sep.add("saddle_connectors",
            static_cast<long long>(separatrices.saddleConnectors.size()));
  sep.add("ascending_leaving_boundary",
          static_cast<long long>(separatrices.ascendingLeavingBoundary));
  result.fields.add("separatrices1", sep);
  const auto unlabelled = [](const std::vector<SimplexId>& labels) {
    return static_cast<long long>(
        std::count(labels.begin(), labels.end(), SimplexId(-1)));
  };
  JsonObject missing;
  missing.add("ascending", unlabelled(ascending));
  missing.add("descending", unlabelled(descending));
  result.fields.add("unlabelled_vertices", missing);
  result.fields.add("unlabelled_cells", unlabelled(ascendingCells));

  const bool is2D = gradient.dimension == 2;
  result.lines.push_back("critical cells: " + items[0] + " minima, " + items[1] +
                         " 1-saddles, " + (is2D ? "" : items[2] + " 2-saddles, ") +
                         items[is2D ? 2 : 3] + " maxima (simplicial complex)");
  result.lines.push_back(
      "1-separatrices: " + std::to_string(separatrices.ascending.size()) +
      " ascending (" + std::to_string(separatrices.ascendingLeavingBoundary) +
      " more leave through the boundary), " +
      std::to_string(separatrices.descending.size()) + " descending" +
      (connectors ? ", " + std::to_string(separatrices.saddleConnectors.size()) +
                        " saddle connectors"
                  : std::string("; saddle connectors: not computed")));
  result.lines.push_back(
      "unlabelled: " + std::to_string(unlabelled(ascending)) + " vertices (ascending), " +
      std::to_string(unlabelled(descending)) + " vertices (descending), " +
      std::to_string(unlabelled(ascendingCells)) + " cells");
  result.report = report;
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
