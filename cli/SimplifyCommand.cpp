// `topogpu simplify`: topological simplification of a scalar field
// (core/topological_simplification/) by a persistence threshold or TTK's constraint
// points; --out writes the simplified field (SimplifyFiles.h).
#include "Commands.h"
#include "Domain.h"
#include "Report.h"
#include "SimplifyFiles.h"

#include "base/Timer.h"
#include "core/topological_simplification/TopologicalSimplification.h"

#include <array>
#include <string>

namespace topogpu::cli {

namespace {

namespace ts = topological_simplification;

std::string countList(const std::array<long long, 3>& counts) {
  return "[" + std::to_string(counts[0]) + "," + std::to_string(counts[1]) + "," +
         std::to_string(counts[2]) + "]";
}

ts::Parameters parameters(const Arguments& args, const RunOptions& run) {
  ts::Parameters p;
  p.backend = run.backend;
  if (args.has("--threshold") == args.has("--constraints"))
    throw Error("give either --threshold T or --constraints FILE");
  if (args.has("--threshold") &&
      !parseReal(args.get("--threshold"), p.persistenceThreshold))
    throw Error("--threshold must be a number, got '" + args.get("--threshold") + "'");
  p.thresholdIsRelative = args.has("--relative");
  if (p.thresholdIsRelative && !args.has("--threshold"))
    throw Error("--relative applies to --threshold");
  if (args.has("--constraints")) {
    p.useConstraints = true;
    p.constraints = readConstraints(args.get("--constraints"));
  }
  p.maximumIterations = int(
      args.integer("--iterations", ts::kDefaultMaximumIterations, 1, ts::kMaxIterations));
  p.memoryBudget = memoryBudgetOption(args);
  return p;
}

void addPairCounts(const ts::Output& output, int dimension, CommandResult& result) {
  std::array<long long, 3> kept{}, removed{};
  for (const auto& p : output.keptPairs)
    if (p.isFinite && p.type < 3)
      ++kept[std::size_t(p.type)];
  for (const auto& p : output.removedPairs)
    if (p.type < 3)
      ++removed[std::size_t(p.type)];
  JsonObject counts;
  counts.addRaw("kept", countList(kept));
  counts.addRaw("removed", countList(removed));
  result.fields.add("finite_pairs", counts);
  result.lines.push_back(
      "pairs removed: " + std::to_string(removed[0]) + " minimum-saddle, " +
      (dimension == 3
           ? std::to_string(removed[1]) + " saddle-saddle, " + std::to_string(removed[2])
           : std::to_string(removed[1])) +
      " saddle-maximum; finite pairs kept: " +
      std::to_string(kept[0] + kept[1] + kept[2]));
}

} // namespace

int runSimplify(const Arguments& args, CommandContext& context) {
  const RunOptions run = parseRunOptions(args);
  const ts::Parameters p = parameters(args, run);
  const std::string out = args.get("--out");
  Domain domain = loadDomain(args, context);
  context.activity = "simplifying '" + domain.input + "' (" +
                     std::to_string(domain.numberOfVertices()) + " vertices)";
  CommandResult result;
  ts::Output output;
  domain.visit([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      const Timer wall;
      ts::execute(triangulation, domain.values, p, Monitor{}, output);
      result.totals.push_back(wall.seconds());
    }
  });
  const int d = domain.dimension();
  result.fields.add("threshold", output.threshold);
  result.fields.add("iterations", output.iterations);
  result.fields.add("kept_minima", SimplexId(output.keptMinima.size()));
  result.fields.add("kept_maxima", SimplexId(output.keptMaxima.size()));
  result.fields.add("changed_vertices", output.changedVertices);
  result.fields.add("flattened_vertices", output.reorderedVertices);
  result.fields.add("extra_extrema", output.extraExtrema);
  result.fields.add("type", scalarTypeName(domain.values.type));
  addPairCounts(output, d, result);
  result.lines.push_back(
      "threshold: " + jsonNumber(output.threshold) +
      "; iterations: " + std::to_string(output.iterations) +
      "; kept extrema: " + std::to_string(output.keptMinima.size()) + " minima, " +
      std::to_string(output.keptMaxima.size()) +
      " maxima; changed vertices: " + std::to_string(output.changedVertices));
  if (!out.empty()) {
    if (output.values.empty())
      throw Error("the input has " + std::to_string(domain.values.size) +
                  " vertex(es): nothing to simplify, no file written");
    const Timer timer;
    SimplifiedField field;
    field.input = domain.dataSet;
    field.rawVolume = args.has("--raw");
    if (field.rawVolume)
      field.dims = parseDims(args.get("--dims"));
    field.arrayName = args.has("--raw") ? "Scalars" : args.get("--array");
    field.values = {output.values.data(), output.type, domain.values.size};
    field.order = &output.order;
    writeSimplifiedField(out, field);
    output.report.timings.emplace_back("output file", timer.seconds());
    result.fields.add("output", out);
    result.lines.push_back("written to: " + out +
                           (out.size() >= 4 && out.compare(out.size() - 4, 4, ".raw") == 0
                                ? " (values only: the vertex order is lost)"
                                : ""));
  }
  result.report = output.report;
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
