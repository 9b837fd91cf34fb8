// `topogpu rips`: Vietoris-Rips persistence barcodes (core/rips_persistence) of a point
// cloud or a distance matrix, printed in Ripser's text format (or as JSON with the stage
// timings and the apparent pairs per dimension).
#include "Commands.h"
#include "Json.h"
#include "Report.h"

#include "base/Timer.h"
#include "core/common/BackendSelection.h"
#include "core/rips_persistence/RipsPersistence.h"
#include "frontend/EnvironmentKnobs.h"
#include "triangulation/io/MeshFiles.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

namespace topogpu::cli {

namespace {

double parseThreshold(const std::string& text) {
  double value = 0;
  if (!parseReal(text, value))
    throw Error("--threshold must be a number > 0 (or inf), got '" + text + "'");
  if (value <= 0)
    throw Error("--threshold must be > 0 (a threshold of " + text +
                " leaves no edge), got '" + text + "'");
  return value;
}

std::string intervalText(const rips_persistence::Interval& interval) {
  std::ostringstream out;
  out << " [" << interval.birth << ",";
  if (std::isinf(interval.death))
    out << " )";
  else
    out << interval.death << ")";
  return out.str();
}

// " [b,d): v v; v v; ..." (0-based vertices, decreasing within a simplex).
std::string cocycleText(const rips_persistence::Interval& interval,
                        const rips_persistence::Representative& r) {
  std::ostringstream out;
  out << intervalText(interval) << ":";
  const std::size_t k = std::size_t(r.dimension) + 1;
  for (std::size_t s = 0; s < r.simplices.size(); s += k) {
    out << (s == 0 ? " " : "; ");
    for (std::size_t j = 0; j < k; ++j)
      out << (j == 0 ? "" : " ") << r.simplices[s + j];
  }
  return out.str();
}

} // namespace

int runRips(const Arguments& args, CommandContext& context) {
  namespace rp = rips_persistence;
  rp::Parameters parameters;
  const rp::InputFormat format =
      rp::parseInputFormat(args.get("--format", "lower-distance"));
  parameters.maxDimension = int(args.integer("--dim", 1, 0, rp::kMaxDimensionLimit));
  if (args.has("--threshold"))
    parameters.threshold = parseThreshold(args.get("--threshold"));
  if (args.has("--sparse"))
    parameters.sparse = rp::SparseMode::Sparse;
  parameters.threads = int(args.integer("--threads", 0, 0, rp::kMaxThreads));
  parameters.backend = parseBackend(args.get("--backend", "auto"));
  parameters.cocycles = args.has("--cocycles");
  parameters.boundEveryColumn = frontend::ripsBoundEveryColumnFromEnvironment();
  parameters.memoryBudget = memoryBudgetOption(args);
  if (!args.has("<FILE>"))
    throw Error("no input FILE given (see 'topogpu rips --help')");
  const std::string path = args.get("<FILE>");

  context.activity = "reading '" + path + "'";
  // "-": standard input, as ripser reads it (the text readers stream their input).
  const bool standardInput = path == "-";
  std::ifstream file;
  if (!standardInput) {
    io::readableFileSize(path, "input");
    file.open(path);
    if (!file)
      throw Error("cannot open '" + path + "'");
  }
  Timer readTimer;
  const rp::RipsInput input =
      rp::readRipsInput(standardInput ? std::cin : file, format,
                        standardInput ? "standard input" : "'" + path + "'");
  const double readSeconds = readTimer.seconds();

  context.activity = "computing Rips persistence of '" + path + "' (" +
                     std::to_string(input.numberOfPoints) + " points, dimension " +
                     std::to_string(parameters.maxDimension) + ")";
  rp::Result result;
  RunReport report;
  report.timings.emplace_back("read (cpu)", readSeconds);
  report.warnings = input.notes;
  rp::execute(input, parameters, Monitor{}, result, report);

  if (!context.json) {
    for (const auto& w : report.warnings)
      std::cerr << "warning: " << w.text << "\n";
    std::ostringstream out;
    for (std::size_t dim = 0; dim < result.intervals.size(); ++dim) {
      out << "persistence intervals in dim " << dim << ":\n";
      for (const auto& interval : result.intervals[dim])
        out << intervalText(interval) << "\n";
    }
    for (std::size_t dim = 1; parameters.cocycles && dim < result.intervals.size();
         ++dim) {
      out << "representative cocycles in dim " << dim << ":\n";
      for (const auto& r : result.representatives) {
        if (std::size_t(r.dimension) == dim)
          out << cocycleText(result.intervals[dim][r.interval], r) << "\n";
      }
    }
    std::cout << out.str();
    return 0;
  }
  JsonObject json;
  json.add("command", context.command);
  json.add("input", path);
  json.add("format", rp::inputFormatName(format));
  json.add("points", static_cast<long long>(result.numberOfPoints));
  json.add("max_dimension", parameters.maxDimension);
  json.add("threshold", double(result.threshold));
  json.add("enclosing_radius", double(result.enclosingRadius));
  json.add("sparse", result.sparse);
  json.add("edges", static_cast<long long>(result.edges));
  std::vector<std::string> dims;
  for (std::size_t dim = 0; dim < result.intervals.size(); ++dim) {
    const rp::DimensionStats& s = result.stats[dim];
    JsonObject d;
    d.add("dimension", static_cast<long long>(dim));
    std::vector<std::string> intervals;
    for (const auto& interval : result.intervals[dim])
      intervals.push_back("[" + jsonNumber(interval.birth) + ", " +
                          jsonNumber(interval.death) + "]");
    d.addRaw("intervals", jsonArray(intervals));
    d.add("simplices", static_cast<long long>(s.simplices));
    d.add("columns", static_cast<long long>(s.columns));
    d.add("pairs", static_cast<long long>(s.pairs));
    d.add("apparent_pairs", static_cast<long long>(s.apparentPairs));
    d.add("apparent_percent", s.apparentPercent());
    d.add("emergent_pairs", static_cast<long long>(s.emergentPairs));
    d.add("essential", static_cast<long long>(s.essential));
    if (parameters.cocycles && dim > 0) {
      // {"interval": index into intervals, "simplices": [[v, ...], ...]} per finite bar
      std::vector<std::string> cocycles;
      for (const auto& r : result.representatives) {
        if (std::size_t(r.dimension) != dim)
          continue;
        std::vector<std::string> simplices;
        const std::size_t k = dim + 1;
        for (std::size_t i = 0; i < r.simplices.size(); i += k) {
          std::vector<std::string> vertices;
          for (std::size_t j = 0; j < k; ++j)
            vertices.push_back(std::to_string(r.simplices[i + j]));
          simplices.push_back(jsonArray(vertices));
        }
        JsonObject c;
        c.add("interval", static_cast<long long>(r.interval));
        c.addRaw("simplices", jsonArray(simplices));
        cocycles.push_back(c.str());
      }
      d.addRaw("cocycles", jsonArray(cocycles));
    }
    if (dim >= 1) {
      // Where the columns and apparent pairs were made; batches > 1: the device budget
      // split the dimension.
      d.add("columns_backend", s.columnsBackend);
      d.add("batches", s.batches);
    }
    dims.push_back(d.str());
  }
  json.addRaw("dimensions", jsonArray(dims));
  addRunReport(json, report, {report.totalSeconds()});
  std::cout << json.str() << "\n";
  return 0;
}

} // namespace topogpu::cli
