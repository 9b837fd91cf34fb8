#include "Problem.h"

#include "ExactStart.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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

void fixedStart(const Mesh& mesh, const Parameters& parameters, ExactWorkspace* workspace,
                FixedStart& start) {
  start = FixedStart();
  ExactBall ball;
  // Straight lines are the characteristics only where the speed is the same
  // everywhere (a constant, or an array of one value).
  if (mesh.uniformSpeed && parameters.exactStartRadius != 0 && mesh.triangles > 0) {
    const double radius =
        parameters.exactStartRadius < 0
            ? std::sqrt(mesh.meanEdgeLength * std::sqrt(mesh.area))
            : std::ldexp(parameters.exactStartRadius, -mesh.lengthExponent);
    const std::size_t windows = std::max<std::size_t>(
        kMinExactWindows, std::size_t(kExactWindowsPerVertex * double(mesh.vertices)));
    ExactWorkspace fresh;
    exactDistancesNearSeeds(mesh, parameters.seeds, radius, windows,
                            workspace ? *workspace : fresh, ball);
    start.exactRadius = ball.radius;
  }
  // The ball's vertices (travel times: lengths times the slowness) and the seeds at 0
  // with their own ids (over the ball's entry), merged in increasing order.
  std::vector<SimplexId> seeds = parameters.seeds;
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  FixedVertices& f = start.fixed;
  const std::size_t most = ball.vertices.size() + seeds.size();
  f.vertex.reserve(most);
  f.value.reserve(most);
  f.label.reserve(most);
  const double slowness = ball.vertices.empty() ? 0.0 : mesh.slowness[0];
  std::size_t i = 0, j = 0;
  while (i < ball.vertices.size() || j < seeds.size()) {
    const bool seedNext =
        j < seeds.size() && (i == ball.vertices.size() || seeds[j] <= ball.vertices[i]);
    if (seedNext) {
      if (i < ball.vertices.size() && ball.vertices[i] == seeds[j])
        ++i;
      f.vertex.push_back(seeds[j]);
      f.value.push_back(0);
      f.label.push_back(seeds[j]);
      ++j;
    } else {
      f.vertex.push_back(ball.vertices[i]);
      f.value.push_back(ball.distance[i] * slowness);
      f.label.push_back(ball.label[i]);
      ++i;
    }
  }
}

void expandStart(const FixedStart& fixed, SimplexId vertices, Start& start) {
  const std::size_t n = std::size_t(vertices);
  start.value.assign(n, HUGE_VAL);
  start.label.assign(n, -1);
  start.fixed.assign(n, 0);
  const FixedVertices& f = fixed.fixed;
  for (std::size_t i = 0; i < f.vertex.size(); ++i) {
    start.value[f.vertex[i]] = f.value[i];
    start.label[f.vertex[i]] = f.label[i];
    start.fixed[f.vertex[i]] = 1;
  }
  start.exactVertices = SimplexId(f.vertex.size());
  start.exactRadius = fixed.exactRadius;
}

void initialState(const Mesh& mesh, const Parameters& parameters, Start& start) {
  FixedStart fixed;
  fixedStart(mesh, parameters, nullptr, fixed);
  expandStart(fixed, mesh.vertices, start);
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
  settings.launch = parameters.patchFimLaunch;
  return settings;
}

SimplexId toInputUnits(const Mesh& mesh, const Parameters& parameters,
                       std::vector<double>& value, std::vector<SimplexId>& label) {
  const double stop = inMeshUnits(mesh, parameters.stopDistance);
  // Times 2^unitExponent: a product by a power of two is rounded once, as ldexp is (the
  // same double), at a fraction of ldexp's cost; ldexp where 2^unitExponent is no double.
  const int e = mesh.unitExponent;
  const bool multiply = e >= -1022 && e <= 1023;
  const double factor = multiply ? std::ldexp(1.0, e) : 0.0;
  // Per block: the unreached count and the first vertex whose value does not scale to a
  // normal double (left unscaled for the message).
  struct Tally {
    SimplexId unreached = 0;
    std::size_t firstBad = SIZE_MAX;
  };
  const Tally tally = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, value.size(), 16384), Tally{},
      [&](const tbb::blocked_range<std::size_t>& r, Tally t) {
        for (std::size_t v = r.begin(); v < r.end(); ++v) {
          if (value[v] > stop || value[v] == HUGE_VAL) {
            value[v] = HUGE_VAL;
            label[v] = -1;
            ++t.unreached;
            continue;
          }
          const double scaled = multiply ? value[v] * factor : std::ldexp(value[v], e);
          if (scaled == HUGE_VAL ||
              (value[v] > 0 && scaled < std::numeric_limits<double>::min()))
            t.firstBad = std::min(t.firstBad, v);
          else
            value[v] = scaled;
        }
        return t;
      },
      [](Tally a, const Tally& b) {
        a.unreached += b.unreached;
        a.firstBad = std::min(a.firstBad, b.firstBad);
        return a;
      });
  if (tally.firstBad != SIZE_MAX) {
    const std::size_t v = tally.firstBad;
    const double scaled = std::ldexp(value[v], mesh.unitExponent);
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
  return tally.unreached;
}

} // namespace topogpu::eikonal::detail
