// `topogpu geodesic`: geodesic distance (the Eikonal equation) on a triangle surface from
// seed vertices (core/eikonal): FMM, meshFIM on one or many threads, patchFIM on the GPU.
#include "Commands.h"
#include "Domain.h"
#include "Report.h"
#include "TextLines.h"

#include "base/NumberText.h"
#include "base/Timer.h"
#include "core/common/DeviceWarmUp.h"
#include "core/eikonal/Eikonal.h"
#include "frontend/EnvironmentKnobs.h"
#include "triangulation/io/MeshFiles.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace topogpu::cli {

namespace {

std::vector<SimplexId> parseSeeds(const std::string& text) {
  std::vector<SimplexId> seeds;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    seeds.push_back(parseInteger(item, "--seeds (a vertex id)", 0,
                                 std::numeric_limits<std::int64_t>::max()));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return seeds;
}

double parseStop(const std::string& text) {
  double value = 0;
  // "inf" is allowed; a number spelled too large to be finite is not.
  if (!parseReal(text, value) || (std::isinf(value) && text != "inf") || value < 0)
    throw Error("--stop must be a distance >= 0 (or inf), got '" + text + "'");
  return value;
}

// The surface, its point coordinates and the per-vertex speed when one is named.
struct Surface {
  Domain domain;
  std::vector<double> points;
  std::vector<double> speed;
};

Surface loadSurface(const std::string& path, const std::string& speedArray,
                    CommandContext& context) {
  Surface s;
  s.domain.input = path;
  s.domain.triangulation = "explicit";
  context.activity = "reading mesh '" + path + "'";
  io::readableFileSize(path, "mesh");
  const std::string name = lowerCase(path);
  if (endsWith(name, ".off") || endsWith(name, ".ply")) {
    const bool off = endsWith(name, ".off");
    io::SurfaceMesh mesh = off ? io::readOff(path) : io::readPly(path);
    if (!speedArray.empty()) {
      for (auto& [arrayName, values] : mesh.pointArrays) {
        if (arrayName == speedArray)
          s.speed = std::move(values);
      }
      if (s.speed.empty()) {
        std::string known;
        for (const auto& [arrayName, values] : mesh.pointArrays)
          known += (known.empty() ? "" : ", ") + arrayName;
        throw Error(off ? "OFF files carry no point arrays; --speed-array needs a .ply "
                          "or VTK file"
                        : "'" + path + "' has no vertex property '" + speedArray +
                              "' (it has: " + known + ")");
      }
    }
    const SimplexId vertices = mesh.numberOfVertices();
    s.points = std::move(mesh.points);
    s.domain.holder =
        std::make_shared<ExplicitTriangulation>(vertices, 2, std::move(mesh.cells));
    return s;
  }
  const bool vtkFormat = endsWith(name, ".vtu") || endsWith(name, ".vtp") ||
                         endsWith(name, ".vti") || endsWith(name, ".vtk");
  if (!vtkFormat)
    throw Error("unsupported mesh format of '" + path +
                "' (expected .off .ply .vtu .vtp .vtk)");
#if TOPOGPU_WITH_VTK
  // Without a speed array any point data will do: x is always there.
  s.domain = loadWithVtk(path, speedArray.empty() ? "x" : speedArray, true, true);
  if (s.domain.implicitTriangulation())
    throw Error("geodesic distance needs a triangle mesh; '" + path + "' is a grid");
  s.points = std::move(s.domain.points);
  if (!speedArray.empty()) {
    const ScalarArrayView& values = s.domain.values;
    s.speed.resize(std::size_t(values.size));
    TOPOGPU_DISPATCH_SCALAR(values.type, {
      const auto* typed = static_cast<const ValueT*>(values.data);
      for (SimplexId v = 0; v < values.size; ++v)
        s.speed[v] = double(typed[v]);
    });
  }
  return s;
#else
  throw Error("this build has no VTK: --mesh reads only .off and .ply files (got '" +
              path + "')");
#endif
}

// One distance per line: the shortest text that reads back as the same double
// (std::to_chars), or inf (TextLines.h: printf-ing a million values took longer than
// the solve).
void writeDistances(const std::string& path, const std::vector<double>& distance) {
  writeTextLines<kNumberTextSize + 1>(
      path, "", distance.size(),
      [&](std::size_t v, char* at) {
        if (std::isinf(distance[v]))
          at = std::copy_n("inf", 3, at);
        else
          at = std::to_chars(at, at + kNumberTextSize, distance[v]).ptr;
        *at = '\n';
        return at + 1;
      },
      "cannot write the distances to '" + path + "'");
}

} // namespace

int runGeodesic(const Arguments& args, CommandContext& context) {
  const Timer wall; // what the user waits for, from here to the result
  eikonal::Parameters parameters;
  parameters.solver = eikonal::parseSolver(args.get("--solver", "auto"));
  // --solver gpu: the device's context starts on a thread of its own while the mesh is
  // read (auto starts it, where the GPU may win, once the mesh's size is known).
  if (parameters.solver == eikonal::Solver::Gpu)
    warmUpDevice();
  parameters.patchSize =
      int(args.integer("--patch-size", parameters.patchSize, eikonal::kMinPatchSize,
                       eikonal::kMaxPatchSize));
  const std::string partition =
      args.get("--partition", parameters.useMetis ? "metis" : "bfs");
  if (partition != "metis" && partition != "bfs")
    throw Error("--partition must be metis or bfs, got '" + partition + "'");
  parameters.useMetis = partition == "metis";
  parameters.internalIterations =
      int(args.integer("--internal-iterations", parameters.internalIterations, 1,
                       eikonal::kMaxInternalIterations));
  if (args.has("--band-width")) {
    const std::string text = args.get("--band-width");
    if (!parseReal(text, parameters.bandWidth) ||
        (std::isinf(parameters.bandWidth) && text != "inf") ||
        !(parameters.bandWidth > 0))
      throw Error("--band-width must be > 0 (or inf), got '" + text + "'");
  }
  if (args.has("--exact-start-radius")) {
    const std::string text = args.get("--exact-start-radius");
    if (text != "auto" && (!parseReal(text, parameters.exactStartRadius) ||
                           (std::isinf(parameters.exactStartRadius) && text != "inf") ||
                           !(parameters.exactStartRadius >= 0)))
      throw Error("--exact-start-radius must be auto or a distance >= 0 (or inf), got '" +
                  text + "'");
  }
  parameters.patchFimLaunch = frontend::patchFimLaunchFromEnvironment();
  parameters.seeds = parseSeeds(args.require("--seeds"));
  if (args.has("--stop"))
    parameters.stopDistance = parseStop(args.get("--stop"));
  const int repeat = int(args.integer("--repeat", 1, 1, 1000000));
  const std::string outputPath = args.get("--out");
  const std::string speedArray = args.get("--speed-array");
  if (args.has("--speed-array") && speedArray.empty())
    throw Error("--speed-array needs a point array name");
  const Timer readTimer;
  Surface surface = loadSurface(args.require("--mesh"), speedArray, context);
  const double readSeconds = readTimer.seconds();
  Domain& domain = surface.domain;
  if (!surface.speed.empty()) {
    parameters.speedKind = eikonal::SpeedKind::PerVertex;
    parameters.speedValues = surface.speed.data();
  }
  context.activity = "computing geodesic distances on '" + domain.input + "' (" +
                     std::to_string(domain.numberOfVertices()) + " vertices)";
  CommandResult result;
  eikonal::Result distances;
  for (int r = 0; r < repeat; ++r) {
    eikonal::execute(*domain.explicitTriangulation(), surface.points.data(), parameters,
                     Monitor{}, distances, result.report);
    result.totals.push_back(result.report.totalSeconds());
  }
  result.report.timings.insert(result.report.timings.begin(), {"read", readSeconds});
  double largest = 0;
  for (double d : distances.distance) {
    if (std::isfinite(d))
      largest = std::max(largest, d);
  }
  result.fields.add("solver", eikonal::solverName(distances.solver));
  result.fields.add("requested_solver", eikonal::solverName(parameters.solver));
  result.fields.add("seeds", static_cast<long long>(parameters.seeds.size()));
  result.fields.add("speed", speedArray.empty() ? std::string("constant 1") : speedArray);
  result.fields.add("iterations", static_cast<long long>(distances.iterations));
  result.fields.add("local_solves_per_vertex", distances.localSolvesPerVertex);
  result.fields.add("unreached", static_cast<long long>(distances.unreached));
  result.fields.add("max_distance", largest);
  result.fields.add("converged", distances.converged);
  result.fields.add("obtuse_angles", static_cast<long long>(distances.obtuseAngles));
  result.fields.add("unfolded_angles", static_cast<long long>(distances.unfoldedAngles));
  result.fields.add("degenerate_triangles",
                    static_cast<long long>(distances.degenerateTriangles));
  result.fields.add("exact_vertices", static_cast<long long>(distances.exactVertices));
  result.fields.add("exact_radius", distances.exactRadius);
  if (distances.solver == eikonal::Solver::Gpu) {
    result.fields.add("patches", static_cast<long long>(distances.patches));
    result.fields.add("partition", distances.partition);
    result.fields.add("patch_rounds", static_cast<long long>(distances.patchRounds));
    result.fields.add("patch_size", static_cast<long long>(parameters.patchSize));
    result.fields.add("internal_iterations",
                      static_cast<long long>(parameters.internalIterations));
    if (std::isfinite(parameters.bandWidth))
      result.fields.add("band_width", parameters.bandWidth);
  }
  result.lines.push_back(
      std::string("solver: ") + eikonal::solverName(distances.solver) +
      (parameters.solver != distances.solver
           ? std::string(" (requested ") + eikonal::solverName(parameters.solver) + ")"
           : std::string()) +
      ", " + std::to_string(parameters.seeds.size()) + " seed(s)");
  result.lines.push_back(
      "iterations: " + std::to_string(distances.iterations) +
      ", local solves per vertex: " + jsonNumber(distances.localSolvesPerVertex));
  result.lines.push_back("largest distance: " + jsonNumber(largest) +
                         ", unreached vertices: " + std::to_string(distances.unreached));
  if (!outputPath.empty()) {
    context.activity = "writing '" + outputPath + "'";
    const Timer writeTimer;
    writeDistances(outputPath, distances.distance);
    result.report.timings.emplace_back("write", writeTimer.seconds());
    result.fields.add("output", outputPath);
    result.lines.push_back("distances written to: " + outputPath);
  }
  result.fields.add("wall_seconds", wall.seconds());
  result.lines.push_back(
      "wall time (from the command's start): " + jsonNumber(wall.seconds()) + " s");
  printResult(context, domain, result);
  return 0;
}

} // namespace topogpu::cli
