#include "Arguments.h"
#include "Commands.h"
#include "Json.h"
#include "MeshInput.h"

#include "core/common/BackendSelection.h"
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
    "options: --backend auto|cpu|gpu (default auto)  --json  --repeat N (benchmarks)\n";

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

void print(const critical_points::Output& output, const std::string& input,
           SimplexId vertices, int dimension, const std::vector<double>& totals,
           bool json) {
  if (json) {
    JsonObject counts;
    for (int t = 0; t < kCriticalTypeCount; ++t)
      counts.add(criticalTypeKey(CriticalType(t)), output.counts[t]);
    JsonObject out;
    out.add("command", std::string("critical-points"));
    out.add("input", input);
    out.add("vertices", vertices);
    out.add("dimension", dimension);
    out.addRaw("counts", counts.str());
    addRunReport(out, output.report, totals);
    std::cout << out.str() << "\n";
    return;
  }
  for (const auto& w : output.report.warnings)
    std::cerr << "warning: " << w << "\n";
  std::cout << "critical points of " << input << " (" << vertices << " vertices, "
            << dimension << "D), backend " << output.report.backend << "\n";
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
  const Arguments a(
      args, {"--raw", "--dims", "--type", "--mesh", "--array", "--backend", "--repeat"},
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
    ImplicitTriangulation tri(volume.dims[0], volume.dims[1], volume.dims[2]);
    const auto output = runRepeated(tri, volume.view(), backend, repeat, totals);
    print(output, a.get("--raw"), tri.getNumberOfVertices(), tri.getDimension(), totals,
          json);
  } else {
    MeshInput mesh = loadMesh(a.require("--mesh"), a.require("--array"));
    if (!mesh.note.empty())
      std::cerr << "warning: " << mesh.note << "\n";
    auto run = [&](auto& tri) {
      const auto output = runRepeated(tri, mesh.values, backend, repeat, totals);
      print(output, a.get("--mesh"), tri.getNumberOfVertices(), tri.getDimension(),
            totals, json);
    };
    if (mesh.implicitTriangulation)
      run(*mesh.implicitTriangulation);
    else
      run(*mesh.explicitTriangulation);
  }
  return 0;
}

} // namespace topogpu::cli
