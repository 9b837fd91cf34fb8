#include "Problem.h"

#include "ExactStart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace topogpu::eikonal::detail {

namespace {
// The exact start's work bound: windows propagated per mesh vertex, and at least this
// many (small meshes). A window costs about a microsecond, an FMM acceptance about the
// same: an eighth of a window per vertex keeps the exact start within about a tenth of
// the solvers' time when many seeds' balls would cover the mesh (one seed's ball on the
// 1M-vertex meshes takes 30-70k windows).
constexpr double kExactWindowsPerVertex = 0.125;
constexpr std::size_t kMinExactWindows = std::size_t(1) << 15;
} // namespace

void initialState(const Mesh& mesh, const Parameters& parameters, Start& start) {
  const std::size_t n = std::size_t(mesh.vertices);
  start.value.assign(n, HUGE_VAL);
  start.label.assign(n, -1);
  start.fixed.assign(n, 0);
  start.exactRadius = 0;
  // Straight lines are the characteristics only where the speed is the same
  // everywhere (a constant, or an array of one value).
  if (mesh.uniformSpeed && parameters.exactStartRadius != 0 && mesh.triangles > 0) {
    const double radius =
        parameters.exactStartRadius < 0
            ? std::sqrt(mesh.meanEdgeLength * std::sqrt(mesh.area))
            : std::ldexp(parameters.exactStartRadius, -mesh.lengthExponent);
    const std::size_t windows = std::max<std::size_t>(
        kMinExactWindows, std::size_t(kExactWindowsPerVertex * double(mesh.vertices)));
    ExactBall ball;
    exactDistancesNearSeeds(mesh, parameters.seeds, radius, windows, start.value.data(),
                            start.label.data(), ball);
    const double slowness = mesh.slowness[0];
    for (SimplexId v : ball.vertices) {
      start.value[v] *= slowness;
      start.fixed[v] = 1;
    }
    start.exactRadius = ball.radius;
  }
  for (SimplexId s : parameters.seeds) {
    start.value[s] = 0;
    start.label[s] = s;
    start.fixed[s] = 1;
  }
  start.exactVertices = SimplexId(std::count(start.fixed.begin(), start.fixed.end(), 1));
}

std::vector<std::uint8_t> seedFlags(const Mesh& mesh, const Parameters& parameters) {
  std::vector<std::uint8_t> flags(std::size_t(mesh.vertices), 0);
  for (SimplexId s : parameters.seeds)
    flags[s] = 1;
  return flags;
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
