// `topogpu discrete-gradient`: the domain loader, the core call on the cubical complex
// (grids) or the simplicial complex (any triangulation), the critical cells per
// dimension in the shared envelope.
#include "Commands.h"
#include "Domain.h"
#include "GaleReport.h"
#include "Report.h"

#include "base/HostMemory.h"
#include "base/Timer.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/discrete_gradient/SimplicialSeparatrices.h"

namespace topogpu::cli {

namespace {

const char* const kNames[4] = {"minima (0-cells)", "1-saddles (1-cells)",
                               "2-saddles (2-cells)", "maxima (3-cells)"};

// Critical cells as "critical_cells" and text lines (in 2D the maxima are the 2-cells:
// the text names them so, the array keeps n3 = 0).
void addCounts(const std::array<SimplexId, 4>& n, int dimension, CommandResult& result) {
  std::vector<std::string> counts;
  for (int k = 0; k < 4; ++k) {
    counts.push_back(std::to_string(n[k]));
    result.lines.push_back(std::string("critical ") +
                           (k == dimension ? "maxima" : kNames[k]) + ": " +
                           std::to_string(n[k]));
  }
  if (dimension == 2)
    result.lines.pop_back();
  result.fields.addRaw("critical_cells", jsonArray(counts));
}

} // namespace

// "cubical" or "simplicial" from --complex; without it, simplicial everywhere: TTK's
// complex, so that discrete-gradient and msc agree with critical-points (the cubical
// complex is asked for by name, and runs on the implicit grid only).
std::string chooseComplex(const Arguments& args, const Domain& domain) {
  std::string complex = args.get("--complex", "simplicial");
  if (complex != "cubical" && complex != "simplicial")
    throw Error("--complex must be cubical or simplicial, got '" + complex + "'");
  if (complex == "cubical" && !domain.implicitTriangulation()) {
    const std::string& input = domain.input;
    const bool grid =
        args.has("--raw") ||
        (input.size() >= 4 && input.compare(input.size() - 4, 4, ".vti") == 0);
    if (grid)
      throw Error("the cubical complex runs on the implicit grid only: --triangulation " +
                  domain.triangulation +
                  " stores the grid as its simplices (a mesh, whose "
                  "complex is simplicial); drop --triangulation or use --complex "
                  "simplicial");
    throw Error("the cubical complex needs a regular grid (--raw, or a .vti); '" + input +
                "' is a mesh: use --complex simplicial (the default)");
  }
  return complex;
}

int runDiscreteGradient(const Arguments& args, CommandContext& context) {
  const RunOptions run = parseRunOptions(args);
  Domain domain = loadDomain(args, context, true);
  const std::string complex = chooseComplex(args, domain);
  context.activity = "computing the " + complex + " discrete gradient of '" +
                     domain.input + "' (" + std::to_string(domain.numberOfVertices()) +
                     " vertices)";
  CommandResult result;
  result.fields.add("complex", complex);
  if (complex == "simplicial") {
    discrete_gradient::simplicial::Output output;
    discrete_gradient::simplicial::Parameters parameters{run.backend};
    parameters.memoryBudget = memoryBudgetOption(args);
    domain.visitWithGale([&](auto& triangulation) {
      for (int r = 0; r < run.repeat; ++r) {
        discrete_gradient::simplicial::execute(triangulation, domain.values, parameters,
                                               Monitor{}, output);
        result.totals.push_back(output.report.totalSeconds());
      }
    });
    addCounts(output.counts, output.dimension, result);
    std::vector<std::string> simplices;
    SimplexId total = 0;
    for (int k = 0; k < 4; ++k) {
      simplices.push_back(std::to_string(output.simplexCounts[k]));
      total += output.simplexCounts[k];
    }
    result.fields.addRaw("simplices", jsonArray(simplices));
    result.fields.add("cells", static_cast<long long>(total));
    result.fields.add("gradient_bytes", static_cast<long long>(output.memoryBytes()));
    result.fields.add("host_memory_estimate_mib", output.hostMemoryEstimate / kMiB);
    result.lines.push_back("simplices: " + simplices[0] + " vertices, " + simplices[1] +
                           " edges, " + simplices[2] + " triangles, " + simplices[3] +
                           " tets (one gradient byte each)");
    result.report = output.report;
    addGaleReport(domain, result);
    if (args.has("--separatrices")) {
      // TTK's msc_separatrices1 counts: the first stages of the mesh Morse-Smale complex.
      discrete_gradient::simplicial::Separatrices separatrices;
      Timer timer;
      domain.visitWithGale([&](auto& triangulation) {
        discrete_gradient::simplicial::computeSeparatrices1(triangulation, output,
                                                            separatrices);
        discrete_gradient::simplicial::computeSaddleConnectors(triangulation, output,
                                                               separatrices);
      });
      result.report.timings.emplace_back("separatrices (cpu)", timer.seconds());
      JsonObject counts;
      counts.add("ascending", static_cast<long long>(separatrices.ascending.size()));
      counts.add("descending", static_cast<long long>(separatrices.descending.size()));
      counts.add("saddle_connectors",
                 static_cast<long long>(separatrices.saddleConnectors.size()));
      counts.add("ascending_leaving_boundary",
                 static_cast<long long>(separatrices.ascendingLeavingBoundary));
      result.fields.add("separatrices1", counts);
      result.lines.push_back(
          "1-separatrices: " + std::to_string(separatrices.ascending.size()) +
          " ascending, " + std::to_string(separatrices.descending.size()) +
          " descending, " + std::to_string(separatrices.saddleConnectors.size()) +
          " saddle connectors");
    }
  } else {
    if (args.has("--separatrices"))
      throw Error("--separatrices needs the simplicial complex (--complex simplicial)");
    discrete_gradient::Output output;
    domain.visit([&](auto& triangulation) {
      for (int r = 0; r < run.repeat; ++r) {
        discrete_gradient::execute(triangulation, domain.values,
                                   discrete_gradient::Parameters{run.backend}, Monitor{},
                                   output);
        result.totals.push_back(output.report.totalSeconds());
      }
    });
    addCounts(output.counts, output.grid.dimension, result);
    result.fields.add("cells", static_cast<long long>(cubical::cellCount(output.grid)));
    result.report = output.report;
  }
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
