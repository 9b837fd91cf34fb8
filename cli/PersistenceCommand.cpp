// `topogpu persistence`: the persistence diagram of a scalar field
// (core/persistence_diagram/): on the simplicial complex (TTK's PersistenceDiagram, the
// default, any --triangulation) or on a grid's cubical complex; the pairs in the JSON,
// --out the diagram (CSV, or TTK's .vtu layout where VTK is built), --curve the
// persistence curve (CSV). Both files are documented in docs/cli.md.
#include "Commands.h"
#include "Domain.h"
#include "GaleReport.h"
#include "PersistenceFiles.h"
#include "Report.h"
#include "SeparatricesFile.h"

#include "base/HostMemory.h"
#include "base/Timer.h"
#include "core/common/DeviceWarmUp.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/persistence_diagram/CubicalPersistence.h"
#include "core/persistence_diagram/SimplicialPersistence.h"

#include <string>
#include <type_traits>

namespace topogpu::cli {

namespace {

namespace pd = persistence_diagram;

// [type, birth, death, birth_vertex, death_vertex, birth_cell_dimension, birth_cell,
//  death_cell_dimension, death_cell, is_finite] per pair, in the diagram's order.
std::string pairList(const pd::Diagram& diagram) {
  std::string s = "[";
  for (std::size_t i = 0; i < diagram.pairs.size(); ++i) {
    const pd::DiagramPair& p = diagram.pairs[i];
    s += (i ? ",[" : "[") + std::to_string(p.type) + "," + jsonNumber(p.birth) + "," +
         jsonNumber(p.death) + "," + std::to_string(p.birthVertex) + "," +
         std::to_string(p.deathVertex) + "," + std::to_string(p.birthDimension) + "," +
         std::to_string(p.birthCell) + "," + std::to_string(p.deathDimension) + "," +
         std::to_string(p.deathCell) + "," + (p.isFinite ? "1" : "0") + "]";
  }
  return s + "]";
}

std::string countList(const std::array<SimplexId, 4>& counts, int n) {
  std::vector<std::string> items;
  items.reserve(std::size_t(n));
  for (int k = 0; k < n; ++k)
    items.push_back(std::to_string(counts[std::size_t(k)]));
  return jsonArray(items);
}

void runCubical(const RunOptions& run, Domain& domain, pd::Diagram& diagram,
                CommandResult& result) {
  morse_smale_complex::Parameters parameters{run.backend};
  parameters.keepVertexOrder = true;
  domain.visit([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      const Timer wall;
      morse_smale_complex::Output complex;
      morse_smale_complex::execute(triangulation, domain.values, parameters, Monitor{},
                                   complex);
      diagram = pd::Diagram();
      pd::diagramOfCubicalComplex(complex, domain.values, complex.rank.data(), Monitor{},
                                  diagram);
      RunReport report = complex.report;
      for (const auto& t : diagram.report.timings)
        report.timings.push_back(t);
      diagram.report = report;
      result.totals.push_back(wall.seconds());
    }
  });
}

} // namespace

int runPersistence(const Arguments& args, CommandContext& context) {
  const RunOptions run = parseRunOptions(args);
  // The device's context starts while the input is read (a GPU run waits for it at its
  // first CUDA call otherwise, outside every stage).
  if (run.backend != Backend::Cpu)
    warmUpDevice();
  // A .vtu diagram's Coordinates are the critical vertices' positions: a mesh's points.
  const std::string out = args.has("--out") ? args.get("--out") : "";
  const bool vtu = out.size() >= 4 && out.compare(out.size() - 4, 4, ".vtu") == 0;
  Domain domain = loadDomain(args, context, true, vtu);
  const std::string complex = chooseComplex(args, domain);
  context.activity = "computing the persistence diagram of '" + domain.input + "' (" +
                     std::to_string(domain.numberOfVertices()) + " vertices, " + complex +
                     " complex)";
  CommandResult result;
  pd::Diagram diagram;
  const double deviceStart = waitForDevice();
  if (complex == "cubical") {
    runCubical(run, domain, diagram, result);
  } else {
    pd::Parameters parameters;
    parameters.backend = run.backend;
    parameters.saddleConnections = args.has("--saddle-connections");
    parameters.memoryBudget = memoryBudgetOption(args);
    domain.visitWithGale([&](auto& triangulation) {
      for (int r = 0; r < run.repeat; ++r) {
        const Timer wall;
        pd::execute(triangulation, domain.values, parameters, Monitor{}, diagram);
        result.totals.push_back(wall.seconds());
      }
    });
  }
  if (diagram.report.backend == "gpu")
    diagram.report.timings.insert(diagram.report.timings.begin(),
                                  {"device start (wait)", deviceStart});
  const int d = diagram.dimension;
  result.fields.add("complex", complex);
  result.fields.add("dimension", d);
  result.fields.addRaw("critical_cells", countList(diagram.criticalCells, 4));
  JsonObject counts;
  counts.addRaw("finite", countList(diagram.finitePairs, 3));
  counts.addRaw("essential", countList(diagram.essentialPairs, 3));
  result.fields.add("pair_counts", counts);
  if (diagram.hostMemoryEstimate > 0)
    result.fields.add("host_memory_estimate_mib", diagram.hostMemoryEstimate / kMiB);
  JsonObject elder; // the extremum pairs' parallel rounds (ElderRounds.h)
  elder.addRaw("rounds", "[" + std::to_string(diagram.elder[0].rounds) + ", " +
                             std::to_string(diagram.elder[1].rounds) + "]");
  elder.addRaw("serial_saddles", "[" + std::to_string(diagram.elder[0].serialEdges) +
                                     ", " + std::to_string(diagram.elder[1].serialEdges) +
                                     "]");
  result.fields.add("elder_rule", elder);
  const pd::ExpansionStats& x = diagram.expansion;
  if (x.rounds > 0 || x.serialSaddles > 0) {
    JsonObject expansion; // the saddle-saddle pairs (SaddleBoundaryExpansion.h)
    expansion.add("rounds", x.rounds);
    expansion.add("settled_in_rounds", static_cast<long long>(x.settledInRounds));
    expansion.add("serial_saddles", static_cast<long long>(x.serialSaddles));
    expansion.add("toggles", static_cast<long long>(x.toggles));
    expansion.add("rounds_seconds", x.roundsSeconds);
    expansion.add("serial_seconds", x.serialSeconds);
    result.fields.add("boundary_expansion", expansion);
  }
  if (!args.has("--no-pairs"))
    result.fields.addRaw("pairs", pairList(diagram));
  const auto& f = diagram.finitePairs;
  const auto& e = diagram.essentialPairs;
  result.lines.push_back(
      "persistence pairs (" + complex + " complex): " + std::to_string(f[0]) +
      " minimum-saddle, " +
      (d == 3 ? std::to_string(f[1]) + " saddle-saddle, " + std::to_string(f[2])
              : std::to_string(f[1])) +
      " saddle-maximum; essential: " + std::to_string(e[0]) + " (type 0), " +
      std::to_string(e[1]) + " (type 1), " + std::to_string(e[2]) + " (type 2)");
  if (args.has("--out")) {
    const Timer timer;
    writeDiagramFile(out, diagram, vtu ? domainPoints(args, domain).get() : nullptr);
    diagram.report.timings.emplace_back("diagram file", timer.seconds());
  }
  if (args.has("--curve")) {
    const Timer timer;
    writeCurveFile(args.get("--curve"), diagram);
    diagram.report.timings.emplace_back("curve file", timer.seconds());
  }
  result.report = diagram.report;
  addGaleReport(domain, result);
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
