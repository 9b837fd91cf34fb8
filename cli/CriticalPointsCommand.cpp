#include "Arguments.h"
#include "Commands.h"
#include "Json.h"
#include "MeshInput.h"

#include "core/common/BackendSelection.h"
#include "core/common/Timer.h"
#include "core/critical_points/CriticalPoints.h"
#include "triangulation/io/MeshFiles.h"

#include <iostream>

namespace topogpu::cli {

namespace {

const char* kUsage =
    "usage: topogpu critical-points --raw FILE --dims X,Y,Z --type T [options]\n"
    "       topogpu critical-points --mesh FILE --array NAME [options]\n"
    "  T: uint8 int8 uint16 int16 int32 uint32 int64 uint64 float32 float64\n"
    "  --mesh: .off (array x|y|z)"
#if TOPOGPU_WITH_VTK
    ", .vtu .vtp .vti .vtk .ply (a point array or x|y|z)"
#endif
    "\n"
    "options: --backend auto|cpu|gpu (default auto)  --json  --repeat N (benchmarks)\n"
    "         --triangulation implicit|explicit (raw volumes; explicit stores the tets "
    "of\n"
    "         the grid as a mesh: the mesh backend on a known domain, for comparisons)\n";

template <typename Triangulation>
critical_points::Output runRepeated(Triangulation& tri, const ScalarArrayView& values,
                                    Backend backend, int repeat,
                                    std::vector<double>& totals) {
  critical_points::Output output;
  for (int r = 0; r < repeat; ++r) {
    critical_points::execute(tri, values, critical_points::Parameters{backend}, Monitor{},
                             output);
    totals.push_back(output.report.totalSeconds());
  }
  return output;
}

// What the run was on: the input file, its size, and the triangulation that served it
// (with the seconds spent building it, outside the algorithm's own timings).
struct RunContext {
  std::string input;
  SimplexId vertices = 0;
  int dimension = 0;
  std::string triangulation;
  double triangulationSeconds = 0;
};

void print(const critical_points::Output& output, const RunContext& run,
           const std::vector<double>& totals, bool json) {
  if (json) {
    JsonObject counts;
    for (int t = 0; t < kCriticalTypeCount; ++t)
      counts.add(criticalTypeKey(CriticalType(t)), output.counts[t]);
    JsonObject out;
    out.add("command", std::string("critical-points"));
    out.add("input", run.input);
    out.add("vertices", run.vertices);
    out.add("dimension", run.dimension);
    out.add("triangulation", run.triangulation);
    out.add("triangulation_seconds", run.triangulationSeconds);
    out.addRaw("counts", counts.str());
    addRunReport(out, output.report, totals);
    std::cout << out.str() << "\n";
    return;
  }
  for (const auto& w : output.report.warnings)
    std::cerr << "warning: " << w << "\n";
  std::cout << "critical points of " << run.input << " (" << run.vertices << " vertices, "
            << run.dimension << "D, " << run.triangulation << " triangulation), backend "
            << output.report.backend << "\n";
  for (int t = 0; t < kCriticalTypeCount; ++t)
    std::cout << "  " << criticalTypeKey(CriticalType(t)) << ": " << output.counts[t]
              << "\n";
  for (const auto& [stage, seconds] : output.report.timings)
    std::cout << "  time " << stage << ": " << seconds << " s\n";
  std::cout << "  total: " << output.report.totalSeconds() << " s\n";
}

} // namespace

int runCriticalPoints(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const Arguments a(args,
                    {"--raw", "--dims", "--type", "--mesh", "--array", "--backend",
                     "--repeat", "--triangulation"},
                    {"--json"});
  const Backend backend = parseBackend(a.get("--backend", "auto"));
  const int repeat = std::max(1, std::stoi(a.get("--repeat", "1")));
  const bool json = a.has("--json");
  std::vector<double> totals;
  if (a.has("--raw") == a.has("--mesh"))
    throw Error("give exactly one of --raw or --mesh\n" + std::string(kUsage));
  if (a.has("--raw")) {
    const io::RawVolume volume =
        io::readRawVolume(a.require("--raw"), io::parseDims(a.require("--dims")),
                          parseScalarType(a.require("--type")));
    const ImplicitTriangulation grid(volume.dims[0], volume.dims[1], volume.dims[2]);
    RunContext run{a.get("--raw"), grid.getNumberOfVertices(), grid.getDimension(),
                   a.get("--triangulation", "implicit")};
    if (run.triangulation == "implicit") {
      ImplicitTriangulation tri = grid;
      const auto output = runRepeated(tri, volume.view(), backend, repeat, totals);
      print(output, run, totals, json);
    } else if (run.triangulation == "explicit") {
      Timer timer;
      ExplicitTriangulation tri = explicitCopyOf(grid);
      run.triangulationSeconds = timer.seconds();
      const auto output = runRepeated(tri, volume.view(), backend, repeat, totals);
      print(output, run, totals, json);
    } else {
      throw Error("--triangulation must be implicit or explicit, got '" +
                  run.triangulation + "'");
    }
  } else {
    MeshInput mesh = loadMesh(a.require("--mesh"), a.require("--array"));
    if (!mesh.note.empty())
      std::cerr << "warning: " << mesh.note << "\n";
    auto runOn = [&](auto& tri, const char* kind) {
      const auto output = runRepeated(tri, mesh.values, backend, repeat, totals);
      print(output,
            {a.get("--mesh"), tri.getNumberOfVertices(), tri.getDimension(), kind},
            totals, json);
    };
    if (mesh.implicitTriangulation)
      runOn(*mesh.implicitTriangulation, "implicit");
    else
      runOn(*mesh.explicitTriangulation, "explicit");
  }
  return 0;
}

} // namespace topogpu::cli
