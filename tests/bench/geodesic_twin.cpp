// The host twin of patchFIM (Patches.h: the GPU's iteration scheme on the CPU) and the
// CPU solvers on one mesh, for tuning the scheme without a GPU: local solves per vertex,
// rounds, patch activations, times and the largest difference from FMM.
//
//   bench_geodesic_twin MESH.ply SEED [--solvers twin,fim,fim-mt,fmm] [--patch 64]
//       [--inner 7] [--partition bfs|metis] [--epsilon 1e-6] [--band 1]
//       [--speed-array] [--exact-radius R (Parameters::exactStartRadius)]
//
// MESH.ply: binary little-endian PLY as tests/bench/bench_geodesic.py writes it (double
// x y z speed per vertex, uchar-int faces).
#include "base/Timer.h"
#include "core/eikonal/Eikonal.h"
#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/Patches.h"
#include "core/eikonal/Problem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace topogpu;

namespace {

struct Ply {
  std::vector<double> points, speed;
  std::vector<SimplexId> cells;
};

Ply readPly(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::string line;
  long long nv = 0, nf = 0;
  while (std::getline(in, line) && line != "end_header") {
    std::istringstream s(line);
    std::string a, b;
    long long n = 0;
    s >> a >> b >> n;
    if (a == "element" && b == "vertex")
      nv = n;
    if (a == "element" && b == "face")
      nf = n;
  }
  Ply ply;
  std::vector<double> v(std::size_t(nv) * 4);
  in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(double)));
  for (long long i = 0; i < nv; ++i) {
    ply.points.insert(ply.points.end(), {v[4 * i], v[4 * i + 1], v[4 * i + 2]});
    ply.speed.push_back(v[4 * i + 3]);
  }
  for (long long f = 0; f < nf; ++f) {
    unsigned char n = 0;
    std::int32_t id[3];
    in.read(reinterpret_cast<char*>(&n), 1);
    in.read(reinterpret_cast<char*>(id), 12);
    ply.cells.insert(ply.cells.end(), {id[0], id[1], id[2]});
  }
  if (!in)
    throw std::runtime_error("truncated " + path);
  return ply;
}

double maxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i])
        return HUGE_VAL;
      continue;
    }
    m = std::max(m, std::abs(a[i] - b[i]));
  }
  return m;
}

int run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MESH.ply SEED [options]\n", argv[0]);
    return 2;
  }
  const Ply ply = readPly(argv[1]);
  eikonal::Parameters p;
  p.seeds = {std::stoll(argv[2])};
  std::string solvers = "twin,fim,fim-mt,fmm";
  double band = p.bandWidth; // in mean edge times
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&] { return std::string(i + 1 < argc ? argv[++i] : ""); };
    if (a == "--solvers")
      solvers = next();
    else if (a == "--patch")
      p.patchSize = std::stoi(next());
    else if (a == "--inner")
      p.internalIterations = std::stoi(next());
    else if (a == "--band")
      band = std::stod(next());
    else if (a == "--epsilon")
      p.epsilon = std::stod(next());
    else if (a == "--exact-radius")
      p.exactStartRadius = std::stod(next());
    else if (a == "--partition")
      p.useMetis = next() == "metis";
    else if (a == "--speed-array") {
      p.speedKind = eikonal::SpeedKind::PerVertex;
      p.speedValues = ply.speed.data();
    }
  }
  const SimplexId nv = SimplexId(ply.points.size() / 3);
  std::printf("%s: %lld vertices, %lld triangles\n", argv[1], static_cast<long long>(nv),
              static_cast<long long>(ply.cells.size() / 3));
  std::vector<double> fmm;
  std::stringstream list(solvers);
  std::string name;
  std::vector<std::pair<std::string, std::vector<double>>> results;
  while (std::getline(list, name, ',')) {
    ExplicitTriangulation tri(nv, 2, ply.cells);
    if (name == "twin") {
      Timer timer;
      tri.precondition(eikonal::kRequiredRelations);
      eikonal::detail::Mesh mesh;
      eikonal::detail::buildMesh(tri, ply.points.data(), p, mesh);
      const double setup = timer.seconds();
      timer.reset();
      eikonal::PatchArrays arrays;
      std::vector<Warning> warnings;
      eikonal::buildPatchArrays(mesh, p.patchSize, p.useMetis, arrays, warnings);
      const double partition = timer.seconds();
      timer.reset();
      eikonal::detail::Start start;
      eikonal::detail::initialState(mesh, p, start);
      const double exactStart = timer.seconds();
      eikonal::PatchFimState state;
      state.value = std::move(start.value);
      state.label = std::move(start.label);
      state.seed = std::move(start.fixed);
      eikonal::Parameters banded = p;
      banded.bandWidth = band;
      const eikonal::PatchFimSettings settings =
          eikonal::detail::patchFimSettings(mesh, banded);
      timer.reset();
      eikonal::runPatchFimHost(arrays, settings, Monitor{}, state);
      const double solve = timer.seconds();
      eikonal::detail::toInputUnits(mesh, p, state.value, state.label);
      std::printf(
          "  twin   %-5s patches %d (max own %d, max local %d), %.1f MB arrays "
          "(%.1f MB uploaded): "
          "setup %.3f s, partition+arrays %.3f s, exact start %.3f s (%lld "
          "vertices), solve %.3f s, %lld rounds, %lld patch-rounds, %.1f solves/v\n",
          arrays.method.c_str(), arrays.patches, arrays.maxOwn, arrays.maxLocal,
          double(arrays.bytes()) / 1e6, double(arrays.deviceBytes()) / 1e6, setup,
          partition, exactStart, static_cast<long long>(start.exactVertices), solve,
          state.rounds, state.patchRounds, double(state.solves) / double(nv));
      results.emplace_back("twin", std::move(state.value));
    } else {
      p.solver = eikonal::parseSolver(name);
      eikonal::Result r;
      RunReport report;
      eikonal::execute(tri, ply.points.data(), p, Monitor{}, r, report);
      double solve = 0;
      for (const auto& [stage, seconds] : report.timings)
        if (stage == name + " (cpu)")
          solve = seconds;
      double exactStart = 0;
      for (const auto& [stage, seconds] : report.timings)
        if (stage == "exact start")
          exactStart = seconds;
      std::printf(
          "  %-6s solve %.3f s (total %.3f s, exact start %.3f s, %lld vertices), "
          "%lld iterations, %.1f solves/v\n",
          name.c_str(), solve, report.totalSeconds(), exactStart,
          static_cast<long long>(r.exactVertices), r.iterations, r.localSolvesPerVertex);
      if (name == "fmm")
        fmm = r.distance;
      results.emplace_back(name, std::move(r.distance));
    }
  }
  double edge = 0;
  for (std::size_t t = 0; t < ply.cells.size(); t += 3) {
    const double* a = &ply.points[3 * ply.cells[t]];
    const double* b = &ply.points[3 * ply.cells[t + 1]];
    edge += std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  }
  edge /= double(ply.cells.size()) / 3.0;
  if (!fmm.empty())
    for (const auto& [n, d] : results)
      std::printf("  max |%s - fmm| = %.3e (%.3f x 1e-4 mean edge)\n", n.c_str(),
                  maxDiff(d, fmm), maxDiff(d, fmm) / (1e-4 * edge));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_geodesic_twin: %s\n", e.what());
    return 1;
  }
}
