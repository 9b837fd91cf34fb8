// `topogpu msc`: the domain loader (grids only), the core call, critical cells, arcs,
// boundary maxima and unlabelled counts in the shared envelope; --details writes the
// complex itself for oracle tests; --persistence-pairs adds the pairs of the arc
// cancellation; --separatrices-out writes the 1-separatrices (SeparatricesFile.h).
#include "Commands.h"
#include "Domain.h"
#include "PersistencePairsJson.h"
#include "Report.h"
#include "SeparatricesFile.h"

#include "base/Timer.h"
#include "core/morse_smale_complex/CubicalRecords.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/persistence_diagram/CubicalPersistence.h"

#include <array>
#include <fstream>
#include <memory>
#include <utility>

namespace topogpu::cli {

namespace {

template <typename Id> std::string idList(const std::vector<Id>& ids) {
  std::string s = "[";
  for (std::size_t i = 0; i < ids.size(); ++i)
    s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "]";
}

std::string arcList(const std::vector<morse_smale_complex::Arc>& arcs) {
  std::string s = "[";
  for (std::size_t i = 0; i < arcs.size(); ++i)
    s += (i ? ",[" : "[") + std::to_string(arcs[i].saddle) + "," +
         std::to_string(arcs[i].extremum) + "," + std::to_string(arcs[i].multiplicity) +
         "]";
  return s + "]";
}

std::string connectionList(const std::vector<saddle_connections::Arc>& arcs) {
  std::string s = "[";
  for (std::size_t i = 0; i < arcs.size(); ++i)
    s += (i ? ",[" : "[") + std::to_string(arcs[i].saddle1) + "," +
         std::to_string(arcs[i].saddle2) + "," + std::to_string(arcs[i].multiplicity) +
         "]";
  return s + "]";
}

void writeDetails(const std::string& path, const morse_smale_complex::Output& out) {
  std::ofstream file(path);
  if (!file)
    throw Error("cannot write the details file '" + path + "'");
  const auto& g = out.gradient.grid;
  file << "{\"dims\":[" << g.n[0] << "," << g.n[1] << "," << g.n[2]
       << "],\"dimension\":" << g.dimension << ",\"critical_cells\":[";
  for (int k = 0; k < 4; ++k)
    file << (k ? "," : "") << idList(out.gradient.criticalCells[k]);
  file << "],\"maxima\":" << idList(out.maxima)
       << ",\"boundary_maxima\":" << out.boundaryMaxima
       << ",\"saddle1_minimum\":" << arcList(out.saddle1Minimum)
       << ",\"saddle_maximum\":" << arcList(out.saddleMaximum)
       << ",\"saddle1_saddle2\":" << connectionList(out.saddleConnections.arcs)
       << ",\"DescendingManifold\":" << idList(out.descendingManifold)
       << ",\"AscendingManifold\":" << idList(out.ascendingManifold)
       << ",\"CellAscendingManifold\":" << idList(out.cellAscendingManifold) << "}\n";
  if (!file)
    throw Error("cannot write the details file '" + path + "'");
}

JsonObject persistenceJson(const persistence_diagram::Persistence& persistence) {
  PersistencePairsJson json;
  for (const auto& p : persistence.pairs)
    json.add(p.dimension, p.birthRank, p.deathRank, p.birth, p.death, p.birthValue,
             p.deathValue);
  return json.object(static_cast<long long>(persistence.minima.size()),
                     static_cast<long long>(persistence.saddles1.size()),
                     static_cast<long long>(persistence.saddlesTop.size()),
                     static_cast<long long>(persistence.maxima.size()));
}

} // namespace

int runMorseSmaleComplex(const Arguments& args, CommandContext& context) {
  const RunOptions run = parseRunOptions(args);
  const bool separatricesOut = args.has("--separatrices-out");
  Domain domain = loadDomain(args, context, true, separatricesOut);
  if (chooseComplex(args, domain) == "simplicial")
    return runSimplicialMorseSmaleComplex(args, context, domain);
  if (args.has("--separatrices"))
    throw Error("--separatrices counts TTK's 1-separatrices on the simplicial complex; "
                "add --complex simplicial");
  context.activity = "computing the Morse-Smale complex of '" + domain.input + "' (" +
                     std::to_string(domain.numberOfVertices()) + " vertices)";
  CommandResult result;
  morse_smale_complex::Output output;
  morse_smale_complex::Parameters parameters{run.backend};
  const bool noSaddleConnections = args.has("--no-saddle-connections");
  parameters.computeSaddleConnections = !noSaddleConnections;
  // The persistence pairs and the separatrices read the vertex order the complex was
  // built with, which it keeps.
  const bool pairs = args.has("--persistence-pairs");
  parameters.keepVertexOrder = pairs || separatricesOut;
  domain.visit([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      // Wall time of the whole call (stage timings may overlap: the GPU's downloads run
      // beside the later stages), transfers included; the previous repeat's result is
      // released before the clock starts.
      output = morse_smale_complex::Output();
      const Timer wall;
      morse_smale_complex::execute(triangulation, domain.values, parameters, Monitor{},
                                   output);
      result.totals.push_back(wall.seconds());
    }
  });
  const auto& counts = output.gradient.counts;
  std::vector<std::string> items;
  items.reserve(4);
  for (int k = 0; k < 4; ++k)
    items.push_back(std::to_string(counts[k]));
  result.fields.addRaw("critical_cells", jsonArray(items));
  JsonObject arcs = saddleExtremumArcs(output.saddle1Minimum, output.saddleMaximum);
  const auto& connections = output.saddleConnections;
  if (!noSaddleConnections)
    addSaddleConnections(arcs, connections.arcs.size(), connections.multiplicitySum);
  result.fields.add("arcs", arcs);
  result.fields.add("boundary_maxima", static_cast<long long>(output.boundaryMaxima));
  JsonObject unlabelled;
  unlabelled.add("ascending", static_cast<long long>(output.unlabelledAscending));
  unlabelled.add("descending", static_cast<long long>(output.unlabelledDescending));
  result.fields.add("unlabelled_vertices", unlabelled);
  result.fields.add("unlabelled_voxels", static_cast<long long>(output.unlabelledCells));

  const bool is2D = output.gradient.grid.dimension == 2;
  result.lines.push_back("critical cells: " + items[0] + " minima, " + items[1] +
                         " 1-saddles, " + (is2D ? "" : items[2] + " 2-saddles, ") +
                         items[is2D ? 2 : 3] + " maxima");
  result.lines.push_back(
      "arcs: " + std::to_string(output.saddle1Minimum.size()) +
      " saddle-minimum (multiplicity sum " +
      std::to_string(multiplicitySum(output.saddle1Minimum)) + "), " +
      std::to_string(output.saddleMaximum.size()) + " saddle-maximum (multiplicity sum " +
      std::to_string(multiplicitySum(output.saddleMaximum)) + ")" +
      (noSaddleConnections ? std::string("; saddle-saddle arcs: not computed")
                           : "; " + std::to_string(connections.arcs.size()) +
                                 " saddle-saddle (multiplicity sum " +
                                 std::to_string(connections.multiplicitySum) + ")"));
  result.lines.push_back("boundary maxima (ascending paths leaving the box): " +
                         std::to_string(output.boundaryMaxima));
  result.lines.push_back(
      "unlabelled: " + std::to_string(output.unlabelledAscending) +
      " vertices (ascending), " + std::to_string(output.unlabelledDescending) +
      " vertices (descending), " + std::to_string(output.unlabelledCells) + " cells");
  if (pairs) {
    Timer timer;
    persistence_diagram::Persistence persistence;
    persistence_diagram::computePersistence(output, domain.values, output.rank.data(),
                                            persistence);
    output.report.timings.emplace_back("persistence pairs (cpu)", timer.seconds());
    result.fields.add("persistence_pairs", persistenceJson(persistence));
    std::array<std::size_t, 3> perDimension{};
    for (const auto& p : persistence.pairs)
      ++perDimension[std::size_t(p.dimension)];
    const std::string top = is2D ? "1" : "2";
    std::string line = "persistence pairs: " + std::to_string(perDimension[0]) +
                       " (minimum, 1-saddle), " +
                       std::to_string(perDimension[is2D ? 1 : 2]) + " (" + top +
                       "-saddle, maximum)";
    if (persistence.saddlePairs)
      line += ", " + std::to_string(perDimension[1]) + " (1-saddle, 2-saddle)";
    line += "; essential minima: " + std::to_string(persistence.minima.size());
    if (!is2D)
      line += "; saddles left: " + std::to_string(persistence.saddles1.size()) + " + " +
              std::to_string(persistence.saddlesTop.size()) +
              (persistence.saddlePairs ? "" : " (for the 1-saddle/2-saddle pairs)");
    result.lines.push_back(line);
  }
  if (args.has("--details"))
    writeDetails(args.get("--details"), output);
  if (separatricesOut) {
    const Timer timer;
    morse_smale_complex::RecordSwitches on;
    on.criticalPoints = false;
    on.saddleConnectors = !noSaddleConnections;
    morse_smale_complex::Records records;
    morse_smale_complex::buildRecords(output, domain.values, *domainPoints(args, domain),
                                      on, records);
    writeSeparatricesFile(args.get("--separatrices-out"), "cubical",
                          output.gradient.grid.dimension,
                          std::move(records.separatrices1));
    output.report.timings.emplace_back("separatrices file", timer.seconds());
  }
  result.report = output.report;
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
