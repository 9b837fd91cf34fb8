// `topogpu smooth`: the domain loader, the core call, the shared envelope, and the
// smoothed field written as a raw volume on request.
#include "Commands.h"
#include "Domain.h"
#include "Report.h"

#include "core/scalar_field_smoother/ScalarFieldSmoother.h"

#include <algorithm>
#include <fstream>

namespace topogpu::cli {

namespace {

template <typename T> std::pair<double, double> minMax(const T* x, SimplexId n) {
  const auto range = std::minmax_element(x, x + n);
  return {double(*range.first), double(*range.second)};
}

JsonObject rangeOf(const ScalarArrayView& values, std::string& text) {
  std::pair<double, double> extremes;
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    extremes = minMax(static_cast<const ValueT*>(values.data), values.size);
  });
  const auto [lo, hi] = extremes;
  JsonObject range;
  range.add("min", lo);
  range.add("max", hi);
  text = "[" + jsonNumber(lo) + ", " + jsonNumber(hi) + "]";
  return range;
}

void writeRaw(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file)
    file.write(reinterpret_cast<const char*>(bytes.data()),
               std::streamsize(bytes.size()));
  if (!file || !file.flush())
    throw Error("cannot write the smoothed volume to '" + path + "'");
}

} // namespace

int runSmooth(const Arguments& args, CommandContext& context) {
  const RunOptions run = parseRunOptions(args);
  scalar_field_smoother::Parameters parameters;
  parameters.backend = run.backend;
  parameters.numberOfIterations =
      int(args.integer("--iterations", 1, 0, scalar_field_smoother::kMaxIterations));
  const std::string outputPath = args.get("--output");
  if (args.has("--output") && !args.has("--raw"))
    throw Error("--output writes a raw volume and applies to --raw inputs only");
  Domain domain = loadDomain(args, context);
  context.activity = "smoothing '" + domain.input + "' (" +
                     std::to_string(domain.numberOfVertices()) + " vertices)";
  std::vector<unsigned char> smoothed(std::size_t(domain.values.size) *
                                      scalarTypeSize(domain.values.type));
  CommandResult result;
  domain.visit([&](auto& triangulation) {
    for (int r = 0; r < run.repeat; ++r) {
      scalar_field_smoother::execute(triangulation, domain.values, parameters, Monitor{},
                                     smoothed.data(), result.report);
      result.totals.push_back(result.report.totalSeconds());
    }
  });
  std::string before, after;
  result.fields.add("iterations", parameters.numberOfIterations);
  result.fields.add("type", scalarTypeName(domain.values.type));
  result.fields.add("range_before", rangeOf(domain.values, before));
  const ScalarArrayView smoothedView{smoothed.data(), domain.values.type,
                                     domain.values.size};
  result.fields.add("range_after", rangeOf(smoothedView, after));
  result.lines.push_back("iterations: " + std::to_string(parameters.numberOfIterations));
  result.lines.push_back("range before: " + before);
  result.lines.push_back("range after: " + after);
  if (!outputPath.empty()) {
    context.activity = "writing '" + outputPath + "'";
    writeRaw(outputPath, smoothed);
    result.fields.add("output", outputPath);
    result.lines.push_back("written to: " + outputPath + " (" +
                           scalarTypeName(domain.values.type) + ", same dims)");
  }
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
