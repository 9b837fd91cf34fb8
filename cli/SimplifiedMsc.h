// `topogpu msc --complex simplicial --persistence-threshold T` (or
// --persistence-thresholds a,b,c): the complex of the field simplified at each
// threshold, answered from the cancellation hierarchy
// (core/morse_smale_complex/CancellationHierarchy.h) built once from the complex and its
// persistence pairs. "simplified" in the JSON lists, per threshold, the kept critical
// cells, arcs, saddle connections, segmentation cells and the answer's seconds; --details
// and --separatrices-out write the last threshold's complex.
#pragma once

#include "Arguments.h"
#include "Json.h"
#include "Report.h"

#include "base/Timer.h"
#include "core/morse_smale_complex/CancellationHierarchy.h"
#include "core/persistence_diagram/ExtremumPairs.h"

#include <fstream>
#include <string>
#include <vector>

namespace topogpu::cli {

// The thresholds asked for (empty without the options); throws Error naming the option
// for a value that is not a number >= 0 or "auto" (-1 in the list).
std::vector<double> persistenceThresholds(const Arguments& args);

// The "simplified" entry of one answer.
JsonObject
simplifiedJson(const morse_smale_complex::simplicial::SimplifiedComplex& answer,
               bool automatic, double seconds);

// A simplex as its vertex list ("[v0,v1,...]").
template <typename Triangulation>
std::string vertexList(const Triangulation& tri, int dimension, SimplexId id) {
  std::string s = "[";
  for (int k = 0; k <= dimension; ++k)
    s += (k ? "," : "") + std::to_string(dimension == 0   ? id
                                         : dimension == 1 ? tri.getEdgeVertex(id, k)
                                         : dimension == 2 ? tri.getTriangleVertex(id, k)
                                                          : tri.getCellVertex(id, k));
  return s + "]";
}

// --details of an answer: the kept critical cells and maxima as vertex lists, the
// rerouted arcs [saddle, new extremum index, multiplicity] and the relabelled arrays
// (the keys of the complex's own details file).
template <typename Triangulation>
void writeSimplifiedDetails(const std::string& path, const Triangulation& tri,
                            const morse_smale_complex::simplicial::Output& complex,
                            const morse_smale_complex::simplicial::SimplifiedComplex& a) {
  std::ofstream file(path);
  if (!file)
    throw Error("cannot write the details file '" + path + "'");
  const auto& g = complex.gradient;
  const int d = g.dimension;
  auto ids = [](const auto& list) {
    std::vector<std::string> items;
    items.reserve(list.size());
    for (const auto x : list)
      items.push_back(std::to_string(x));
    return jsonArray(items);
  };
  file << "{\"dimension\":" << d
       << ",\"persistence_threshold\":" << jsonNumber(a.threshold)
       << ",\"critical_cells\":[";
  for (int k = 0; k < 4; ++k) {
    std::vector<std::string> cells;
    if (k == 0)
      for (const SimplexId m : a.kept[0])
        cells.push_back(vertexList(tri, 0, g.criticalCells[0][std::size_t(m)]));
    else if (k == d)
      for (const SimplexId m : a.kept[1]) {
        if (complex.maxima[std::size_t(m)].dimension == d)
          cells.push_back(vertexList(tri, d, complex.maxima[std::size_t(m)].id));
      }
    else if (k < d)
      for (std::size_t j = 0; j < g.criticalCells[std::size_t(k)].size(); ++j)
        if (!(k == 1 && a.saddleCancelled[0][j]) &&
            !(k == d - 1 && a.saddleCancelled[1][j]))
          cells.push_back(vertexList(tri, k, g.criticalCells[std::size_t(k)][j]));
    file << (k ? "," : "") << jsonArray(cells);
  }
  std::vector<std::string> maxima;
  for (const SimplexId m : a.kept[1])
    maxima.push_back(vertexList(tri, complex.maxima[std::size_t(m)].dimension,
                                complex.maxima[std::size_t(m)].id));
  file << "],\"maxima\":" << jsonArray(maxima)
       << ",\"boundary_maxima\":" << a.boundaryMaxima;
  for (const auto* arcs : {&a.saddle1Minimum, &a.saddleMaximum}) {
    std::vector<std::string> items;
    for (const auto& arc : *arcs)
      items.push_back(
          "[" + vertexList(tri, arcs == &a.saddle1Minimum ? 1 : d - 1, arc.saddle) + "," +
          std::to_string(arc.extremum) + "," + std::to_string(arc.multiplicity) + "]");
    file << (arcs == &a.saddle1Minimum ? ",\"saddle1_minimum\":" : ",\"saddle_maximum\":")
         << jsonArray(items);
  }
  std::vector<std::string> connections;
  for (const auto& c : a.connections)
    connections.push_back("[" + vertexList(tri, 1, c.saddle1) + "," +
                          vertexList(tri, 2, c.saddle2) + "," +
                          std::to_string(c.multiplicity) + "]");
  file << ",\"saddle1_saddle2\":" << jsonArray(connections)
       << ",\"DescendingManifold\":" << ids(a.descendingManifold)
       << ",\"AscendingManifold\":" << ids(a.ascendingManifold)
       << ",\"CellAscendingManifold\":" << ids(a.cellAscendingManifold)
       << ",\"MorseSmaleManifold\":" << ids(a.morseSmaleManifold) << "}\n";
  if (!file)
    throw Error("cannot write the details file '" + path + "'");
}

// Builds the hierarchy of `complex` (pairs from `diagram`) and answers every threshold
// (-1: the legible default) into `answer` (the last one), with the JSON in result.
template <typename Triangulation>
void answerThresholds(const Triangulation& tri,
                      const morse_smale_complex::simplicial::Output& complex,
                      const persistence_diagram::Diagram& diagram,
                      const std::vector<double>& thresholds,
                      morse_smale_complex::simplicial::AscendingSegmentation rule,
                      morse_smale_complex::simplicial::CancellationHierarchy& hierarchy,
                      morse_smale_complex::simplicial::SimplifiedComplex& answer,
                      CommandResult& result) {
  namespace smsc = morse_smale_complex::simplicial;
  const Timer build;
  smsc::buildHierarchy(complex, persistence_diagram::extremumPairs(tri, diagram, complex),
                       persistence_diagram::saddlePairs(diagram), hierarchy);
  const double buildSeconds = build.seconds();
  std::vector<std::string> answers;
  for (const double asked : thresholds) {
    const Timer timer;
    const double T = asked < 0 ? smsc::legibleThreshold(hierarchy, smsc::kLegibleExtrema,
                                                        smsc::kLegibleExtrema)
                               : asked;
    smsc::simplify(complex, hierarchy, T, rule, answer);
    const double seconds = timer.seconds();
    answers.push_back(simplifiedJson(answer, asked < 0, seconds).str());
    result.lines.push_back(
        "persistence threshold " + jsonNumber(T) + (asked < 0 ? " (automatic)" : "") +
        ": " + std::to_string(answer.counts[0]) + " minima, " +
        std::to_string(answer.counts[std::size_t(complex.gradient.dimension)]) +
        " maxima kept (" + std::to_string(answer.cancelledPairs) +
        " pairs cancelled) in " + std::to_string(seconds * 1000) + " ms");
  }
  result.fields.addRaw("simplified", jsonArray(answers));
  result.fields.add("hierarchy_seconds", buildSeconds);
  result.fields.add("largest_persistence", hierarchy.largestPersistence);
  result.fields.add("hierarchy_pairs",
                    static_cast<long long>(hierarchy.sides[0].extremum.size()) +
                        static_cast<long long>(hierarchy.sides[1].extremum.size()));
  result.fields.add("inconsistent_pairs",
                    static_cast<long long>(hierarchy.inconsistentPairs));
}

} // namespace topogpu::cli
