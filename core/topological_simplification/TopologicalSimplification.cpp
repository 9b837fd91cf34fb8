#include "TopologicalSimplification.h"

#include "core/topological_simplification/TopologicalSimplificationGpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace topogpu::topological_simplification::detail {

namespace {

std::string vertexList(const std::vector<SimplexId>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size() && i < 5; ++i)
    s += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 5)
    s += ", ...";
  return s;
}

// Whether a finite pair's extremum is kept: type 0 by its minimum, type d-1 by its
// maximum.
bool isMinimumPair(const pd::DiagramPair& p) {
  return p.type == 0;
}
bool isMaximumPair(const pd::DiagramPair& p, int dimension) {
  return p.type == dimension - 1;
}

} // namespace

void validate(SimplexId numberOfVertices, const ScalarArrayView& values,
              const Parameters& parameters) {
  validateVertexField(numberOfVertices, values);
  if (!parameters.useConstraints && !(parameters.persistenceThreshold >= 0 &&
                                      std::isfinite(parameters.persistenceThreshold)))
    throw Error("the persistence threshold must be a finite number >= 0, got " +
                std::to_string(parameters.persistenceThreshold));
  if (parameters.maximumIterations < 1 || parameters.maximumIterations > kMaxIterations)
    throw Error("the maximum number of iterations must be between 1 and " +
                std::to_string(kMaxIterations) + ", got " +
                std::to_string(parameters.maximumIterations));
  for (const Constraint& c : parameters.constraints)
    if (parameters.useConstraints && (c.vertex < 0 || c.vertex >= values.size))
      throw Error("constraint vertex " + std::to_string(c.vertex) +
                  " is out of range (the field has " + std::to_string(values.size) +
                  " vertices)");
}

double absoluteThreshold(const ScalarArrayView& values, const Parameters& parameters) {
  if (parameters.useConstraints)
    return 0;
  if (!parameters.thresholdIsRelative)
    return parameters.persistenceThreshold;
  double lo = 0, hi = 0;
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* x = static_cast<const ValueT*>(values.data);
    const auto range = std::minmax_element(x, x + values.size);
    lo = double(*range.first);
    hi = double(*range.second);
  });
  return parameters.persistenceThreshold * (hi - lo);
}

void selectExtrema(const pd::Diagram& diagram, const Parameters& parameters,
                   double threshold, const std::vector<char>& isMinimum,
                   const std::vector<char>& isMaximum, Extrema& extrema,
                   RunReport& report) {
  const std::size_t n = isMinimum.size();
  extrema.keptMinimum.assign(n, 0);
  extrema.keptMaximum.assign(n, 0);
  const int d = diagram.dimension;
  for (const pd::DiagramPair& p : diagram.pairs) {
    if (isMinimumPair(p) && !p.isFinite) {
      extrema.keptMinimum[std::size_t(p.birthVertex)] = 1; // essential: one per component
      // The essential row ends at the global maximum (TTK's diagram): kept as TTK keeps
      // the global extrema, whatever its own pair's persistence.
      if (p.deathVertex >= 0 && isMaximum[std::size_t(p.deathVertex)])
        extrema.keptMaximum[std::size_t(p.deathVertex)] = 1;
    }
    if (parameters.useConstraints)
      continue;
    if (isMinimumPair(p) && p.isFinite && p.persistence() >= threshold)
      extrema.keptMinimum[std::size_t(p.birthVertex)] = 1;
    if (isMaximumPair(p, d) && p.isFinite && p.persistence() >= threshold)
      extrema.keptMaximum[std::size_t(p.deathVertex)] = 1;
    if (p.type == d && !p.isFinite) // a closed surface's essential maximum
      extrema.keptMaximum[std::size_t(p.birthVertex)] = 1;
  }
  if (!parameters.useConstraints)
    return;
  std::vector<SimplexId> ignored;
  for (const Constraint& c : parameters.constraints) {
    const auto v = std::size_t(c.vertex);
    if (c.criticalType == pd::kSaddle1 || c.criticalType == pd::kSaddle2)
      continue; // the saddle end of a pair
    const bool asMinimum = c.criticalType == -1 || c.criticalType == pd::kLocalMinimum;
    const bool asMaximum = c.criticalType == -1 || c.criticalType == pd::kLocalMaximum;
    if (asMinimum && isMinimum[v])
      extrema.keptMinimum[v] = 1;
    else if (asMaximum && isMaximum[v])
      extrema.keptMaximum[v] = 1;
    else
      ignored.push_back(c.vertex);
  }
  if (!ignored.empty())
    report.warnings.push_back(
        {WarningCode::ConstraintIgnored,
         std::to_string(ignored.size()) +
             " constraint(s) ignored: not an extremum of the input of the given type "
             "(vertex " +
             vertexList(ignored) + ")"});
}

std::vector<char> maximumSources(const Extrema& extrema) {
  std::vector<char> sources(extrema.keptMaximum);
  for (std::size_t v = 0; v < sources.size(); ++v)
    sources[v] = sources[v] || extrema.boundary[v];
  return sources;
}

void finishOutput(const pd::Diagram& diagram, const ScalarArrayView& values,
                  const Extrema& extrema, const std::vector<char>& flattened,
                  const std::vector<char>& minima, const std::vector<char>& maxima,
                  Output& output) {
  const int d = diagram.dimension;
  for (const pd::DiagramPair& p : diagram.pairs) {
    bool kept = true;
    if (p.isFinite && isMinimumPair(p))
      kept = extrema.keptMinimum[std::size_t(p.birthVertex)] != 0;
    else if (p.isFinite && isMaximumPair(p, d))
      kept = extrema.keptMaximum[std::size_t(p.deathVertex)] != 0;
    else if (p.isFinite) // saddle-saddle: gone when it lay inside a flattened region
      kept = !(flattened[std::size_t(p.birthVertex)] &&
               flattened[std::size_t(p.deathVertex)]);
    (kept ? output.keptPairs : output.removedPairs).push_back(p);
  }
  const SimplexId n = values.size;
  const std::size_t size = scalarTypeSize(values.type);
  const auto* before = static_cast<const unsigned char*>(values.data);
  std::vector<SimplexId> extra, lost;
  for (SimplexId v = 0; v < n; ++v) {
    const auto i = std::size_t(v);
    if (extrema.keptMinimum[i])
      output.keptMinima.push_back(v);
    if (extrema.keptMaximum[i])
      output.keptMaxima.push_back(v);
    output.reorderedVertices += flattened[i] ? 1 : 0;
    output.changedVertices +=
        std::memcmp(before + i * size, output.values.data() + i * size, size) != 0;
    if ((minima[i] && !extrema.keptMinimum[i]) || (maxima[i] && !extrema.keptMaximum[i]))
      extra.push_back(v);
    if ((extrema.keptMinimum[i] && !minima[i]) || (extrema.keptMaximum[i] && !maxima[i]))
      lost.push_back(v);
  }
  output.extraExtrema = SimplexId(extra.size());
  if (!extra.empty())
    output.report.warnings.push_back(
        {WarningCode::IterationCap, "the simplification did not converge after " +
                                        std::to_string(output.iterations) +
                                        " iterations, " + std::to_string(extra.size()) +
                                        " extra extrema (vertex " + vertexList(extra) +
                                        ")"});
  if (!lost.empty())
    output.report.warnings.push_back(
        {WarningCode::KeptExtremumLost,
         std::to_string(lost.size()) +
             " kept extremum(s) stopped being one (inconsistent constraints; vertex " +
             vertexList(lost) + ")"});
}

std::size_t gridDeviceBytes(const ScalarArrayView& values) {
  // values, ranks (in, out, mirrored), keys, distances, the sort's keys and scratch,
  // four byte flags
  return std::size_t(values.size) *
         (scalarTypeSize(values.type) + 10 * sizeof(SimplexId) + 6);
}

void simplifyGridOnGpu(const grid::Dims& dims, const ScalarArrayView& values,
                       const std::vector<SimplexId>& rank, const Extrema& extrema,
                       int maximumIterations, const Monitor& monitor, Output& output,
                       std::vector<char>& flattened) {
  const std::vector<char> sources = maximumSources(extrema);
  output.order.assign(rank.size(), 0);
  std::fill(flattened.begin(), flattened.end(), char(0));
  gpu::simplifyGrid(dims, values.type, values.size, rank.data(),
                    extrema.keptMinimum.data(), sources.data(),
                    extrema.keptMaximum.data(), extrema.boundary.data(),
                    maximumIterations, monitor, output.values.data(), output.order.data(),
                    flattened.data(), output.iterations, output.report);
}

} // namespace topogpu::topological_simplification::detail
