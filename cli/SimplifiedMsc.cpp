#include "SimplifiedMsc.h"

#include <algorithm>
#include <sstream>

namespace topogpu::cli {

namespace {

[[noreturn]] void notAThreshold(const std::string& option, const std::string& item) {
  throw Error(option + ": '" + item +
              "' is not a persistence threshold (a number >= 0, or auto)");
}

} // namespace

std::vector<double> persistenceThresholds(const Arguments& args) {
  const bool one = args.has("--persistence-threshold"),
             many = args.has("--persistence-thresholds");
  if (one && many)
    throw Error("--persistence-threshold and --persistence-thresholds: give one of them");
  if (!one && !many)
    return {};
  const std::string option = one ? "--persistence-threshold" : "--persistence-thresholds";
  const std::string text = args.get(option);
  std::vector<double> thresholds;
  std::string item;
  std::stringstream list(text);
  while (std::getline(list, item, ',')) {
    double T = 0;
    if (item == "auto")
      T = -1;
    else if (!parseReal(item, T) || !(T >= 0))
      notAThreshold(option, item);
    thresholds.push_back(T);
  }
  if (thresholds.empty() || (!text.empty() && text.back() == ','))
    throw Error(option + ": '" + text + "' is not a list of persistence thresholds");
  if (one && thresholds.size() > 1)
    throw Error("--persistence-threshold takes one value (--persistence-thresholds a "
                "list): got '" +
                text + "'");
  return thresholds;
}

JsonObject
simplifiedJson(const morse_smale_complex::simplicial::SimplifiedComplex& answer,
               bool automatic, double seconds) {
  JsonObject out;
  out.add("persistence_threshold", answer.threshold);
  out.add("automatic", automatic);
  std::vector<std::string> counts;
  for (const SimplexId c : answer.counts)
    counts.push_back(std::to_string(c));
  out.addRaw("critical_cells", jsonArray(counts));
  out.add("boundary_maxima", static_cast<long long>(answer.boundaryMaxima));
  out.add("cancelled_pairs", static_cast<long long>(answer.cancelledPairs));
  JsonObject arcs = saddleExtremumArcs(answer.saddle1Minimum, answer.saddleMaximum);
  addSaddleConnections(arcs, answer.connections.size(), answer.connectionMultiplicitySum);
  out.add("arcs", arcs);
  long long cells = 0;
  for (const SimplexId l : answer.morseSmaleManifold)
    cells = std::max(cells, static_cast<long long>(l) + 1);
  out.add("morse_smale_cells", cells);
  out.add("seconds", seconds);
  return out;
}

} // namespace topogpu::cli
