#include "Problem.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace topogpu::eikonal::detail {

void initialState(const Mesh& mesh, const Parameters& parameters, Start& start) {
  const std::size_t n = std::size_t(mesh.vertices);
  start.value.assign(n, HUGE_VAL);
  start.label.assign(n, -1);
  start.fixed.assign(n, 0);
  for (SimplexId s : parameters.seeds) {
    start.value[s] = 0;
    start.label[s] = s;
    start.fixed[s] = 1;
  }
}

double inMeshUnits(const Mesh& mesh, double time) {
  return std::ldexp(time, -mesh.unitExponent);
}

PatchFimSettings patchFimSettings(const Mesh& mesh, const Parameters& parameters) {
  PatchFimSettings settings;
  settings.internalIterations = parameters.internalIterations;
  settings.epsilon = parameters.epsilon * mesh.meanEdgeTime;
  settings.stopDistance = inMeshUnits(mesh, parameters.stopDistance);
  settings.maxRounds = parameters.maxIterations;
  settings.band = std::isinf(parameters.bandWidth)
                      ? HUGE_VAL
                      : parameters.bandWidth * mesh.meanEdgeTime;
  return settings;
}

SimplexId toInputUnits(const Mesh& mesh, const Parameters& parameters,
                       std::vector<double>& value, std::vector<SimplexId>& label) {
  const double stop = inMeshUnits(mesh, parameters.stopDistance);
  SimplexId unreached = 0;
  for (std::size_t v = 0; v < value.size(); ++v) {
    if (value[v] > stop || value[v] == HUGE_VAL) {
      value[v] = HUGE_VAL;
      label[v] = -1;
      ++unreached;
      continue;
    }
    const double scaled = std::ldexp(value[v], mesh.unitExponent);
    if (scaled == HUGE_VAL ||
        (value[v] > 0 && scaled < std::numeric_limits<double>::min())) {
      std::ostringstream s;
      s.precision(6);
      s << "the distance (travel time) of vertex " << v << " is " << value[v] << " x 2^"
        << mesh.unitExponent << ", "
        << (scaled == HUGE_VAL ? "beyond the largest double (1.8e308)"
                               : "below the smallest normal double (2.2e-308)")
        << ": scale the coordinates"
        << (parameters.speedKind == SpeedKind::Constant && parameters.speed == 1
                ? ""
                : " or the speed")
        << " so that the distances fit";
      throw Error(s.str());
    }
    value[v] = scaled;
  }
  return unreached;
}

} // namespace topogpu::eikonal::detail
