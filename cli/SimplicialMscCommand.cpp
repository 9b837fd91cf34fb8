// `topogpu msc --complex simplicial` (and msc on a mesh, through any triangulation:
// --triangulation explicit|gale-cpu|gale-gpu): the Morse-Smale complex on the simplicial
// gradient (core/morse_smale_complex/SimplicialMorseSmaleComplex.h) in the grid path's
// JSON (critical cells, arcs with multiplicities, boundary maxima, unlabelled counts),
// plus, with --separatrices, TTK 1.2's own separatrix counts
// (core/discrete_gradient/SimplicialSeparatrices.h, "separatrices1") for the parity
// tests. --details writes the complex itself, --separatrices-out its 1-separatrices
// (SeparatricesFile.h). The grid path (cubical complex) stays in
// MorseSmaleComplexCommand.cpp.
#include "Commands.h"
#include "Domain.h"
#include "GaleReport.h"
#include "PersistencePairsJson.h"
#include "Report.h"
#include "SeparatricesFile.h"
#include "SimplifiedMsc.h"

#include "base/HostMemory.h"
#include "base/Timer.h"
#include "core/discrete_gradient/SimplicialSeparatrices.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/morse_smale_complex/SimplicialRecords.h"
#include "core/morse_smale_complex/SimplicialSeparatrices2.h"
#include "core/morse_smale_complex/SimplifiedRecords.h"
#include "core/persistence_diagram/SimplicialPersistence.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <utility>

namespace topogpu::cli {

namespace {

namespace smsc = morse_smale_complex::simplicial;
namespace sg = discrete_gradient::simplicial;

template <typename Id> std::string idList(const std::vector<Id>& ids) {
  std::string s = "[";
  for (std::size_t i = 0; i < ids.size(); ++i)
    s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "]";
}

// Simplices as vertex lists ([[v0, v1], ...]), so files from different backends (whose
// edge and triangle ids differ) compare.
template <typename Triangulation>
std::string simplex(const Triangulation& tri, int dimension, SimplexId id) {
  std::string s = "[";
  for (int k = 0; k <= dimension; ++k) {
    const SimplexId v = dimension == 0   ? id
                        : dimension == 1 ? tri.getEdgeVertex(id, k)
                        : dimension == 2 ? tri.getTriangleVertex(id, k)
                                         : tri.getCellVertex(id, k);
    s += (k ? "," : "") + std::to_string(v);
  }
  return s + "]";
}

template <typename Triangulation>
void writeDetails(const std::string& path, const Triangulation& tri,
                  const smsc::Output& out) {
  std::ofstream file(path);
  if (!file)
    throw Error("cannot write the details file '" + path + "'");
  const auto& g = out.gradient;
  file << "{\"dimension\":" << g.dimension << ",\"critical_cells\":[";
  for (int k = 0; k < 4; ++k) {
    file << (k ? ",[" : "[");
    for (std::size_t i = 0; i < g.criticalCells[k].size(); ++i)
      file << (i ? "," : "") << simplex(tri, k, g.criticalCells[k][i]);
    file << "]";
  }
  file << "],\"maxima\":[";
  for (std::size_t i = 0; i < out.maxima.size(); ++i)
    file << (i ? "," : "") << simplex(tri, out.maxima[i].dimension, out.maxima[i].id);
  file << "],\"boundary_maxima\":" << out.boundaryMaxima;
  // arcs: [saddle's vertices, extremum index, multiplicity]
  const int top = g.dimension;
  for (const auto* arcs : {&out.saddle1Minimum, &out.saddleMaximum}) {
    file << (arcs == &out.saddle1Minimum ? ",\"saddle1_minimum\":["
                                         : ",\"saddle_maximum\":[");
    for (std::size_t i = 0; i < arcs->size(); ++i) {
      const smsc::Arc& a = (*arcs)[i];
      file << (i ? ",[" : "[")
           << simplex(tri, arcs == &out.saddle1Minimum ? 1 : top - 1, a.saddle) << ","
           << a.extremum << "," << a.multiplicity << "]";
    }
    file << "]";
  }
  file << ",\"saddle1_saddle2\":[";
  for (std::size_t i = 0; i < out.connections.size(); ++i) {
    const smsc::Connection& c = out.connections[i];
    file << (i ? ",[" : "[") << simplex(tri, 1, c.saddle1) << ","
         << simplex(tri, 2, c.saddle2) << "," << c.multiplicity << "]";
  }
  // The gradient's pairs that the segmentations follow (for oracles): each vertex's
  // edge and each top cell's facet, null when critical.
  file << "],\"vertex_pairs\":[";
  for (SimplexId v = 0; v < g.simplexCounts[0]; ++v) {
    const SimplexId e = sg::getPairedCell(tri, g, 0, v, false);
    file << (v ? "," : "") << (e < 0 ? std::string("null") : simplex(tri, 1, e));
  }
  file << "],\"cell_pairs\":[";
  for (SimplexId c = 0; c < g.simplexCounts[top]; ++c) {
    const SimplexId f = sg::getPairedCell(tri, g, top, c, true);
    file << (c ? ",[" : "[") << simplex(tri, top, c) << ","
         << (f < 0 ? std::string("null") : simplex(tri, top - 1, f)) << "]";
  }
  file << "],\"DescendingManifold\":" << idList(out.descendingManifold)
       << ",\"AscendingManifold\":" << idList(out.ascendingManifold)
       << ",\"CellAscendingManifold\":" << idList(out.cellAscendingManifold)
       << ",\"MorseSmaleManifold\":"
       << idList(smsc::morseSmaleLabels(out.descendingManifold, out.ascendingManifold))
       << "}\n";
  if (!file)
    throw Error("cannot write the details file '" + path + "'");
}

// How many distinct labels (>= 0) a manifold array holds: the segmentation's cells.
long long distinctLabels(const std::vector<morse_smale_complex::ManifoldLabel>& labels) {
  std::vector<bool> seen;
  long long n = 0;
  for (const morse_smale_complex::ManifoldLabel l : labels) {
    if (l < 0)
      continue;
    if (static_cast<std::size_t>(l) >= seen.size())
      seen.resize(static_cast<std::size_t>(l) + 1, false);
    n += seen[l] ? 0 : 1;
    seen[l] = true;
  }
  return n;
}

// TTK's 2-separatrices' walls, counted (not kept: they overlap and can be large).
template <typename Triangulation>
void countWalls(Triangulation& tri, smsc::Output& output,
                separatrices2::simplicial::Output& walls) {
  separatrices2::Parameters counts;
  counts.ascending = counts.descending = true;
  counts.keepCells = false;
  separatrices2::simplicial::compute(tri, output.gradient, output.rank.data(), counts,
                                     Monitor{}, walls, output.report);
}

// One wall per 2-saddle (descending, triangles) and per 1-saddle (ascending, edges) on
// tet meshes; none on triangles.
JsonObject wallCounts(const separatrices2::simplicial::Output& walls) {
  JsonObject sep2;
  sep2.add("ascending", static_cast<long long>(walls.ascending.size()));
  sep2.add("descending", static_cast<long long>(walls.descending.size()));
  sep2.add("ascending_edges", static_cast<long long>(walls.ascending.totalCells()));
  sep2.add("descending_triangles", static_cast<long long>(walls.descending.totalCells()));
  return sep2;
}

// "persistence_pairs" as the cubical complex's (MorseSmaleComplexCommand.cpp): the
// finite pairs [dim, birth_rank, death_rank, birth_cell, death_cell, birth_value,
// death_value] of positive rank persistence, the essential minima, the saddles and
// maxima left (the diagram's other essential classes).
void addPersistencePairs(const persistence_diagram::Diagram& diagram,
                         const std::vector<SimplexId>& rank, CommandResult& result) {
  PersistencePairsJson json;
  std::array<long long, 4> essential{};
  for (const auto& p : diagram.pairs) {
    if (!p.isFinite) {
      ++essential[std::size_t(p.type)];
      continue;
    }
    const SimplexId rb = rank[std::size_t(p.birthVertex)],
                    rd = rank[std::size_t(p.deathVertex)];
    if (rd <= rb)
      continue; // zero persistence, inside one lower star
    json.add(p.type, rb, rd, p.birthCell, p.deathCell, p.birth, p.death);
  }
  const std::size_t n = json.size();
  const bool is2D = diagram.dimension == 2;
  result.fields.add("persistence_pairs",
                    json.object(essential[0], essential[1], is2D ? 0 : essential[2],
                                is2D ? essential[2] : 0LL));
  result.lines.push_back(
      "persistence pairs: " + std::to_string(n) +
      " of positive persistence; essential: " + std::to_string(essential[0]) +
      " minima, " + std::to_string(essential[1]) + " 1-saddles" +
      (is2D ? ", " + std::to_string(essential[2]) + " maxima"
            : ", " + std::to_string(essential[2]) + " 2-saddles"));
}

// The unlabelled counts and the vertex segmentation's cells (TTK's AscendingManifold,
// DescendingManifold and MorseSmaleManifold ids in use), so backends compare without
// --details.
void addSegmentation(const smsc::Output& output, smsc::AscendingSegmentation rule,
                     CommandResult& result) {
  const std::vector<SimplexId> cells =
      smsc::morseSmaleLabels(output.descendingManifold, output.ascendingManifold);
  JsonObject missing;
  missing.add("ascending", static_cast<long long>(output.unlabelledAscending));
  missing.add("descending", static_cast<long long>(output.unlabelledDescending));
  missing.add("morse_smale",
              static_cast<long long>(std::count_if(cells.begin(), cells.end(),
                                                   [](SimplexId l) { return l < 0; })));
  result.fields.add("unlabelled_vertices", missing);
  result.fields.add("unlabelled_cells", static_cast<long long>(output.unlabelledCells));
  result.fields.add("ascending_segmentation", rule == smsc::AscendingSegmentation::Ttk
                                                  ? "ttk"
                                                  : "through-boundary");
  const long long ascendingCells = distinctLabels(output.ascendingManifold);
  const long long descendingCells = distinctLabels(output.descendingManifold);
  const long long morseSmaleCells =
      cells.empty()
          ? 0
          : static_cast<long long>(*std::max_element(cells.begin(), cells.end())) + 1;
  JsonObject segmentation;
  segmentation.add("ascending", ascendingCells);
  segmentation.add("descending", descendingCells);
  segmentation.add("morse_smale", morseSmaleCells);
  result.fields.add("segmentation", segmentation);
  result.lines.push_back("segmentation: " + std::to_string(ascendingCells) +
                         " ascending, " + std::to_string(descendingCells) +
                         " descending, " + std::to_string(morseSmaleCells) +
                         " Morse-Smale cells");
}

} // namespace

int runSimplicialMorseSmaleComplex(const Arguments& args, CommandContext& context,
                                   Domain& domain) {
  namespace sg = discrete_gradient::simplicial;
  const RunOptions run = parseRunOptions(args);
  const std::vector<double> thresholds = persistenceThresholds(args);
  const bool connectors = !args.has("--no-saddle-connections");
  // TTK 1.2's own separatrix counts are a second pass over the gradient: only when asked.
  const bool separatrices = args.has("--separatrices");
  context.activity = "computing the simplicial Morse-Smale complex of '" + domain.input +
                     "' (" + std::to_string(domain.numberOfVertices()) + " vertices)";
  CommandResult result;
  smsc::Output output;
  sg::Separatrices ttk;
  separatrices2::simplicial::Output walls;
  smsc::Parameters parameters;
  parameters.backend = run.backend;
  parameters.computeSaddleConnections = connectors;
  parameters.memoryBudget = memoryBudgetOption(args);
  if (args.has("--ascending-through-boundary"))
    parameters.ascendingSegmentation = smsc::AscendingSegmentation::ThroughBoundary;
  const bool separatricesOut = args.has("--separatrices-out");
  parameters.keepConnectionPaths = connectors && separatricesOut;
  morse_smale_complex::Records records;
  const bool pairs = args.has("--persistence-pairs");
  persistence_diagram::Diagram diagram;
  smsc::CancellationHierarchy hierarchy;
  smsc::SimplifiedComplex answer;
  domain.visitWithGale([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      const Timer wall;
      smsc::execute(triangulation, domain.values, parameters, Monitor{}, output);
      if (separatrices) {
        Timer timer;
        sg::computeSeparatrices1(triangulation, output.gradient, ttk);
        if (connectors)
          sg::computeSaddleConnectors(triangulation, output.gradient, ttk);
        output.report.timings.emplace_back("TTK separatrix counts (cpu)",
                                           timer.seconds());
        countWalls(triangulation, output, walls);
      }
      result.totals.push_back(wall.seconds());
    }
    if (pairs || !thresholds.empty()) {
      // 3D: from the saddle connections, or without them from the boundary expansion
      persistence_diagram::diagramOfComplex(triangulation, output, domain.values,
                                            Monitor{}, diagram);
      for (const auto& t : diagram.report.timings)
        output.report.timings.push_back(t);
    }
    if (!thresholds.empty())
      answerThresholds(triangulation, output, diagram, thresholds,
                       parameters.ascendingSegmentation, hierarchy, answer, result);
    if (args.has("--details") && !thresholds.empty())
      writeSimplifiedDetails(args.get("--details"), triangulation, output, answer);
    else if (args.has("--details"))
      writeDetails(args.get("--details"), triangulation, output);
    if (separatricesOut) {
      const Timer timer;
      morse_smale_complex::RecordSwitches on;
      on.criticalPoints = false;
      on.saddleConnectors = connectors;
      if (thresholds.empty())
        smsc::buildRecords(triangulation, output, domain.values,
                           *domainPoints(args, domain), on, records);
      else
        smsc::buildSimplifiedRecords(triangulation, output, hierarchy, answer,
                                     domain.values, *domainPoints(args, domain), on,
                                     records);
      writeSeparatricesFile(args.get("--separatrices-out"), "simplicial",
                            output.gradient.dimension, std::move(records.separatrices1));
      output.report.timings.emplace_back("separatrices file", timer.seconds());
    }
  });
  const sg::Output& gradient = output.gradient;
  result.fields.add("complex", "simplicial");
  std::vector<std::string> items;
  items.reserve(4);
  for (int k = 0; k < 4; ++k)
    items.push_back(std::to_string(gradient.counts[k]));
  result.fields.addRaw("critical_cells", jsonArray(items));
  std::vector<std::string> simplices;
  simplices.reserve(4);
  for (int k = 0; k < 4; ++k)
    simplices.push_back(std::to_string(gradient.simplexCounts[k]));
  result.fields.addRaw("simplices", jsonArray(simplices));
  JsonObject arcs = saddleExtremumArcs(output.saddle1Minimum, output.saddleMaximum);
  if (output.connectionsComputed)
    addSaddleConnections(arcs, output.connections.size(),
                         output.connectionMultiplicitySum);
  result.fields.add("arcs", arcs);
  result.fields.add("boundary_maxima", static_cast<long long>(output.boundaryMaxima));
  if (separatrices) {
    // TTK 1.2's counts (its rules: ascending paths leaving the boundary dropped, one
    // connector per 1-saddle on a wall).
    JsonObject sep;
    sep.add("ascending", static_cast<long long>(ttk.ascending.size()));
    sep.add("descending", static_cast<long long>(ttk.descending.size()));
    if (connectors)
      sep.add("saddle_connectors", static_cast<long long>(ttk.saddleConnectors.size()));
    sep.add("ascending_leaving_boundary",
            static_cast<long long>(ttk.ascendingLeavingBoundary));
    result.fields.add("separatrices1", sep);
    result.fields.add("separatrices2", wallCounts(walls));
  }
  addSegmentation(output, parameters.ascendingSegmentation, result);

  const bool is2D = gradient.dimension == 2;
  result.lines.push_back("critical cells: " + items[0] + " minima, " + items[1] +
                         " 1-saddles, " + (is2D ? "" : items[2] + " 2-saddles, ") +
                         items[is2D ? 2 : 3] + " maxima (simplicial complex)");
  result.lines.push_back(
      "arcs: " + std::to_string(output.saddle1Minimum.size()) + " saddle1-minimum, " +
      std::to_string(output.saddleMaximum.size()) + " saddle-maximum, " +
      std::to_string(output.boundaryMaxima) + " boundary maxima" +
      (output.connectionsComputed
           ? "; " + std::to_string(output.connections.size()) + " saddle-saddle arcs (" +
                 std::to_string(output.connectionMultiplicitySum) + " V-paths)"
           : std::string("; saddle-saddle arcs: not computed")));
  if (separatrices)
    result.lines.push_back(
        "TTK's 1-separatrices: " + std::to_string(ttk.ascending.size()) + " ascending (" +
        std::to_string(ttk.ascendingLeavingBoundary) +
        " more leave through the boundary), " + std::to_string(ttk.descending.size()) +
        " descending" +
        (connectors
             ? ", " + std::to_string(ttk.saddleConnectors.size()) + " saddle connectors"
             : std::string()));
  result.lines.push_back(
      "unlabelled: " + std::to_string(output.unlabelledAscending) +
      " vertices (ascending; " +
      (parameters.ascendingSegmentation == smsc::AscendingSegmentation::Ttk
           ? "TTK's rule: paths leaving the boundary"
           : "only vertices in no cell") +
      "), " + std::to_string(output.unlabelledDescending) + " vertices (descending), " +
      std::to_string(output.unlabelledCells) + " cells");
  result.fields.add("host_memory_estimate_mib", output.hostMemoryEstimate / kMiB);
  if (pairs)
    addPersistencePairs(diagram, output.rank, result);
  result.report = output.report;
  addGaleReport(domain, result);
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
