// CPU-versus-GPU equality on the device: vertex order, critical point classes, the
// discrete gradient (every cell's byte and the critical cells), the Morse-Smale
// complex's stage 2 (manifold labels, saddle-extremum arcs, boundary maxima), its
// saddle connections (arcs and multiplicities), geodesic distances (patchFIM within the
// stated tolerance of FMM and meshFIM, bit for bit the host-side patchFIM) and the
// scalar field smoother's output (bit for bit) must be identical, vertex for vertex, on
// real volumes and synthetic fields; the GPU's classes
// must satisfy the Euler (Morse) relation, computed independently on the host; a CUDA
// failure injected mid-run must fall back to the CPU's result, say so, and release the
// device memory. Exit code 0 when all pass, 1 on any failure, 77 (skip) when no GPU is
// present. No GoogleTest: the GPU machine has none.
//
//   gpu_equality [VOLUME_DIR]          everything (needs a GPU)
//   gpu_equality --host-only [DIR]     the Morse relation on the CPU's classes only, to
//                                      check the check on a machine without a GPU
//   gpu_equality --no-faults [DIR]     without fault injection (under compute-sanitizer,
//                                      which counts the injected failure as an error)
//   gpu_equality --surfaces SURF [DIR] also the geodesic cases on the .off/.ply surfaces
//                                      of SURF (patchFIM against FMM, meshFIM-MT and the
//                                      host-side patchFIM; generated meshes always run)
//   gpu_equality --geodesic-only ...   the geodesic (patchFIM) cases only (with
//                                      --host-only: the host-side patchFIM in the GPU's
//                                      place, to check the checks without a GPU)
//   gpu_equality --rips RIPS [...]     also the Rips persistence cases on the shared sets
//                                      of RIPS (../shared/data/rips or .devdata/rips;
//                                      absent files are skipped; generated clouds always
//                                      run)
//   gpu_equality --rips-only ...       the Rips persistence cases only (with
//                                      --host-only: the GPU's host twin in its place)
//   gpu_equality --gale-only           GALE's GPU producer cases only (fault injection
//                                      included unless --no-faults)
//   gpu_equality --simplicial-only [DIR]  the simplicial complex of grids only
//                                      (tests/gpu/SimplicialEquality.cpp)
#include "core/common/BackendSelection.h"
#include "core/common/GpuDevice.h"
#include "core/common/VertexOrder.h"
#include "core/critical_points/CriticalPoints.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/eikonal/Eikonal.h"
#include "core/eikonal/EikonalGpu.h"
#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/Patches.h"
#include "core/eikonal/Preparation.h"
#include "core/eikonal/SolverChoice.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/SaddleConnections.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/rips_persistence/RipsHostTwin.h"
#include "core/rips_persistence/RipsInput.h"
#include "core/rips_persistence/RipsPersistence.h"
#include "core/rips_persistence/RipsPersistenceGpu.h"
#include "core/scalar_field_smoother/ScalarFieldSmoother.h"
#include "cuda/gale/GaleGpu.h"
#include "frontend/EnvironmentKnobs.h"
#include "tests/gpu/SimplicialEquality.h"
#include "tests/gpu/SimplificationEquality.h"
#include "tests/unit/BruteForce.h"
#include "tests/unit/EikonalMeshes.h"
#include "tests/unit/EikonalTwin.h"
#include "tests/unit/SaddleConnectionsChain.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"
#include "triangulation/io/MeshFiles.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace topogpu;

namespace {

int failures = 0, checks = 0;
bool hostOnly = false, injectFaults = true, geodesicOnly = false, ripsOnly = false,
     galeOnly = false, simplicialOnly = false, simplifyOnly = false;
std::string surfaceFolder, ripsFolder;

void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  }
}

// The Euler relation, checked against the classes. For any total order of the vertices
// of a simplicial complex K, counting each simplex at its highest vertex gives
//   chi(K) = sum over v of c(v),   c(v) = sum over simplices whose top is v of (-1)^dim
//          = 1 - chi(lower link of v),
// and chi(box) = 1. c(v) is computed here from the cells alone (every face of every cell,
// deduplicated), not from the classifier. For an interior vertex the link is a sphere, so
// by Alexander duality c(v) follows from the class: (-1)^index for a minimum (index 0),
// 1-saddle (1), 2-saddle (2) and maximum (the dimension), 0 for a regular vertex. Each
// interior non-degenerate vertex must match; boundary and degenerate vertices enter with
// their host value, so that
//   #min - #s1 + #s2 - #max (3D; + #max in 2D) + sum of the host terms = 1.
// A regular vertex that is really a saddle, or a saddle of the wrong index, fails it.
void checkMorseRelation(const std::string& name, const ImplicitTriangulation& tri,
                        const ScalarArrayView& values,
                        const std::vector<std::int8_t>& types) {
  const SimplexId n = tri.getNumberOfVertices();
  if (n >= (SimplexId(1) << 20)) {
    std::printf("  %-40s Morse relation skipped (%lld vertices: host check kept small)\n",
                name.c_str(), (long long)n);
    return;
  }
  std::vector<SimplexId> order(n);
  computeVertexOrderCpu(values, order.data());
  const int d = tri.getDimension();
  const int k = tri.getCellVertexNumber();
  std::vector<long long> c(n, 1); // the vertex itself
  std::vector<std::vector<std::uint64_t>> faces(
      k); // faces[size], packed 21 bits a vertex
  for (SimplexId cell = 0; cell < tri.getNumberOfCells(); ++cell) {
    SimplexId vs[4];
    for (int i = 0; i < k; ++i)
      vs[i] = tri.getCellVertex(cell, i);
    std::sort(vs, vs + k);
    for (unsigned mask = 1; mask < (1u << k); ++mask) {
      const int size = __builtin_popcount(mask);
      if (size == 1)
        continue;
      if (size == k) { // the cell itself: cells are distinct
        SimplexId top = vs[0];
        for (int i = 1; i < k; ++i)
          top = order[vs[i]] > order[top] ? vs[i] : top;
        c[top] += (d % 2 == 0) ? 1 : -1;
        continue;
      }
      std::uint64_t key = 0;
      for (int i = 0; i < k; ++i)
        if (mask & (1u << i))
          key = (key << 21) | std::uint64_t(vs[i]);
      faces[size].push_back(key);
    }
  }
  for (int size = 2; size < k; ++size) {
    auto& f = faces[size];
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    const int sign = (size - 1) % 2 == 0 ? 1 : -1;
    for (std::uint64_t key : f) {
      SimplexId top = -1;
      for (int i = 0; i < size; ++i, key >>= 21) {
        const SimplexId v = SimplexId(key & ((1u << 21) - 1));
        if (top < 0 || order[v] > order[top])
          top = v;
      }
      c[top] += sign;
    }
  }
  long long euler = 0, relation = 0, hostTerms = 0;
  SimplexId mismatches = 0, firstMismatch = -1;
  std::array<long long, kCriticalTypeCount> interior{};
  for (SimplexId v = 0; v < n; ++v) {
    euler += c[v];
    const auto t = CriticalType(types[v]);
    if (tri.isVertexOnBoundary(v) || t == CriticalType::Degenerate) {
      hostTerms += c[v];
      continue;
    }
    int expected = 0;
    switch (t) {
    case CriticalType::Minimum:
      expected = 1;
      break;
    case CriticalType::Saddle1:
      expected = -1;
      break;
    case CriticalType::Saddle2:
      expected = 1;
      break;
    case CriticalType::Maximum:
      expected = d % 2 == 0 ? 1 : -1; // index d
      break;
    default:
      expected = 0;
      break;
    }
    ++interior[int(t)];
    relation += expected;
    if (expected != c[v] && mismatches++ == 0)
      firstMismatch = v;
  }
  expect(euler == 1, name + ": the cells' Euler characteristic is " +
                         std::to_string(euler) + ", not 1 (a box)");
  expect(
      relation + hostTerms == 1 && mismatches == 0,
      name + ": Morse relation broken: interior min - s1 + s2 -/+ max = " +
          std::to_string(relation) + ", boundary/degenerate terms " +
          std::to_string(hostTerms) + " (sum must be 1); " + std::to_string(mismatches) +
          " interior vertices whose class contradicts their lower link" +
          (firstMismatch >= 0
               ? " (first: vertex " + std::to_string(firstMismatch) + ", class " +
                     std::to_string(types[firstMismatch]) +
                     ", 1 - chi(lower link) = " + std::to_string(c[firstMismatch]) + ")"
               : std::string()));
  std::printf(
      "  %-40s Morse: interior min %lld s1 %lld s2 %lld max %lld, host terms %lld\n",
      name.c_str(), interior[0], interior[1], interior[2], interior[3], hostTerms);
}

// Runs both backends on one field and compares every vertex.
void compareCriticalPoints(const std::string& name, const std::array<SimplexId, 3>& dims,
                           const ScalarArrayView& values) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  critical_points::Output cpu, gpu;
  critical_points::execute(tri, values, {Backend::Cpu}, Monitor{}, cpu);
  if (hostOnly) {
    checkMorseRelation(name, tri, values, cpu.vertexTypes);
    return;
  }
  critical_points::execute(tri, values, {Backend::Gpu}, Monitor{}, gpu);
  expect(
      gpu.report.backend == "gpu",
      name + ": GPU path did not run (" +
          (gpu.report.warnings.empty() ? std::string("?") : gpu.report.warnings[0].text) +
          ")");
  SimplexId differing = 0;
  for (SimplexId v = 0; v < SimplexId(cpu.vertexTypes.size()); ++v)
    differing += cpu.vertexTypes[v] != gpu.vertexTypes[v];
  expect(differing == 0 && cpu.criticalVertices == gpu.criticalVertices &&
             cpu.criticalOnBoundary == gpu.criticalOnBoundary,
         name + ": " + std::to_string(differing) + " vertices classified differently");
  checkMorseRelation(name, tri, values, gpu.vertexTypes);
  const auto& c = gpu.counts;
  const double cpuTime = cpu.report.totalSeconds(), gpuTime = gpu.report.totalSeconds();
  std::printf("  %-40s %9lld verts  min %7lld s1 %7lld s2 %7lld max %7lld deg %5lld | "
              "cpu %.4f s gpu "
              "%.4f s (x%.1f)\n",
              name.c_str(), (long long)cpu.vertexTypes.size(), (long long)c[0],
              (long long)c[1], (long long)c[2], (long long)c[3], (long long)c[4], cpuTime,
              gpuTime, cpuTime / std::max(gpuTime, 1e-9));
}

// The discrete gradient: both paths run cubical::processLowerStar on the same vertex
// order, so every cell's byte and the compacted critical cells must be identical; the
// critical cells satisfy Euler's relation on a box (min - s1 + s2 - max = 1).
void compareDiscreteGradient(const std::string& name,
                             const std::array<SimplexId, 3>& dims,
                             const ScalarArrayView& values) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  discrete_gradient::Output cpu, gpu;
  discrete_gradient::execute(tri, values, {Backend::Cpu}, Monitor{}, cpu);
  const auto& c = cpu.counts;
  expect(c[0] - c[1] + c[2] - c[3] == 1,
         name + ": discrete gradient breaks Euler's relation: " + std::to_string(c[0]) +
             " - " + std::to_string(c[1]) + " + " + std::to_string(c[2]) + " - " +
             std::to_string(c[3]));
  if (hostOnly)
    return;
  discrete_gradient::execute(tri, values, {Backend::Gpu}, Monitor{}, gpu);
  expect(
      gpu.report.backend == "gpu",
      name + ": GPU discrete gradient did not run (" +
          (gpu.report.warnings.empty() ? std::string("?") : gpu.report.warnings[0].text) +
          ")");
  SimplexId differing = 0;
  const bool sameSize = cpu.gradient.size() == gpu.gradient.size();
  for (std::size_t i = 0; sameSize && i < cpu.gradient.size(); ++i)
    differing += cpu.gradient[i] != gpu.gradient[i];
  expect(sameSize && differing == 0 && cpu.criticalCells == gpu.criticalCells &&
             cpu.criticalCellIds == gpu.criticalCellIds && cpu.counts == gpu.counts,
         name + ": discrete gradient: " + std::to_string(differing) +
             " cells differ (sizes " + std::to_string(cpu.gradient.size()) + ", " +
             std::to_string(gpu.gradient.size()) + ")");
  const double cpuTime = cpu.report.totalSeconds(), gpuTime = gpu.report.totalSeconds();
  std::printf("  %-40s gradient: %lld %lld %lld %lld critical cells | cpu %.4f s gpu "
              "%.4f s (x%.1f)\n",
              name.c_str(), (long long)c[0], (long long)c[1], (long long)c[2],
              (long long)c[3], cpuTime, gpuTime, cpuTime / std::max(gpuTime, 1e-9));
}

// The whole Morse-Smale complex (the GPU pipeline against the CPU's stages): the same
// gradient, labels, maxima, saddle-extremum arcs and saddle connections; every vertex
// and top cell labelled.
void compareMorseSmaleComplex(const std::string& name,
                              const std::array<SimplexId, 3>& dims,
                              const ScalarArrayView& values) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  morse_smale_complex::Output cpu, gpu;
  // The vertex order kept for the output records: the GPU downloads its own.
  morse_smale_complex::Parameters parameters{Backend::Cpu};
  parameters.keepVertexOrder = true;
  morse_smale_complex::execute(tri, values, parameters, Monitor{}, cpu);
  expect(cpu.unlabelledDescending == 0 && cpu.unlabelledAscending == 0 &&
             cpu.unlabelledCells == 0,
         name + ": Morse-Smale complex left vertices or cells unlabelled");
  if (hostOnly)
    return;
  parameters.backend = Backend::Gpu;
  morse_smale_complex::execute(tri, values, parameters, Monitor{}, gpu);
  expect(
      gpu.report.backend == "gpu",
      name + ": GPU Morse-Smale complex did not run (" +
          (gpu.report.warnings.empty() ? std::string("?") : gpu.report.warnings[0].text) +
          ")");
  expect(cpu.descendingManifold == gpu.descendingManifold &&
             cpu.ascendingManifold == gpu.ascendingManifold &&
             cpu.cellAscendingManifold == gpu.cellAscendingManifold &&
             cpu.maxima == gpu.maxima && cpu.saddle1Minimum == gpu.saddle1Minimum &&
             cpu.saddleMaximum == gpu.saddleMaximum &&
             cpu.gradient.gradient == gpu.gradient.gradient &&
             cpu.gradient.criticalCells == gpu.gradient.criticalCells &&
             cpu.saddleConnections.arcs == gpu.saddleConnections.arcs &&
             cpu.saddleConnections.multiplicitySum ==
                 gpu.saddleConnections.multiplicitySum,
         name + ": Morse-Smale complex labels or arcs differ between CPU and GPU");
  expect(!cpu.rank.empty() && cpu.rank == gpu.rank,
         name + ": the kept vertex order differs between CPU and GPU");
  const double cpuTime = cpu.report.totalSeconds(), gpuTime = gpu.report.totalSeconds();
  std::printf("  %-40s msc: %zu saddle-min %zu saddle-max arcs, %lld boundary maxima | "
              "cpu %.4f s gpu %.4f s (x%.1f)\n",
              name.c_str(), cpu.saddle1Minimum.size(), cpu.saddleMaximum.size(),
              (long long)cpu.boundaryMaxima, cpuTime, gpuTime,
              cpuTime / std::max(gpuTime, 1e-9));
}

// Saddle connections (MSC stage 3) of the CPU's gradient on both backends: the same
// arcs, multiplicities and minor (the GPU merges path counts in topological order, the
// CPU multiplies sparse matrices, both in checked 64-bit integers; a GPU rerun on the
// CPU is reported and fails here).
void compareSaddleConnections(const std::string& name,
                              const std::array<SimplexId, 3>& dims,
                              const ScalarArrayView& values) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  discrete_gradient::Output gradient;
  discrete_gradient::execute(tri, values, {Backend::Cpu}, Monitor{}, gradient);
  saddle_connections::SaddleConnections cpu, gpu;
  RunReport cpuReport, gpuReport;
  saddle_connections::compute(gradient, Backend::Cpu, Monitor{}, cpu, cpuReport);
  std::uint64_t sum = 0;
  for (const auto& arc : cpu.arcs)
    sum += arc.multiplicity;
  expect(sum == cpu.multiplicitySum, name + ": saddle connections: multiplicity sum");
  if (hostOnly) {
    std::printf(
        "  %-40s saddle-saddle: %zu arcs, %llu paths, %lld junctions, %d products "
        "| cpu %.4f s\n",
        name.c_str(), cpu.arcs.size(), (unsigned long long)cpu.multiplicitySum,
        (long long)cpu.junctionNodes, cpu.productIterations, cpuReport.totalSeconds());
    return;
  }
  saddle_connections::compute(gradient, Backend::Gpu, Monitor{}, gpu, gpuReport);
  const bool ran = gradient.grid.dimension < 3 || gradient.counts[1] == 0 ||
                   gradient.counts[2] == 0 || gpuReport.backend == "gpu";
  expect(ran, name + ": GPU saddle connections did not run (" +
                  (gpuReport.warnings.empty() ? std::string("?")
                                              : gpuReport.warnings[0].text) +
                  ")");
  expect(cpu.arcs == gpu.arcs && cpu.multiplicitySum == gpu.multiplicitySum &&
             cpu.junctionNodes == gpu.junctionNodes &&
             cpu.reachableNodes == gpu.reachableNodes &&
             cpu.minorEdges == gpu.minorEdges &&
             cpu.productIterations == gpu.productIterations,
         name + ": saddle connections: " + std::to_string(cpu.arcs.size()) + " vs " +
             std::to_string(gpu.arcs.size()) + " arcs, sums " +
             std::to_string(cpu.multiplicitySum) + " vs " +
             std::to_string(gpu.multiplicitySum));
  const double cpuTime = cpuReport.totalSeconds(), gpuTime = gpuReport.totalSeconds();
  std::printf(
      "  %-40s saddle-saddle: %zu arcs, %llu paths, %lld junctions, %d products | "
      "cpu %.4f s gpu %.4f s (x%.1f)\n",
      name.c_str(), cpu.arcs.size(), (unsigned long long)cpu.multiplicitySum,
      (long long)cpu.junctionNodes, cpu.productIterations, cpuTime, gpuTime,
      cpuTime / std::max(gpuTime, 1e-9));
}

// Hand-built chains with 2^k V-paths: exact on both paths (k = 40, 60, 63: beyond a
// double's 2^53), and at k = 64 both report the overflow as an Error.
void saddleConnectionChains() {
  for (const int k : {40, 60, 63, 64}) {
    const discrete_gradient::Output chain = test::diamondChain(k);
    const std::string name = "diamond chain 2^" + std::to_string(k);
    for (const Backend backend : {Backend::Cpu, Backend::Gpu}) {
      saddle_connections::SaddleConnections out;
      RunReport report;
      try {
        saddle_connections::compute(chain, backend, Monitor{}, out, report);
        expect(k < 64 && out.arcs.size() == 1 && out.arcs[0].multiplicity == (1ull << k),
               name + " on " + backendName(backend) + ": wrong arcs");
        // The GPU counts in exact 64-bit integers too: no fallback at any size.
        if (backend == Backend::Gpu)
          expect(report.backend == "gpu" && report.warnings.empty(),
                 name + ": GPU ran on " + report.backend + " with " +
                     std::to_string(report.warnings.size()) + " warnings");
      } catch (const Error& e) {
        expect(k == 64 && std::string(e.what()).find("multiplicity overflow") !=
                              std::string::npos,
               name + " on " + backendName(backend) + ": " + e.what());
      }
      if (hostOnly)
        break;
    }
  }
}

void compareOrder(const std::string& name, const ScalarArrayView& values) {
  if (hostOnly)
    return;
  std::vector<SimplexId> cpu(values.size), gpu(values.size);
  RunReport cpuReport, gpuReport;
  computeVertexOrder(values, cpu.data(), Backend::Cpu, cpuReport);
  computeVertexOrder(values, gpu.data(), Backend::Gpu, gpuReport);
  expect(cpuReport.backend == "cpu" && gpuReport.backend == "gpu",
         name + ": vertex order ran on " + cpuReport.backend + " and " +
             gpuReport.backend);
  expect(cpu == gpu, name + ": vertex orders differ");
}

// The synthetic fields' shapes: odd sizes, 2D in (x, y), a single voxel, 2D in (x, z),
// then `large`, for many thread blocks.
std::vector<std::array<SimplexId, 3>>
syntheticShapes(const std::array<SimplexId, 3>& large) {
  return {{33, 17, 9}, {64, 64, 1}, {2, 2, 2}, {40, 1, 30}, large};
}

std::string dimsTag(const std::array<SimplexId, 3>& dims) {
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
         std::to_string(dims[2]);
}

void syntheticFields() {
  std::mt19937 rng(7);
  // Massive ties: a handful of distinct values.
  for (const auto& dims : syntheticShapes({128, 96, 80})) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> ties(n);
    for (auto& x : ties)
      x = std::uint8_t(rng() % 4);
    const std::string tag = dimsTag(dims);
    compareOrder("ties " + tag, viewOf(ties));
    compareCriticalPoints("ties uint8 " + tag, dims, viewOf(ties));
    compareDiscreteGradient("ties uint8 " + tag, dims, viewOf(ties));
    compareMorseSmaleComplex("ties uint8 " + tag, dims, viewOf(ties));
    compareSaddleConnections("ties uint8 " + tag, dims, viewOf(ties));
    std::vector<double> smooth(n);
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId row = v / dims[0], layer = row / dims[1];
      const double x = double(v % dims[0]), y = double(row % dims[1]), z = double(layer);
      smooth[v] = std::sin(0.3 * x) * std::cos(0.21 * y) + std::sin(0.17 * z + 0.1 * x);
    }
    compareCriticalPoints("sines float64 " + tag, dims, viewOf(smooth));
    compareDiscreteGradient("sines float64 " + tag, dims, viewOf(smooth));
    compareMorseSmaleComplex("sines float64 " + tag, dims, viewOf(smooth));
    compareSaddleConnections("sines float64 " + tag, dims, viewOf(smooth));
  }
  // Every value type, including signed zeros that must tie.
  std::vector<float> zeros(1000);
  for (std::size_t i = 0; i < zeros.size(); ++i)
    zeros[i] = (i % 3 == 0) ? -0.0f : (i % 3 == 1 ? 0.0f : float(rng() % 3) - 1.0f);
  compareOrder("signed zeros float32", viewOf(zeros));
  std::vector<std::int16_t> i16(5000);
  for (auto& x : i16)
    x = std::int16_t(int(rng() % 200) - 100);
  compareOrder("int16", viewOf(i16));
  std::vector<std::uint64_t> u64(5000);
  for (auto& x : u64)
    x = rng() % 50;
  compareOrder("uint64", viewOf(u64));
}

// A vertex order given with the values (TTK's `<field>_Order`, ties broken at random):
// uploaded instead of sorted, so both backends give the same critical points, gradient
// and complex; and the CPU's critical points equal those of the ranks themselves (a
// field without ties, whose own order is the given one).
void givenOrderFields() {
  std::mt19937 rng(29);
  for (const auto& dims : syntheticShapes({96, 80, 64})) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> ties(n);
    for (auto& x : ties)
      x = std::uint8_t(rng() % 3);
    const std::vector<SimplexId> given = test::ranksWithRandomTies(viewOf(ties), 31);
    ScalarArrayView ordered = viewOf(ties);
    ordered.order = given.data();
    const std::string tag = "ties, given order " + dimsTag(dims);
    compareOrder(tag, ordered);
    compareCriticalPoints(tag, dims, ordered);
    compareDiscreteGradient(tag, dims, ordered);
    compareMorseSmaleComplex(tag, dims, ordered);
    ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
    critical_points::Output withOrder, ofRanks;
    critical_points::execute(tri, ordered, {Backend::Cpu}, Monitor{}, withOrder);
    critical_points::execute(tri, viewOf(given), {Backend::Cpu}, Monitor{}, ofRanks);
    expect(withOrder.vertexTypes == ofRanks.vertexTypes,
           tag + ": the given order is not the one classified");
  }
}

// The scalar field smoother: the GPU's output must equal the CPU's bit for bit (both
// run SmootherStencil.h's function, same neighbour order, explicit round-to-nearest in
// double, exact 128-bit sums for integers).
template <typename T>
void compareSmoother(const std::string& name, const std::array<SimplexId, 3>& dims,
                     const std::vector<T>& values, int iterations, bool masked) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  std::vector<std::uint8_t> mask;
  scalar_field_smoother::Parameters p;
  p.numberOfIterations = iterations;
  if (masked) {
    mask.resize(values.size());
    for (std::size_t v = 0; v < mask.size(); ++v)
      mask[v] = std::uint8_t((v * 2654435761u >> 7) % 4 != 0);
    p.mask = mask.data();
  }
  std::vector<T> cpu(values.size()), gpu(values.size());
  RunReport cpuReport, gpuReport;
  p.backend = Backend::Cpu;
  scalar_field_smoother::execute(tri, viewOf(values), p, Monitor{}, cpu.data(),
                                 cpuReport);
  p.backend = Backend::Gpu;
  scalar_field_smoother::execute(tri, viewOf(values), p, Monitor{}, gpu.data(),
                                 gpuReport);
  expect(
      gpuReport.backend == "gpu",
      name + ": GPU smoother did not run (" +
          (gpuReport.warnings.empty() ? std::string("?") : gpuReport.warnings[0].text) +
          ")");
  SimplexId differing = 0;
  for (std::size_t v = 0; v < values.size(); ++v)
    differing += std::memcmp(&cpu[v], &gpu[v], sizeof(T)) != 0;
  expect(differing == 0, name + ": " + std::to_string(differing) +
                             " smoothed values differ between CPU and GPU");
  const double cpuTime = cpuReport.totalSeconds(), gpuTime = gpuReport.totalSeconds();
  std::printf("  %-40s %9lld verts  %d passes%s | cpu %.4f s gpu %.4f s (x%.1f)\n",
              name.c_str(), (long long)values.size(), iterations, masked ? " masked" : "",
              cpuTime, gpuTime, cpuTime / std::max(gpuTime, 1e-9));
}

void smootherFields() {
  std::mt19937 rng(11);
  for (const auto& dims : syntheticShapes({256, 256, 256})) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    const std::string tag = dimsTag(dims);
    std::vector<double> sines(n);
    std::vector<float> noise(n);
    std::vector<std::uint8_t> bytes(n);
    std::vector<std::int64_t> wide(n), nearLimits(n);
    std::vector<std::uint64_t> nearMax(n);
    std::normal_distribution<float> normal(0.f, 1.f);
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId row = v / dims[0], layer = row / dims[1];
      sines[v] =
          std::sin(0.3 * double(v % dims[0])) * std::cos(0.21 * double(row % dims[1])) +
          0.1 * double(layer);
      noise[v] = normal(rng);
      bytes[v] = std::uint8_t(rng());
      wide[v] = std::int64_t(rng()) * 4096 - (std::int64_t(1) << 40);
      // integer smoothing is exact: near 2^63 and 2^64, where double cannot hold them
      const auto offset = std::int64_t(rng() % 3000);
      nearLimits[v] = rng() % 2 ? std::numeric_limits<std::int64_t>::max() - offset
                                : std::numeric_limits<std::int64_t>::min() + offset;
      nearMax[v] = std::numeric_limits<std::uint64_t>::max() - std::uint64_t(offset);
    }
    compareSmoother("smooth sines float64 " + tag, dims, sines, 5, false);
    compareSmoother("smooth noise float32 " + tag, dims, noise, 3, true);
    compareSmoother("smooth uint8 " + tag, dims, bytes, 1, false);
    compareSmoother("smooth int64 " + tag, dims, wide, 2, false);
    compareSmoother("smooth int64 limits " + tag, dims, nearLimits, 3, true);
    compareSmoother("smooth uint64 near max " + tag, dims, nearMax, 4, false);
  }
}

void realVolumes(const std::string& folder) {
  const bool found = test::forEachRawVolume(
      folder, [](const std::string& name, const std::array<SimplexId, 3>& dims,
                 const ScalarArrayView& values) {
        compareOrder(name, values);
        compareCriticalPoints(name, dims, values);
        compareDiscreteGradient(name, dims, values);
        compareMorseSmaleComplex(name, dims, values);
        compareSaddleConnections(name, dims, values);
      });
  if (!found)
    std::printf("  (no volume folder %s: real volumes skipped)\n", folder.c_str());
}

void memoryBehaviour() {
  // Too large for the device: Auto and Gpu fall back to the CPU and say why.
  RunReport report;
  const Backend b = resolveBackend(Backend::Gpu, std::size_t(1) << 50, report);
  expect(b == Backend::Cpu && !report.warnings.empty(),
         "oversized request must fall back");
  // Repeated runs release their device memory.
  std::vector<float> field(std::size_t(200) * 200 * 200);
  for (std::size_t i = 0; i < field.size(); ++i)
    field[i] = float((i * 2654435761u) % 1000);
  ImplicitTriangulation tri(200, 200, 200);
  critical_points::Output out;
  critical_points::execute(tri, viewOf(field), {Backend::Gpu}, Monitor{}, out);
  const std::size_t before = gpu::deviceMemoryInUse();
  for (int i = 0; i < 5; ++i)
    critical_points::execute(tri, viewOf(field), {Backend::Gpu}, Monitor{}, out);
  const std::size_t after = gpu::deviceMemoryInUse();
  expect(after <= before + (std::size_t(16) << 20),
         "device memory grew over repeated runs: " + std::to_string(before >> 20) +
             " -> " + std::to_string(after >> 20) + " MiB");
}

std::string joined(const std::vector<Warning>& warnings) {
  std::string all;
  for (const Warning& w : warnings)
    all += w.text + "\n";
  return all;
}

bool hasCode(const std::vector<Warning>& warnings, WarningCode code) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const Warning& w) { return w.code == code; });
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The process-wide knobs (the device memory budget, the injected fault) set as a user
// does, in the environment, and applied as the front ends apply them, so the warnings
// name the variable.
void setKnob(const char* name, const char* value) {
  setenv(name, value, 1);
  frontend::applyProcessKnobs();
}
void clearKnob(const char* name) {
  unsetenv(name);
  frontend::applyProcessKnobs();
}

// Runs `run` with TOPOGPU_TEST_GPU_FAULT=stage and checks that the device memory in use
// came back to its level before the run (within 16 MiB of allocator slack).
template <typename Run>
void runWithInjectedFault(const std::string& tag, const char* stage, Run&& run) {
  const std::size_t before = gpu::deviceMemoryInUse();
  setKnob("TOPOGPU_TEST_GPU_FAULT", stage);
  run();
  clearKnob("TOPOGPU_TEST_GPU_FAULT");
  const std::size_t after = gpu::deviceMemoryInUse();
  expect(after <= before + (std::size_t(16) << 20),
         tag + ": device memory not released: " + std::to_string(before >> 20) + " -> " +
             std::to_string(after >> 20) + " MiB");
}

// A CUDA failure in the middle of a run (TOPOGPU_TEST_GPU_FAULT=<stage>: a real
// out-of-memory error raised after the stage's device memory is allocated) must give the
// CPU's result, a warning naming the stage and the failure, and leave no device memory
// behind; a clean GPU run afterwards must still work.
void faultInjection() {
  const SimplexId side = 100, n = side * side * side;
  std::vector<float> field(n);
  std::mt19937 rng(11);
  for (auto& x : field)
    x = float(rng() % 5000);
  ImplicitTriangulation tri(side, side, side);
  critical_points::Output reference, out;
  critical_points::execute(tri, viewOf(field), {Backend::Cpu}, Monitor{}, reference);
  critical_points::execute(tri, viewOf(field), {Backend::Gpu}, Monitor{}, out); // warm
  std::vector<SimplexId> referenceOrder(n), order(n);
  computeVertexOrderCpu(viewOf(field), referenceOrder.data());

  for (const char* stage : {"upload", "vertex order", "classify", "download"}) {
    const std::string tag = std::string("fault in '") + stage + "'";
    runWithInjectedFault(tag, stage, [&] {
      critical_points::execute(tri, viewOf(field), {Backend::Gpu}, Monitor{}, out);
    });
    const std::string warnings = joined(out.report.warnings);
    expect(out.report.backend == "cpu", tag + ": backend " + out.report.backend);
    expect(hasCode(out.report.warnings, WarningCode::GpuOutOfMemory) &&
               contains(warnings, "critical points") && contains(warnings, stage) &&
               contains(warnings, "out of device memory") &&
               contains(warnings, "TOPOGPU_TEST_GPU_FAULT"),
           std::string(tag)
               .append(": warning does not name the stage and the failure: ")
               .append(warnings));
    expect(out.vertexTypes == reference.vertexTypes &&
               out.criticalVertices == reference.criticalVertices &&
               out.criticalOnBoundary == reference.criticalOnBoundary &&
               out.counts == reference.counts,
           tag + ": fallback result differs from the CPU's");
    // The failure came mid-run: the stages before it ran on the device.
    bool uploaded = false;
    for (const auto& t : out.report.timings)
      uploaded |= t.first == "upload (gpu)";
    expect(std::strcmp(stage, "upload") == 0 || uploaded,
           tag + ": no GPU stage ran before the fault");
    std::printf("  %-40s -> %s", tag.c_str(), warnings.c_str());
  }

  // The discrete gradient's stages.
  discrete_gradient::Output gradientReference, gradientOut;
  discrete_gradient::execute(tri, viewOf(field), {Backend::Cpu}, Monitor{},
                             gradientReference);
  for (const char* stage :
       {"upload", "vertex order", "gradient", "critical cells", "download"}) {
    const std::string tag = std::string("discrete gradient, fault in '") + stage + "'";
    runWithInjectedFault(tag, stage, [&] {
      discrete_gradient::execute(tri, viewOf(field), {Backend::Gpu}, Monitor{},
                                 gradientOut);
    });
    const std::string warnings = joined(gradientOut.report.warnings);
    expect(gradientOut.report.backend == "cpu" &&
               gradientOut.gradient == gradientReference.gradient &&
               gradientOut.criticalCells == gradientReference.criticalCells,
           tag + ": fallback result differs from the CPU's (backend " +
               gradientOut.report.backend + ")");
    expect(contains(warnings, "discrete gradient") && contains(warnings, stage),
           std::string(tag)
               .append(": warning does not name the failure: ")
               .append(warnings));
  }

  // The Morse-Smale complex's GPU pipeline: a failure in any stage reruns the whole
  // complex on the CPU.
  morse_smale_complex::Output mscReference, mscOut;
  morse_smale_complex::execute(tri, viewOf(field), {Backend::Cpu}, Monitor{},
                               mscReference);
  for (const char* stage :
       {"upload", "vertex order", "gradient", "critical cells", "minima roots",
        "maxima roots", "labels", "arcs", "download", "saddle reachability",
        "saddle DAG minor", "saddle path counting"}) {
    const std::string tag = std::string("morse-smale complex, fault in '") + stage + "'";
    runWithInjectedFault(tag, stage, [&] {
      morse_smale_complex::execute(tri, viewOf(field), {Backend::Gpu}, Monitor{}, mscOut);
    });
    const std::string warnings = joined(mscOut.report.warnings);
    expect(mscOut.report.backend == "cpu" &&
               mscOut.descendingManifold == mscReference.descendingManifold &&
               mscOut.cellAscendingManifold == mscReference.cellAscendingManifold &&
               mscOut.ascendingManifold == mscReference.ascendingManifold &&
               mscOut.saddleMaximum == mscReference.saddleMaximum &&
               mscOut.saddleConnections.arcs == mscReference.saddleConnections.arcs,
           tag + ": fallback result differs from the CPU's (backend " +
               mscOut.report.backend + ")");
    expect(contains(warnings, "morse-smale complex") && contains(warnings, stage),
           std::string(tag)
               .append(": warning does not name the failure: ")
               .append(warnings));
  }

  // The vertex order on its own.
  for (const char* stage : {"upload", "vertex order"}) {
    const std::string tag = std::string("vertex order, fault in '") + stage + "'";
    RunReport report;
    runWithInjectedFault(tag, stage, [&] {
      computeVertexOrder(viewOf(field), order.data(), Backend::Gpu, report);
    });
    const std::string warnings = joined(report.warnings);
    expect(report.backend == "cpu" && order == referenceOrder,
           tag + ": fallback order differs from the CPU's (backend " + report.backend +
               ")");
    expect(hasCode(report.warnings, WarningCode::GpuOutOfMemory) &&
               contains(warnings, "vertex order") && contains(warnings, stage) &&
               contains(warnings, "out of device memory"),
           std::string(tag)
               .append(": warning does not name the failure: ")
               .append(warnings));
  }

  // The device is still usable.
  critical_points::execute(tri, viewOf(field), {Backend::Gpu}, Monitor{}, out);
  expect(out.report.backend == "gpu" && out.report.warnings.empty() &&
             out.vertexTypes == reference.vertexTypes,
         "GPU run after the injected faults failed: " + joined(out.report.warnings));
}

// Inputs that do not fit the device fall back to the CPU with a warning: a forced small
// budget (TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES, which caps the free memory resolveBackend
// plans with) sends every Morse-Smale complex stage to the CPU with Auto and with Gpu,
// with the CPU's result; without it the same run is on the GPU (so the budget, not the
// field, made the difference).
void memoryBudgetFallback() {
  const SimplexId n = 48;
  std::vector<float> field(std::size_t(n * n * n));
  for (std::size_t i = 0; i < field.size(); ++i)
    field[i] = float((i * 2654435761u) % 251);
  ImplicitTriangulation tri(n, n, n);
  morse_smale_complex::Parameters parameters;
  parameters.computeSaddleConnections = true;
  morse_smale_complex::Output reference, out;
  parameters.backend = Backend::Cpu;
  morse_smale_complex::execute(tri, viewOf(field), parameters, Monitor{}, reference);
  for (Backend requested : {Backend::Auto, Backend::Gpu}) {
    const std::string tag = std::string("msc under a 64 KiB device budget (") +
                            (requested == Backend::Auto ? "auto" : "gpu") + ")";
    setKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "65536");
    parameters.backend = requested;
    morse_smale_complex::execute(tri, viewOf(field), parameters, Monitor{}, out);
    clearKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
    const std::string warnings = joined(out.report.warnings);
    expect(out.report.backend == "cpu", tag + ": ran on " + out.report.backend);
    expect(hasCode(out.report.warnings, WarningCode::GpuMemoryInsufficient) &&
               contains(warnings, "of GPU memory but only 0.1 MiB are free") &&
               contains(warnings, "TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES"),
           std::string(tag).append(": no warning naming the memory: ").append(warnings));
    expect(out.report.peakDeviceBytes == 0,
           tag + ": device memory used: " + std::to_string(out.report.peakDeviceBytes));
    for (const auto& timing : out.report.timings)
      expect(!contains(timing.first, "(gpu)"),
             tag + ": a stage ran on the GPU: " + timing.first);
    expect(out.gradient.criticalCells == reference.gradient.criticalCells &&
               out.descendingManifold == reference.descendingManifold &&
               out.ascendingManifold == reference.ascendingManifold &&
               out.cellAscendingManifold == reference.cellAscendingManifold &&
               out.maxima == reference.maxima &&
               out.saddle1Minimum == reference.saddle1Minimum &&
               out.saddleMaximum == reference.saddleMaximum &&
               out.saddleConnections.arcs == reference.saddleConnections.arcs,
           tag + ": result differs from the CPU's");
  }
  parameters.backend = Backend::Auto;
  morse_smale_complex::execute(tri, viewOf(field), parameters, Monitor{}, out);
  expect(out.report.backend == "gpu" && out.report.warnings.empty(),
         "msc without the budget did not run on the GPU: " + joined(out.report.warnings));
}

// ---- geodesic distance: patchFIM (cuda/eikonal) -------------------------------------
//
// Stated tolerance, GPU vs the CPU solvers: the GPU runs the host-side patchFIM's
// scheme (Patches.h: the same rounds, sweeps, dirty flags, announcements and counts) with
// the same arithmetic (PatchSolve.h shared, double values, FMA contraction off), so it
// equals the host twin bit for bit (values, labels, rounds, solves). Against FMM and
// meshFIM two things differ: the epsilon-convergence (each solver stops a vertex within
// epsilon = 1e-6 of the mean edge time of its fixed point, in its own update order), and
// GEO's float32 edge lengths (a relative 2^-24 per length, so at most 6e-8 times the
// distance, 6e-5 edges at a distance of 1000 edges). Bound: 1e-4 of the mean edge length
// (5e-5 against FMM, deterministic) on these meshes (distances below 300 edges); the host
// twin measured at most 0.06 of it here and 0.01-0.13 of it on the 1M-vertex meshes. That
// is below float32 rounding of the output distances, so "CPU and GPU agree up to float
// rounding" holds for the float32 arrays the filter writes.

double meanEdge(const eikonal::Surface& s) {
  double edge = 0;
  for (SimplexId t = 0; t < s.triangles(); ++t)
    for (int k = 0; k < 3; ++k) {
      const double* p = &s.points[3 * s.cells[3 * t + k]];
      const double* q = &s.points[3 * s.cells[3 * t + (k + 1) % 3]];
      edge += std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
  return edge / double(3 * std::max<SimplexId>(s.triangles(), 1));
}

double maxEdge(const eikonal::Surface& s) {
  double edge = 0;
  for (SimplexId t = 0; t < s.triangles(); ++t)
    for (int k = 0; k < 3; ++k) {
      const double* p = &s.points[3 * s.cells[3 * t + k]];
      const double* q = &s.points[3 * s.cells[3 * t + (k + 1) % 3]];
      edge = std::max(edge, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
    }
  return edge;
}

// The largest difference, +inf where one is unreached and the other not. With a stop
// distance, a vertex within `tol` of it may be reached by one solver only.
double maxDifference(const std::vector<double>& a, const std::vector<double>& b,
                     double stop = HUGE_VAL, double tol = 0) {
  if (a.size() != b.size())
    return HUGE_VAL;
  double m = 0;
  for (std::size_t v = 0; v < a.size(); ++v) {
    if (stop < HUGE_VAL && std::min(a[v], b[v]) > stop - tol)
      continue;
    if (std::isinf(a[v]) || std::isinf(b[v])) {
      if (a[v] != b[v])
        return HUGE_VAL;
      continue;
    }
    m = std::max(m, std::abs(a[v] - b[v]));
  }
  return m;
}

// The launch every GPU geodesic run of this driver uses (geodesic(), withLaunch's runs).
eikonal::PatchFimLaunch testLaunch;

// `p` with the launch under test.
eikonal::Parameters launched(eikonal::Parameters p) {
  p.patchFimLaunch = testLaunch;
  return p;
}

eikonal::Result geodesic(const eikonal::Surface& s, eikonal::Parameters p,
                         eikonal::Solver solver, RunReport& report) {
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  p.solver = solver;
  eikonal::Result r;
  eikonal::execute(tri, s.points.data(), launched(p), Monitor{}, r, report);
  return r;
}

// The host-side patchFIM on the arrays execute builds for the GPU.
eikonal::PatchFimState hostPatchFim(const eikonal::Surface& s,
                                    const eikonal::Parameters& p) {
  return eikonal::runPatchFimTwin(s, p).state;
}

// The checks of one GPU run (or the host twin in its place); the Voronoi check (single-
// seed FMM runs) only when `full`.
void compareGeodesicRun(const std::string& name, const eikonal::Surface& s,
                        const eikonal::Parameters& parameters, double tol,
                        const eikonal::Result& fmm, const eikonal::Result& fim,
                        const eikonal::PatchFimState& host, const eikonal::Result& gpu,
                        const RunReport& gpuReport, const RunReport& fmmReport,
                        const RunReport& fimReport, bool full) {
  expect(gpu.solver == eikonal::Solver::Gpu && gpuReport.backend == "gpu",
         name + ": patchFIM did not run on the GPU: " + joined(gpuReport.warnings));
  expect(gpu.converged, name + ": patchFIM hit the iteration cap");
  const double stop = parameters.stopDistance;
  const double dFmm = maxDifference(gpu.distance, fmm.distance, stop, tol);
  const double dFim = maxDifference(gpu.distance, fim.distance, stop, tol);
  // Against FMM (deterministic) half the bound: measured at most 0.15 of the full one.
  expect(dFmm < tol / 2,
         name + ": GPU vs fmm " + std::to_string(dFmm / tol) + " x tolerance");
  expect(dFim < tol,
         name + ": GPU vs fim-mt " + std::to_string(dFim / tol) + " x tolerance");
  expect(stop < HUGE_VAL || gpu.unreached == fmm.unreached,
         name + ": unreached " + std::to_string(gpu.unreached) + " vs fmm " +
             std::to_string(fmm.unreached));
  // The kernel is the host-side patchFIM's arithmetic: identical values, labels, counts.
  expect(host.value == gpu.distance && host.label == gpu.seedIdentifier,
         name + ": GPU differs from the host-side patchFIM (max " +
             std::to_string(maxDifference(host.value, gpu.distance)) + ")");
  expect(host.rounds == gpu.iterations && host.solves == gpu.localSolves &&
             host.patchRounds == gpu.patchRounds,
         name + ": rounds/solves " + std::to_string(gpu.iterations) + "/" +
             std::to_string(gpu.localSolves) + " vs host " + std::to_string(host.rounds) +
             "/" + std::to_string(host.solves));
  // Voronoi ids: where the nearest seed is clear (its single-seed distance beats the
  // next by more than two edges, far above the tolerance), the GPU names it; elsewhere
  // it names a seed within two edges of the nearest.
  if (full && parameters.seeds.size() > 1 && parameters.seeds.size() <= 4 &&
      stop == HUGE_VAL) {
    std::vector<std::vector<double>> single;
    for (SimplexId seed : parameters.seeds) {
      eikonal::Parameters one = parameters;
      one.seeds = {seed};
      RunReport report;
      single.push_back(geodesic(s, one, eikonal::Solver::Fmm, report).distance);
    }
    const double margin = 2 * maxEdge(s);
    SimplexId wrong = 0, clear = 0;
    for (SimplexId v = 0; v < s.vertices(); ++v) {
      std::vector<std::pair<double, SimplexId>> d;
      for (std::size_t i = 0; i < single.size(); ++i)
        d.push_back({single[i][v], parameters.seeds[i]});
      std::sort(d.begin(), d.end());
      if (std::isinf(d[0].first))
        continue;
      if (d[1].first - d[0].first > margin) {
        ++clear;
        wrong += gpu.seedIdentifier[v] != d[0].second;
      } else {
        bool near = false;
        for (const auto& [dist, seed] : d)
          near |= seed == gpu.seedIdentifier[v] && dist <= d[0].first + margin;
        wrong += !near;
      }
    }
    expect(wrong == 0 && clear > 0, name + ": " + std::to_string(wrong) +
                                        " wrong seed identifiers (" +
                                        std::to_string(clear) + " clear vertices)");
  }
  const auto onDevice = [](const RunReport& r) { // upload, rounds, download
    double t = 0;
    for (const auto& [n, seconds] : r.timings)
      if (n.size() > 5 && n.compare(n.size() - 5, 5, "(gpu)") == 0)
        t += seconds;
    return t;
  };
  std::printf("  %-44s %8lld v  fmm %8.3f s  fim-mt %7.3f s  gpu %7.3f s (solve %.4f s, "
              "%lld rounds, %lld patch-rounds, %.1f solves/v, %d patches %s)  |gpu-fmm| "
              "%.2e tol %.2e\n",
              name.c_str(), static_cast<long long>(s.vertices()),
              fmmReport.totalSeconds(), fimReport.totalSeconds(),
              gpuReport.totalSeconds(), onDevice(gpuReport), gpu.iterations,
              gpu.patchRounds, gpu.localSolvesPerVertex, gpu.patches,
              gpu.partition.c_str(), dFmm, tol);
}

// The device patchFIM's launch variants (eikonal::PatchFimLaunch): the multi-launch
// rounds and the persistent cooperative kernel, each with the default threads per vertex
// and with 4 forced (the lanes' shuffle reduction, which the defaults use on small meshes
// only). Each must equal the host twin bit for bit.
struct LaunchVariant {
  eikonal::PatchFimLaunchMode mode;
  int lanes; // 0: the default
};
constexpr LaunchVariant kLaunchVariants[] = {
    {eikonal::PatchFimLaunchMode::Rounds, 0},
    {eikonal::PatchFimLaunchMode::Persistent, 0},
    {eikonal::PatchFimLaunchMode::Rounds, 4},
    {eikonal::PatchFimLaunchMode::Persistent, 4}};

const char* launchName(eikonal::PatchFimLaunchMode mode) {
  return mode == eikonal::PatchFimLaunchMode::Rounds       ? "rounds"
         : mode == eikonal::PatchFimLaunchMode::Persistent ? "persistent"
                                                           : "auto";
}

// Runs `run` with `launch`, the default afterwards.
template <typename Run>
void withLaunch(const eikonal::PatchFimLaunch& launch, Run&& run) {
  testLaunch = launch;
  run();
  testLaunch = eikonal::PatchFimLaunch{};
}

template <typename Run> void withLaunchVariant(const LaunchVariant& variant, Run&& run) {
  eikonal::PatchFimLaunch launch;
  launch.mode = variant.mode;
  launch.lanes = variant.lanes;
  withLaunch(launch, run);
}

std::string variantName(const LaunchVariant& variant) {
  return std::string(launchName(variant.mode)) +
         (variant.lanes != 0 ? ", lanes " + std::to_string(variant.lanes) : "");
}

void compareGeodesic(const std::string& name, const eikonal::Surface& s,
                     const eikonal::Parameters& parameters) {
  const double tol = 1e-4 * meanEdge(s);
  RunReport fmmReport, fimReport;
  const eikonal::Result fmm = geodesic(s, parameters, eikonal::Solver::Fmm, fmmReport);
  const eikonal::Result fim = geodesic(s, parameters, eikonal::Solver::FimMt, fimReport);
  const eikonal::PatchFimState host = hostPatchFim(s, parameters);
  bool first = true;
  for (const LaunchVariant& variant : kLaunchVariants) {
    if (hostOnly && !first)
      break;
    const std::string tag = hostOnly ? name : name + " [" + variantName(variant) + "]";
    RunReport gpuReport;
    eikonal::Result gpu;
    if (hostOnly) {
      // --host-only checks these checks with the host-side patchFIM in the GPU's place.
      gpu.solver = eikonal::Solver::Gpu;
      gpu.distance = host.value;
      gpu.seedIdentifier = host.label;
      gpu.iterations = host.rounds;
      gpu.patchRounds = host.patchRounds;
      gpu.localSolves = host.solves;
      gpu.localSolvesPerVertex = double(host.solves) / double(s.vertices());
      gpu.converged = host.converged;
      gpu.unreached =
          SimplexId(std::count(host.value.begin(), host.value.end(), HUGE_VAL));
      gpuReport.backend = "gpu";
    } else {
      withLaunchVariant(variant, [&] {
        gpu = geodesic(s, parameters, eikonal::Solver::Gpu, gpuReport);
      });
    }
    compareGeodesicRun(tag, s, parameters, tol, fmm, fim, host, gpu, gpuReport, fmmReport,
                       fimReport, first);
    first = false;
  }
}

eikonal::Parameters seededAt(std::vector<SimplexId> seeds) {
  eikonal::Parameters p;
  p.seeds = std::move(seeds);
  return p;
}

void geodesicMeshes(const std::string& surfaces) {
  using eikonal::icosphere;
  using eikonal::square;
  std::printf("geodesic distance (patchFIM vs FMM / meshFIM-MT / host patchFIM)\n");
  {
    const eikonal::Surface s = square(257, 1.0);
    compareGeodesic("regular square 257^2", s, seededAt({257 * 128 + 128}));
    compareGeodesic("regular square 257^2, 3 seeds", s,
                    seededAt({0, 257 * 200 + 30, 5000}));
    // The paper's Speed 2 style: a smooth random speed in [0.5, 1.5] per vertex.
    std::vector<double> speed(s.vertices());
    for (SimplexId v = 0; v < s.vertices(); ++v) {
      const double x = s.points[3 * v], y = s.points[3 * v + 1];
      speed[v] = 1 + 0.5 * std::sin(7 * x + 3 * std::cos(5 * y)) * std::cos(4 * y + 1);
    }
    eikonal::Parameters p = seededAt({257 * 128 + 128});
    p.speedKind = eikonal::SpeedKind::PerVertex;
    p.speedValues = speed.data();
    compareGeodesic("regular square 257^2, varying speed", s, p);
    for (int patch : {16, 128}) {
      for (int inner : {1, 20}) {
        eikonal::Parameters q = seededAt({257 * 10 + 10});
        q.patchSize = patch;
        q.internalIterations = inner;
        compareGeodesic("square 257^2, patch " + std::to_string(patch) + ", inner " +
                            std::to_string(inner),
                        s, q);
      }
    }
    eikonal::Parameters metis = seededAt({3});
    metis.useMetis = true;
    compareGeodesic("regular square 257^2, metis patches", s, metis);
    eikonal::Parameters stop = seededAt({257 * 128 + 128});
    stop.stopDistance = 0.3;
    compareGeodesic("regular square 257^2, stop 0.3", s, stop);
  }
  compareGeodesic("irregular square 301^2", square(301, 2.0, 0.3, 5), seededAt({45000}));
  // Any scale solves in the mesh's own units (powers of two away): the squares of these
  // lengths underflow or overflow a double.
  for (double factor : {1e200, 1e-200}) {
    eikonal::Surface s = square(301, 2.0, 0.3, 5);
    for (double& x : s.points)
      x *= factor;
    compareGeodesic(std::string("irregular square 301^2 x ") +
                        (factor > 1 ? "1e200" : "1e-200"),
                    s, seededAt({45000}));
  }
  compareGeodesic("icosphere 5", icosphere(5), seededAt({0, 5000}));
  compareGeodesic("icosphere 6", icosphere(6), seededAt({17}));
  {
    // Two components, a seed on one only: the other stays unreached.
    eikonal::Surface two = square(60);
    const eikonal::Surface other = square(60);
    const SimplexId shift = two.vertices();
    for (std::size_t i = 0; i < other.points.size(); i += 3)
      two.points.insert(two.points.end(),
                        {other.points[i] + 3, other.points[i + 1], 0.0});
    for (SimplexId c : other.cells)
      two.cells.push_back(c + shift);
    compareGeodesic("two components", two, seededAt({100}));
  }
  DIR* dir = surfaces.empty() ? nullptr : opendir(surfaces.c_str());
  if (dir == nullptr) {
    std::printf("  (no surface folder '%s': shared surfaces skipped)\n",
                surfaces.c_str());
    return;
  }
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir))
    names.push_back(entry->d_name);
  closedir(dir);
  std::sort(names.begin(), names.end());
  int tested = 0;
  for (const std::string& name : names) {
    const bool off = name.size() > 4 && name.compare(name.size() - 4, 4, ".off") == 0;
    const bool ply = name.size() > 4 && name.compare(name.size() - 4, 4, ".ply") == 0;
    if (!off && !ply)
      continue;
    io::SurfaceMesh mesh;
    try {
      const std::string path = std::string(surfaces).append("/").append(name);
      mesh = off ? io::readOff(path) : io::readPly(path);
    } catch (const Error& e) {
      std::printf("  %-44s skipped: %s\n", name.c_str(), e.what()); // polygons
      continue;
    }
    eikonal::Surface s{mesh.points, mesh.cells};
    if (s.triangles() == 0)
      continue;
    compareGeodesic(name, s, seededAt({s.cells[0], s.cells[3 * (s.triangles() / 2)]}));
    ++tested;
  }
  expect(tested >= 10, "only " + std::to_string(tested) + " shared surfaces tested");
}

// Batch boundaries and the iteration cap in both schemes (persistent chunks of 3 rounds:
// the run ends inside a chunk, chunks queued after it return at once; a cap of 7 rounds
// ends inside the third chunk): bit for bit the host twin, capped where it is.
void geodesicChunks() {
  const eikonal::Surface s = eikonal::square(120, 1.0);
  for (long long cap : {7LL, 1000000LL}) {
    eikonal::Parameters p = seededAt({120 * 60 + 60, 17});
    p.maxIterations = cap;
    const eikonal::PatchFimState host = hostPatchFim(s, p);
    expect(cap > 100 || !host.converged,
           "chunks: the host twin converged within 7 rounds");
    for (const auto mode :
         {eikonal::PatchFimLaunchMode::Rounds, eikonal::PatchFimLaunchMode::Persistent}) {
      const std::string tag =
          std::string("patchFIM (") + launchName(mode) +
          (mode == eikonal::PatchFimLaunchMode::Persistent ? ", chunks of 3" : "") +
          ", cap " + std::to_string(cap) + ")";
      eikonal::PatchFimLaunch launch;
      launch.mode = mode;
      launch.chunk = 3;
      RunReport report;
      eikonal::Result gpu;
      withLaunch(launch, [&] { gpu = geodesic(s, p, eikonal::Solver::Gpu, report); });
      expect(report.backend == "gpu" && gpu.solver == eikonal::Solver::Gpu,
             tag + ": did not run on the GPU: " + joined(report.warnings));
      expect(gpu.distance == host.value && gpu.seedIdentifier == host.label &&
                 gpu.iterations == host.rounds && gpu.localSolves == host.solves &&
                 gpu.patchRounds == host.patchRounds && gpu.converged == host.converged,
             tag + ": differs from the host twin (rounds " +
                 std::to_string(gpu.iterations) + " vs " + std::to_string(host.rounds) +
                 ", max " + std::to_string(maxDifference(host.value, gpu.distance)) +
                 ")");
      expect(cap > 100 || (!gpu.converged && gpu.iterations == cap &&
                           contains(joined(report.warnings), "iteration cap")),
             tag + ": the cap was not reported");
      std::printf("  %-44s %lld rounds, converged %d\n", tag.c_str(), gpu.iterations,
                  int(gpu.converged));
    }
  }
}

// Fault injection, the memory budget and repeated runs for patchFIM.
void geodesicFallbacks() {
  const eikonal::Surface s = eikonal::square(200, 1.0, 0.2, 8);
  const double tol = 1e-4 * meanEdge(s);
  const eikonal::Parameters p = seededAt({0, 20000});
  RunReport report;
  const eikonal::Result reference = geodesic(s, p, eikonal::Solver::Fmm, report);
  for (const auto mode :
       {eikonal::PatchFimLaunchMode::Rounds, eikonal::PatchFimLaunchMode::Persistent}) {
    if (!injectFaults)
      break;
    for (const char* stage : {"upload", "iterate", "download"}) {
      const std::string tag =
          std::string("patchFIM (") + launchName(mode) + "), fault in '" + stage + "'";
      eikonal::Result out;
      eikonal::PatchFimLaunch launch;
      launch.mode = mode;
      withLaunch(launch, [&] {
        runWithInjectedFault(tag, stage,
                             [&] { out = geodesic(s, p, eikonal::Solver::Gpu, report); });
      });
      const std::string warnings = joined(report.warnings);
      expect(report.backend == "cpu" && out.solver == eikonal::Solver::FimMt &&
                 maxDifference(out.distance, reference.distance) < tol,
             tag + ": fallback result differs (backend " + report.backend + ")");
      expect(contains(warnings, "patchFIM") && contains(warnings, stage) &&
                 contains(warnings, "TOPOGPU_TEST_GPU_FAULT"),
             std::string(tag)
                 .append(": warning does not name the failure: ")
                 .append(warnings));
      std::printf("  %-40s -> %s", tag.c_str(), warnings.c_str());
    }
  }
  for (eikonal::Solver solver : {eikonal::Solver::Auto, eikonal::Solver::Gpu}) {
    setKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "65536");
    const eikonal::Result out = geodesic(s, p, solver, report);
    clearKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
    const std::string tag = std::string("patchFIM under a 64 KiB budget (") +
                            eikonal::solverName(solver) + ")";
    expect(out.solver == eikonal::Solver::FimMt && report.backend == "cpu" &&
               report.peakDeviceBytes == 0 &&
               maxDifference(out.distance, reference.distance) < tol,
           tag + ": did not fall back to fim-mt");
    // Auto asks for the device only where patchFIM is expected to win (SolverChoice.h),
    // so only Gpu must name the memory.
    if (solver == eikonal::Solver::Gpu)
      expect(contains(joined(report.warnings), "of GPU memory"),
             tag + ": no warning naming the memory: " + joined(report.warnings));
  }
  // Auto follows the end-to-end cost model (the device is warm here, the patches not
  // built): on this 40k-vertex square meshFIM-MT's solve is cheaper than patchFIM's
  // partition and transfers.
  eikonal::AutoInputs cold;
  cold.vertices = s.vertices();
  cold.cpuThreads = std::max(1, tbb::this_task_arena::max_concurrency());
  const eikonal::Result autoRun = geodesic(s, p, eikonal::Solver::Auto, report);
  expect(autoRun.solver == (eikonal::autoPrefersGpu(cold) ? eikonal::Solver::Gpu
                                                          : eikonal::Solver::FimMt) &&
             report.warnings.empty(),
         "patchFIM: auto did not follow the cost model: " +
             std::string(eikonal::solverName(autoRun.solver)) + " " +
             joined(report.warnings));
  // With the patches kept from a GPU run on the same mesh (a filter's rerun after a
  // change of seeds), auto picks the GPU on a large mesh and reuses them.
  const eikonal::Surface large = eikonal::square(700, 1.0, 0.2, 9);
  {
    ExplicitTriangulation tri(large.vertices(), 2, large.cells);
    eikonal::Preparation kept;
    eikonal::Parameters q = seededAt({5});
    eikonal::Result first, second, reference;
    q.solver = eikonal::Solver::Gpu;
    eikonal::execute(tri, large.points.data(), q, Monitor{}, first, report, &kept);
    q.seeds = {170000, 3};
    q.solver = eikonal::Solver::Auto;
    eikonal::execute(tri, large.points.data(), q, Monitor{}, second, report, &kept);
    bool reused = false;
    for (const auto& [stage, seconds] : report.timings)
      reused = reused || stage == "patches (cached)";
    q.solver = eikonal::Solver::Fmm;
    eikonal::execute(tri, large.points.data(), q, Monitor{}, reference, report);
    expect(second.solver == eikonal::Solver::Gpu && reused &&
               maxDifference(second.distance, reference.distance) <
                   1e-4 * meanEdge(large),
           "patchFIM: auto on kept patches did not run them on the GPU (or differs from "
           "FMM): " +
               std::string(eikonal::solverName(second.solver)));
  }
  // Repeated runs release their device memory.
  geodesic(large, seededAt({5}), eikonal::Solver::Gpu, report);
  const std::size_t before = gpu::deviceMemoryInUse();
  for (int i = 0; i < 5; ++i)
    geodesic(large, seededAt({5}), eikonal::Solver::Gpu, report);
  const std::size_t after = gpu::deviceMemoryInUse();
  expect(
      report.peakDeviceBytes > 0 && after <= before + (std::size_t(16) << 20),
      "patchFIM: device memory grew over repeated runs: " + std::to_string(before >> 20) +
          " -> " + std::to_string(after >> 20) + " MiB");
}

// A filter's reruns: one Preparation kept across changes of seeds keeps the patch tables
// on the device (gpu::PatchFimResident) and uploads only the new start. Each run must
// equal the host twin for its seeds and points bit for bit (the kept patches are
// numbered from the first run's seeds; nothing computed depends on the numbering), in
// both launch schemes. One device state stays alive: kept across seed changes and CPU
// runs, made again for new patch settings, moved points (same mesh, same sizes: a stale
// state would pass every size check) or a new mesh, dropped by an aborted run, and
// released with the Preparation.
void geodesicKeptDeviceState() {
  const eikonal::Surface large = eikonal::square(200, 1.0, 0.2, 11);
  eikonal::Surface moved = large;
  for (SimplexId v = 0; v < moved.vertices(); ++v)
    moved.points[3 * v + 2] = 0.05 * std::sin(9.0 * moved.points[3 * v]) *
                              std::cos(7.0 * moved.points[3 * v + 1]);
  const eikonal::Surface other = eikonal::square(120, 1.0, 0.2, 12);
  const int before = gpu::livePatchFimResidents();
  const auto alive = [&] { return gpu::livePatchFimResidents() - before; };
  for (const LaunchVariant& variant : {kLaunchVariants[0], kLaunchVariants[1]}) {
    withLaunchVariant(variant, [&] {
      const std::string name = "kept device state [" + variantName(variant) + "]";
      eikonal::Preparation kept;
      ExplicitTriangulation tri(large.vertices(), 2, large.cells);
      // One run on `kept`, checked against the host twin; `cached`: the patches were.
      const auto check = [&](const std::string& tag, const eikonal::Surface& s,
                             ExplicitTriangulation& t, eikonal::Parameters q, bool cached,
                             eikonal::Solver solver = eikonal::Solver::Gpu) {
        q.solver = solver;
        eikonal::Result r;
        RunReport report;
        eikonal::execute(t, s.points.data(), launched(q), Monitor{}, r, report, &kept);
        const eikonal::PatchFimState host = hostPatchFim(s, q);
        bool wasCached = false;
        for (const auto& [stage, seconds] : report.timings)
          wasCached = wasCached || stage == "patches (cached)";
        if (solver == eikonal::Solver::Gpu) {
          expect(r.solver == eikonal::Solver::Gpu && report.backend == "gpu",
                 tag + ": did not run on the GPU: " + joined(report.warnings));
          expect(wasCached == cached,
                 tag + ": patches (cached) " + (cached ? "expected" : "unexpected"));
          expect(host.value == r.distance && host.label == r.seedIdentifier &&
                     host.rounds == r.iterations && host.solves == r.localSolves,
                 tag + ": differs from the host twin (max " +
                     std::to_string(maxDifference(host.value, r.distance)) + ")");
        } else {
          expect(r.solver == solver && report.backend == "cpu" &&
                     r.distance.size() == host.value.size(),
                 tag + ": did not run on the CPU");
        }
        expect(alive() == 1,
               tag + ": " + std::to_string(alive()) + " device states alive, expected 1");
      };
      const std::vector<std::vector<SimplexId>> seedSets = {
          {5}, {20000, 3}, {5}, {39999}, {1000, 1001, 38000}};
      for (std::size_t i = 0; i < seedSets.size(); ++i) {
        eikonal::Parameters q = seededAt(seedSets[i]);
        if (i >= 3)
          q.patchSize = 48; // new patches (run 4): a new device state
        check(name + ", run " + std::to_string(i + 1), large, tri, q, i != 0 && i != 3);
      }
      eikonal::Parameters q48 = seededAt({77});
      q48.patchSize = 48;
      // A CPU run in between keeps the device state for the next GPU run.
      check(name + ", fim-mt in between", large, tri, q48, true, eikonal::Solver::FimMt);
      check(name + ", after fim-mt", large, tri, q48, true);
      // The same triangulation with moved points: the mesh setup, the patches and the
      // device state are made again (the sizes are all the same).
      check(name + ", moved points", moved, tri, q48, false);
      q48.seeds = {12345};
      check(name + ", moved points, new seeds", moved, tri, q48, true);
      // An abort inside the device's rounds: the state goes; the next run makes a new
      // one. The abort comes at the last check of an unaborted run: execute checks 4
      // times before the device's rounds, whose loop checks after each batch but the
      // last (16 rounds, or persistent chunks of 3).
      const eikonal::PatchFimLaunch variantLaunch = testLaunch;
      testLaunch.chunk = 3;
      int checks = 0;
      Monitor counting;
      counting.abortRequested = [&] { return ++checks < 0; };
      {
        eikonal::Parameters q = q48;
        q.solver = eikonal::Solver::Gpu;
        eikonal::Result r;
        RunReport report;
        eikonal::execute(tri, moved.points.data(), launched(q), counting, r, report,
                         &kept);
      }
      const int total = checks;
      expect(total >= 5, name + ": only " + std::to_string(total) +
                             " abort checks (4 before the device's rounds)");
      bool aborted = false;
      checks = 0;
      Monitor aborting;
      aborting.abortRequested = [&] { return ++checks >= total; };
      try {
        eikonal::Parameters q = q48;
        q.solver = eikonal::Solver::Gpu;
        eikonal::Result r;
        RunReport report;
        eikonal::execute(tri, moved.points.data(), launched(q), aborting, r, report,
                         &kept);
      } catch (const Aborted&) {
        aborted = true;
      }
      testLaunch = variantLaunch;
      expect(aborted && alive() == 0, name + ": an aborted run kept its device state (" +
                                          std::to_string(alive()) + " alive)");
      q48.seeds = {5, 32000};
      check(name + ", after an abort", moved, tri, q48, true);
      // A new mesh: the old state goes, a new one comes.
      ExplicitTriangulation otherTri(other.vertices(), 2, other.cells);
      check(name + ", new mesh", other, otherTri, seededAt({7}), false);
      kept.clear();
      expect(alive() == 0, name + ": Preparation::clear kept the device state");
      check(name + ", after clear", other, otherTri, seededAt({8}), false);
    });
    expect(gpu::livePatchFimResidents() == before,
           "kept device state [" + variantName(variant) +
               "]: not released with its Preparation");
  }
}

// ---- Rips persistence (cuda/rips_persistence) ----------------------------------------
//
// The GPU builds the columns (with clearing) and finds the apparent pairs; the CPU
// reduces the rest. Distances are single precision on both sides (Ripser's value type);
// a point cloud's are computed on the device in double without FMA contraction and
// rounded once, as on the CPU. So the GPU's barcodes must be the CPU's exactly: the same
// floats in the same order, the same pair, apparent-pair, column and simplex counts.

namespace rp = rips_persistence;

// With --host-only, the GPU's place is taken by its host twin (the same driver and
// per-simplex functions, loops for kernels), to check the checks without a device.
rp::Result rips(const rp::RipsInput& input, rp::Parameters p, Backend backend,
                RunReport& report) {
  p.backend = backend;
  rp::Result result;
  report = RunReport{};
  if (hostOnly && backend != Backend::Cpu) {
    const Monitor monitor;
    rp::detail::executeWith(input, p, monitor,
                            rp::device::hostTwinFactory(std::size_t(1) << 40, monitor),
                            {}, result, report);
    report.backend = "gpu";
    return result;
  }
  rp::execute(input, p, Monitor{}, result, report);
  return result;
}

std::string ripsDifference(const rp::Result& a, const rp::Result& b) {
  if (a.intervals.size() != b.intervals.size())
    return "different number of dimensions";
  for (std::size_t k = 0; k < a.intervals.size(); ++k) {
    const auto& x = a.intervals[k];
    const auto& y = b.intervals[k];
    if (x.size() != y.size())
      return "dim " + std::to_string(k) + ": " + std::to_string(x.size()) + " vs " +
             std::to_string(y.size()) + " bars";
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::memcmp(&x[i].birth, &y[i].birth, sizeof(x[i].birth)) != 0 ||
          std::memcmp(&x[i].death, &y[i].death, sizeof(x[i].death)) != 0)
        return "dim " + std::to_string(k) + " bar " + std::to_string(i) + ": [" +
               std::to_string(x[i].birth) + ", " + std::to_string(x[i].death) + ") vs [" +
               std::to_string(y[i].birth) + ", " + std::to_string(y[i].death) + ")";
    }
    const rp::DimensionStats &s = a.stats[k], &t = b.stats[k];
    if (s.pairs != t.pairs || s.apparentPairs != t.apparentPairs ||
        s.columns != t.columns || s.simplices != t.simplices ||
        s.essential != t.essential)
      return "dim " + std::to_string(k) + ": counts differ (pairs " +
             std::to_string(s.pairs) + "/" + std::to_string(t.pairs) + ", apparent " +
             std::to_string(s.apparentPairs) + "/" + std::to_string(t.apparentPairs) +
             ", columns " + std::to_string(s.columns) + "/" + std::to_string(t.columns) +
             ", simplices " + std::to_string(s.simplices) + "/" +
             std::to_string(t.simplices) + ")";
  }
  return "";
}

double seconds(const RunReport& report) {
  return report.totalSeconds();
}

// CPU versus GPU on one input; returns the GPU's result.
rp::Result compareRips(const std::string& name, const rp::RipsInput& input,
                       const rp::Parameters& p) {
  RunReport cpuReport, gpuReport;
  const rp::Result cpu = rips(input, p, Backend::Cpu, cpuReport);
  const rp::Result gpu = rips(input, p, Backend::Gpu, gpuReport);
  const std::string why = ripsDifference(gpu, cpu);
  expect(why.empty(), "rips " + name + ": GPU differs from CPU: " + why);
  expect(gpuReport.backend == "gpu" && gpuReport.warnings.empty(),
         "rips " + name + ": backend " + gpuReport.backend + ", warnings " +
             joined(gpuReport.warnings));
  std::string apparent, batches;
  for (std::size_t k = 1; k < gpu.stats.size(); ++k) {
    const rp::DimensionStats& s = gpu.stats[k];
    expect(s.columnsBackend == "gpu", "rips " + name + ": dim " + std::to_string(k) +
                                          " built on " + s.columnsBackend);
    char text[48];
    std::snprintf(text, sizeof text, " %.1f%%", s.apparentPercent());
    apparent += text;
    batches += " " + std::to_string(s.batches);
  }
  std::printf("  rips %-44s n %-5lld dim %d%s: cpu %.3f s, gpu %.3f s, apparent%s, "
              "batches%s, peak device %.0f MiB\n",
              name.c_str(), (long long)gpu.numberOfPoints, p.maxDimension,
              gpu.sparse ? " sparse" : "", seconds(cpuReport), seconds(gpuReport),
              apparent.c_str(), batches.c_str(),
              double(gpuReport.peakDeviceBytes) / (1024.0 * 1024.0));
  return gpu;
}

rp::Parameters ripsParameters(int dim, double threshold = INFINITY,
                              rp::SparseMode sparse = rp::SparseMode::Auto) {
  rp::Parameters p;
  p.maxDimension = dim;
  p.threshold = threshold;
  p.sparse = sparse;
  return p;
}

std::vector<double> randomCloud(std::mt19937& rng, int n, int dim, bool integer) {
  std::vector<double> points(std::size_t(n) * std::size_t(dim));
  for (double& x : points)
    x = integer ? double(rng() % 7) : std::uniform_real_distribution<double>(0, 1)(rng);
  return points;
}

// Ripser's text output ("persistence intervals in dim k:", " [b,d)" or " [b, )").
std::map<int, std::vector<std::pair<double, double>>>
readBarcodes(const std::string& path) {
  std::map<int, std::vector<std::pair<double, double>>> bars;
  std::ifstream in(path);
  std::string line;
  int dim = -1;
  while (std::getline(in, line)) {
    if (line.rfind("persistence intervals in dim ", 0) == 0) {
      dim = std::atoi(line.c_str() + 29);
      continue;
    }
    const auto open = line.find('['), comma = line.find(',');
    if (dim < 0 || open == std::string::npos || comma == std::string::npos)
      continue;
    const double birth = std::atof(line.c_str() + open + 1);
    const std::string rest = line.substr(comma + 1);
    const bool infinite = rest.find_first_of("0123456789") == std::string::npos;
    bars[dim].emplace_back(birth, infinite ? INFINITY : std::atof(rest.c_str()));
  }
  return bars;
}

// The GPU's bars of dimensions 0 and 1 against Ripser++'s expected barcodes, as
// multisets within a relative tolerance (the files print 6 digits).
void compareWithRipserpp(const std::string& name, const rp::Result& gpu,
                         const std::string& expectedPath, double tolerance) {
  std::ifstream probe(expectedPath);
  if (!probe)
    return;
  auto expected = readBarcodes(expectedPath);
  for (int k = 0; k <= 1 && k < int(gpu.intervals.size()); ++k) {
    std::vector<std::pair<double, double>> ours;
    for (const auto& i : gpu.intervals[std::size_t(k)])
      ours.emplace_back(i.birth, i.death);
    auto& theirs = expected[k];
    std::sort(ours.begin(), ours.end());
    std::sort(theirs.begin(), theirs.end());
    // Greedy in sorted order, then the leftovers by search (bars whose births are within
    // the tolerance may sort in another order): the CLI test's matching.
    const auto close = [&](double a, double b) {
      if (std::isinf(a) || std::isinf(b))
        return a == b;
      return std::fabs(a - b) <= tolerance * std::max({1.0, std::fabs(a), std::fabs(b)});
    };
    const auto match = [&](const std::pair<double, double>& x,
                           const std::pair<double, double>& y) {
      return close(x.first, y.first) && close(x.second, y.second);
    };
    bool same = ours.size() == theirs.size();
    std::vector<std::pair<double, double>> left, rest;
    for (std::size_t i = 0; same && i < ours.size(); ++i) {
      if (!match(ours[i], theirs[i])) {
        left.push_back(ours[i]);
        rest.push_back(theirs[i]);
      }
    }
    for (const auto& x : left) {
      const auto it = std::find_if(rest.begin(), rest.end(),
                                   [&](const auto& y) { return match(x, y); });
      if (it == rest.end()) {
        same = false;
        break;
      }
      rest.erase(it);
    }
    expect(same, "rips " + name + " dim " + std::to_string(k) +
                     ": GPU differs from Ripser++'s expected barcode (" +
                     std::to_string(ours.size()) + " vs " +
                     std::to_string(theirs.size()) + " bars)");
  }
}

std::string formatText(const std::vector<std::vector<double>>& d,
                       rp::InputFormat format) {
  std::ostringstream out;
  out.precision(9);
  const std::size_t n = d.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (format == rp::InputFormat::Distance)
        out << d[i][j] << (j + 1 < n ? " " : "");
      else if (format == rp::InputFormat::LowerDistance && j < i)
        out << d[i][j] << ",";
      else if (format == rp::InputFormat::UpperDistance && j > i)
        out << d[i][j] << " ";
      else if (format == rp::InputFormat::Sparse && j < i && d[i][j] < 3.5)
        out << i << " " << j << " " << d[i][j] << "\n";
    }
    if (format != rp::InputFormat::Sparse)
      out << "\n";
  }
  return out.str();
}

void ripsGenerated() {
  std::printf("rips persistence: generated clouds (CPU vs GPU, exact)\n");
  std::mt19937 rng(41);
  for (int trial = 0; trial < 16; ++trial) {
    const int n = 30 + 20 * (trial % 6);
    const int dim = 2 + trial % 3;
    const bool integer = trial % 2 == 0; // ties
    const rp::RipsInput cloud = rp::fromPoints(randomCloud(rng, n, dim, integer), dim);
    const int maxDim = 1 + trial % 3;
    const double threshold = trial % 4 == 3 ? (integer ? 3.0 : 0.45) : INFINITY;
    const rp::SparseMode mode =
        trial % 5 == 4 ? rp::SparseMode::Sparse : rp::SparseMode::Auto;
    compareRips("cloud " + std::to_string(trial) + (integer ? " (integer)" : ""), cloud,
                ripsParameters(maxDim, threshold, mode));
  }
  // Every format, from one integer cloud's matrix.
  const std::vector<double> points = randomCloud(rng, 40, 3, true);
  std::vector<std::vector<double>> d(40, std::vector<double>(40, 0));
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) {
      double sum = 0;
      for (int k = 0; k < 3; ++k)
        sum += (points[i * 3 + k] - points[j * 3 + k]) *
               (points[i * 3 + k] - points[j * 3 + k]);
      d[i][j] = double(float(std::sqrt(sum)));
    }
  for (const rp::InputFormat format :
       {rp::InputFormat::Distance, rp::InputFormat::LowerDistance,
        rp::InputFormat::UpperDistance, rp::InputFormat::Sparse}) {
    std::istringstream in(formatText(d, format));
    const rp::RipsInput input = rp::readRipsInput(in, format, "generated");
    compareRips(std::string("format ") + rp::inputFormatName(format), input,
                ripsParameters(3));
  }
  compareRips("format point-cloud", rp::fromPoints(points, 3), ripsParameters(3));
  // Clouds beyond and below single precision: stored times a power of two (the device
  // computes the distances of the stored points), the bars given back in double.
  for (const double factor : {1e39, 1e-50}) {
    std::vector<double> scaled = randomCloud(rng, 60, 3, false);
    for (double& x : scaled)
      x *= factor;
    compareRips("cloud scaled by " + std::to_string(factor), rp::fromPoints(scaled, 3),
                ripsParameters(2));
  }
}

void ripsSharedSets(const std::string& folder) {
  if (folder.empty())
    return;
  struct Case {
    const char* file;
    rp::InputFormat format;
    int dim;
    double threshold;
    const char* expected; // Ripser++'s barcodes (dims 0-1), or null
  };
  using F = rp::InputFormat;
  const Case cases[] = {
      {"random16.lower_distance_matrix", F::LowerDistance, 3, INFINITY, nullptr},
      {"projective_plane.lower_distance_matrix", F::LowerDistance, 3, INFINITY, nullptr},
      {"roadmap/random_point_cloud_50_16_.txt", F::PointCloud, 3, INFINITY, nullptr},
      {"roadmap/senate104_edge_list.txt_0.68902_distmat.txt", F::Distance, 3, INFINITY,
       nullptr},
      {"roadmap/random_point_cloud_100_4_.txt_distmat.txt", F::Distance, 3, INFINITY,
       nullptr},
      {"sphere_3_192.lower_distance_matrix", F::LowerDistance, 2, INFINITY,
       "sphere_3_192.gpu.barcodes"},
      {"celegans.distance_matrix", F::Distance, 2, INFINITY, "celegans.gpu.barcodes"},
      {"Vicsek300_300_of_300.distance_matrix", F::Distance, 2, INFINITY,
       "Vicsek300_300_of_300.gpu.barcodes"},
      {"o3_1024.txt", F::PointCloud, 2, 1.4, nullptr},
      {"o3_4096.txt", F::PointCloud, 1, 1.4, "o3_4096.gpu.barcodes"},
      {"roadmap/dragon_vrip.ply.txt_1000_.txt", F::PointCloud, 1, INFINITY,
       "dragon1000.gpu.barcodes"},
      {"roadmap/klein_bottle_pointcloud_new_400.txt", F::PointCloud, 2, INFINITY,
       nullptr},
      // Distances 1 and 2 only: massive ties (dim 2 takes minutes on the CPU side).
      {"roadmap/fractal_9_5_2_weight_one_edge_list.txt_2_distmat.txt", F::Distance, 1,
       INFINITY, nullptr},
      {"roadmap/house104_edge_list.txt_0.72344_distmat.txt", F::Distance, 1, INFINITY,
       nullptr},
      {"roadmap/network379_edge_list.txt_38.3873_distmat.txt", F::Distance, 1, INFINITY,
       nullptr},
  };
  std::printf("rips persistence: shared sets in %s (CPU vs GPU, exact)\n",
              folder.c_str());
  int tested = 0;
  for (const Case& c : cases) {
    const std::string path = folder + "/" + c.file;
    std::ifstream file(path);
    if (!file) {
      std::printf("  rips %-44s absent: skipped\n", c.file);
      continue;
    }
    const rp::RipsInput input = rp::readRipsInput(file, c.format, path);
    const rp::Result gpu = compareRips(c.file, input, ripsParameters(c.dim, c.threshold));
    if (c.expected != nullptr)
      compareWithRipserpp(c.file, gpu,
                          folder + "/expected_barcodes_ripserpp/" + c.expected,
                          c.format == F::PointCloud ? 2e-5 : 1e-5);
    ++tested;
  }
  std::printf("  %d shared sets tested\n", tested);
}

// Faults in each GPU stage fall back to the CPU with a warning naming it; a forced small
// budget gives batches (or, smaller still, the CPU); repeated calls release the device.
void ripsMemoryAndFaults() {
  std::mt19937 rng(5);
  const rp::RipsInput cloud = rp::fromPoints(randomCloud(rng, 60, 3, true), 3);
  const rp::Parameters p = ripsParameters(3);
  RunReport cpuReport;
  const rp::Result reference = rips(cloud, p, Backend::Cpu, cpuReport);
  if (injectFaults) {
    for (const char* stage :
         {"distances", "upload", "columns", "apparent pairs", "compact", "download"}) {
      const std::string tag = std::string("rips, fault in '") + stage + "'";
      RunReport report;
      rp::Result out;
      runWithInjectedFault(tag, stage,
                           [&] { out = rips(cloud, p, Backend::Gpu, report); });
      const std::string warnings = joined(report.warnings);
      expect(report.backend == "cpu" && ripsDifference(out, reference).empty(),
             tag + ": fallback result differs from the CPU's (backend " + report.backend +
                 "): " + ripsDifference(out, reference));
      expect(contains(warnings, "rips persistence") && contains(warnings, stage) &&
                 contains(warnings, "TOPOGPU_TEST_GPU_FAULT"),
             tag + ": warning does not name the failure: " + warnings);
      std::printf("  %-40s -> %s", tag.c_str(), warnings.c_str());
    }
  }
  // A budget that holds the matrix but not whole dimensions: batches, same result.
  {
    setKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "300000");
    RunReport report;
    const rp::Result out = rips(cloud, p, Backend::Gpu, report);
    clearKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
    int batched = 0;
    std::string where;
    for (std::size_t k = 1; k < out.stats.size(); ++k) {
      batched += out.stats[k].batches > 1 || out.stats[k].columnsBackend == "cpu";
      where += " dim " + std::to_string(k) + ": " + out.stats[k].columnsBackend + " x" +
               std::to_string(out.stats[k].batches);
    }
    expect(report.backend == "gpu" && batched >= 1,
           "rips under a 300 kB budget: no batches (" + report.backend + where + ")");
    expect(ripsDifference(out, reference).empty(),
           "rips under a 300 kB budget: " + ripsDifference(out, reference));
    std::printf("  rips under a 300 kB device budget:%s\n", where.c_str());
  }
  // Budgets around the sizes of the dimensions: the simplices a dimension keeps on the
  // device for the next one, or hands to the host when the next does not fit beside
  // them, and batches written into the kept buffer; the CPU's result each time.
  for (const char* budget : {"150000", "200000", "450000", "700000", "1500000"}) {
    setKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", budget);
    RunReport report;
    const rp::Result out = rips(cloud, p, Backend::Gpu, report);
    clearKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
    std::string where;
    for (std::size_t k = 1; k < out.stats.size(); ++k)
      where += " dim " + std::to_string(k) + ": " + out.stats[k].columnsBackend + " x" +
               std::to_string(out.stats[k].batches);
    expect(report.backend == "gpu" && ripsDifference(out, reference).empty(),
           std::string("rips under a ") + budget + " B budget (" + report.backend +
               where + "): " + ripsDifference(out, reference));
    std::printf("  rips under a %s B device budget:%s\n", budget, where.c_str());
  }
  // Too small for the matrix: the CPU, with a warning naming the budget.
  for (Backend requested : {Backend::Gpu}) {
    setKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "4096");
    RunReport report;
    const rp::Result out = rips(cloud, p, requested, report);
    clearKnob("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
    const std::string tag = std::string("rips under a 4 KiB budget (") +
                            (requested == Backend::Auto ? "auto" : "gpu") + ")";
    expect(report.backend == "cpu" && report.peakDeviceBytes == 0 &&
               report.hasWarning(WarningCode::GpuMemoryInsufficient) &&
               contains(joined(report.warnings), "TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES"),
           tag + ": did not fall back with a warning: " + joined(report.warnings));
    expect(ripsDifference(out, reference).empty(), tag + ": result differs");
  }
  // Auto runs the CPU (faster than this GPU backend on the benchmark's sets); 20 GPU
  // calls leave the device memory where it was.
  RunReport report;
  const rp::RipsInput larger = rp::fromPoints(randomCloud(rng, 150, 3, false), 3);
  rips(larger, ripsParameters(2), Backend::Auto, report);
  expect(report.backend == "cpu" && report.peakDeviceBytes == 0,
         "rips: auto did not run the CPU: " + report.backend);
  const std::size_t before = gpu::deviceMemoryInUse();
  for (int i = 0; i < 20; ++i)
    rips(larger, ripsParameters(2), Backend::Gpu, report);
  const std::size_t after = gpu::deviceMemoryInUse();
  expect(report.peakDeviceBytes > 0 && after <= before + (std::size_t(16) << 20),
         "rips: device memory grew over 20 calls: " + std::to_string(before >> 20) +
             " -> " + std::to_string(after >> 20) + " MiB");
  std::printf("  rips: 20 calls, device memory %zu -> %zu MiB\n", before >> 20,
              after >> 20);
}

// The first GPU call of a process starts the device on a background thread, the
// dimensions that begin meanwhile built on the CPU (rp::execute); later calls find it
// started and put every dimension on it, which compareRips checks. This first call: the
// CPU's result, no warning, the start's seconds reported.
void ripsDeviceStart() {
  std::mt19937 rng(3);
  const rp::RipsInput cloud = rp::fromPoints(randomCloud(rng, 80, 3, false), 3);
  RunReport cpuReport, report;
  const rp::Result reference = rips(cloud, ripsParameters(3), Backend::Cpu, cpuReport);
  const rp::Result out = rips(cloud, ripsParameters(3), Backend::Gpu, report);
  double start = -1;
  for (const auto& [stage, seconds] : report.timings)
    start = stage == "device start (gpu)" ? seconds : start;
  std::string where;
  for (std::size_t k = 1; k < out.stats.size(); ++k)
    where += " " + out.stats[k].columnsBackend;
  expect(report.backend == "gpu" && report.warnings.empty() && start >= 0,
         "rips, first GPU call: backend " + report.backend + ", warnings " +
             joined(report.warnings) + ", device start " + std::to_string(start));
  expect(ripsDifference(out, reference).empty(),
         "rips, first GPU call: " + ripsDifference(out, reference));
  std::printf("  rips: first GPU call, device start %.3f s, columns of dims 1-3 on%s\n",
              start, where.c_str());
}

// A builder that hands on what another one prepared, keeping a copy (a declined
// dimension: batches 0).
class RecordingBuilder : public rp::ColumnBuilder {
public:
  RecordingBuilder(std::unique_ptr<rp::ColumnBuilder> inner,
                   std::vector<rp::PreparedDimension>& log)
      : inner_(std::move(inner)), log_(log) {}
  bool prepare(int dim, std::vector<rp::Simplex>& facets,
               const std::vector<rp::Simplex>* given, bool keepSimplices,
               const std::vector<SimplexId>& clearedReduced, rp::PreparedDimension& out,
               RunReport& report) override {
    const bool made =
        inner_->prepare(dim, facets, given, keepSimplices, clearedReduced, out, report);
    log_.push_back(out);
    if (!made)
      log_.back().batches = 0;
    return made;
  }

private:
  std::unique_ptr<rp::ColumnBuilder> inner_;
  std::vector<rp::PreparedDimension>& log_;
};

std::uint32_t floatBits(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// The same simplices in the same order, diameters bit for bit.
bool sameSimplices(const std::vector<rp::Simplex>& a, const std::vector<rp::Simplex>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].index != b[i].index || floatBits(a[i].diameter) != floatBits(b[i].diameter))
      return false;
  }
  return true;
}

// The sparse graph's cofacets, one warp per facet: what the GPU's builder prepares per
// dimension must be its host twin's (one thread per facet, forEachCofacet): the same
// simplices in the same order where they come back to the host (the warp's ballot
// slots keep the thread's decreasing order), the same columns, apparent and simplex
// counts. Uniform points and a threshold giving candidate lists of none to 60
// neighbours (several hundred facets take more than one round of 32); budgets from
// everything kept on the device to batches with the simplices handed to the host.
void ripsSparseWarpBuilder() {
  std::mt19937 rng(11);
  const rp::RipsInput cloud = rp::fromPoints(randomCloud(rng, 500, 3, false), 3);
  const rp::Parameters p = ripsParameters(3, 0.27, rp::SparseMode::Sparse);
  int hostSimplices = 0, builtOnGpu = 0;
  // 500 points, 7671 edges, 45613 triangles, 157947 tetrahedra (the host twin's counts
  // here); under 1100 and 700 KiB the triangles come to the host.
  for (const std::size_t budget : {std::size_t(1) << 34, std::size_t(6) << 20,
                                   std::size_t(1100) << 10, std::size_t(700) << 10}) {
    const std::string tag =
        "rips sparse warp builder, budget " + std::to_string(budget >> 10) + " KiB";
    std::vector<rp::PreparedDimension> gpuLog, twinLog;
    const Monitor monitor;
    rp::ColumnBuilderFactory gpuFactory = [&](const rp::RipsGraph& graph,
                                              RunReport& report) {
      return std::unique_ptr<rp::ColumnBuilder>(new RecordingBuilder(
          gpu::makeRipsColumnBuilder(graph, budget, monitor, report), gpuLog));
    };
    rp::ColumnBuilderFactory twinFactory = [&](const rp::RipsGraph& graph,
                                               RunReport& report) {
      return std::unique_ptr<rp::ColumnBuilder>(new RecordingBuilder(
          rp::device::hostTwinFactory(budget, monitor)(graph, report), twinLog));
    };
    rp::Result gpuResult, twinResult;
    RunReport gpuReport, twinReport;
    try {
      rp::detail::executeWith(cloud, p, monitor, gpuFactory, {}, gpuResult, gpuReport);
      rp::detail::executeWith(cloud, p, monitor, twinFactory, {}, twinResult, twinReport);
    } catch (const std::exception& e) {
      expect(false, tag + ": " + e.what());
      continue;
    }
    expect(gpuResult.sparse, tag + ": the graph is not sparse");
    expect(ripsDifference(gpuResult, twinResult).empty(),
           tag + ": bars differ from the host twin's: " +
               ripsDifference(gpuResult, twinResult));
    expect(gpuLog.size() == twinLog.size(), tag + ": " + std::to_string(gpuLog.size()) +
                                                " vs " + std::to_string(twinLog.size()) +
                                                " dimensions prepared");
    std::string where;
    for (std::size_t k = 0; k < std::min(gpuLog.size(), twinLog.size()); ++k) {
      rp::PreparedDimension& g = gpuLog[k];
      rp::PreparedDimension& t = twinLog[k];
      const std::string dim = tag + ", dim " + std::to_string(k + 1);
      where += " dim " + std::to_string(k + 1) + ": x" + std::to_string(g.batches) +
               (g.simplices.empty() ? "" : " to host");
      if (g.batches == 0 || t.batches == 0)
        continue; // declined (the CPU built it), by either
      ++builtOnGpu;
      // Sorted runs per batch: their union, whatever the cut, must be the twin's.
      std::sort(g.columns.begin(), g.columns.end(), rp::device::ReverseFiltration{});
      std::sort(t.columns.begin(), t.columns.end(), rp::device::ReverseFiltration{});
      expect(sameSimplices(g.columns, t.columns), dim + ": columns differ");
      expect(g.apparentCount == t.apparentCount && g.simplexCount == t.simplexCount,
             dim + ": apparent " + std::to_string(g.apparentCount) + "/" +
                 std::to_string(t.apparentCount) + ", simplices " +
                 std::to_string(g.simplexCount) + "/" + std::to_string(t.simplexCount));
      if (!g.simplices.empty() && !t.simplices.empty()) {
        ++hostSimplices;
        expect(sameSimplices(g.simplices, t.simplices),
               dim + ": the simplices (" + std::to_string(g.simplices.size()) +
                   ") differ from the twin's or are in another order");
      }
    }
    std::printf("  %s:%s\n", tag.c_str(), where.c_str());
  }
  expect(builtOnGpu >= 4 && hostSimplices >= 1,
         "rips sparse warp builder: too few dimensions compared (" +
             std::to_string(builtOnGpu) + " built on the GPU, " +
             std::to_string(hostSimplices) + " with their simplices on the host)");
}

void ripsCases() {
  ripsDeviceStart();
  ripsGenerated();
  ripsSharedSets(ripsFolder);
  ripsMemoryAndFaults();
  ripsSparseWarpBuilder();
}

} // namespace

namespace {

// n values drawn from `levels` levels (ties on purpose), seeded.
std::vector<float> randomLevels(SimplexId n, unsigned seed, unsigned levels) {
  std::vector<float> field(n);
  std::mt19937 rng(seed);
  for (auto& x : field)
    x = float(rng() % levels);
  return field;
}

} // namespace

// The edge and triangle lists (I_E, I_F) of a GALE-GPU triangulation (sorted on the
// device) against a CPU-producer one's: the same ids for the same vertex tuples; and
// its VE rows (on the device) against the CPU's.
bool sameSimplexLists(GaleTriangulation& gpu, GaleTriangulation& cpu) {
  gpu.precondition(EV | FV);
  cpu.precondition(EV | FV);
  if (gpu.getNumberOfEdges() != cpu.getNumberOfEdges() ||
      gpu.getNumberOfTriangles() != cpu.getNumberOfTriangles() ||
      gpu.getNumberOfEdges() == 0)
    return false;
  for (SimplexId e = 0; e < cpu.getNumberOfEdges(); ++e)
    for (int k = 0; k < 2; ++k)
      if (gpu.getEdgeVertex(e, k) != cpu.getEdgeVertex(e, k))
        return false;
  for (SimplexId f = 0; f < cpu.getNumberOfTriangles(); ++f)
    for (int k = 0; k < 3; ++k)
      if (gpu.getTriangleVertex(f, k) != cpu.getTriangleVertex(f, k))
        return false;
  // VE, computed on the device from those lists
  gpu.precondition(VE);
  cpu.precondition(VE);
  for (SimplexId v = 0; v < cpu.getNumberOfVertices(); ++v) {
    if (gpu.getVertexEdgeNumber(v) != cpu.getVertexEdgeNumber(v))
      return false;
    for (int i = 0; i < cpu.getVertexEdgeNumber(v); ++i)
      if (gpu.getVertexEdge(v, i) != cpu.getVertexEdge(v, i))
        return false;
  }
  return true;
}

// The device's boundary flags and non-manifold facet count on meshes that are not a
// box: tets around a shared triangle (non-manifold), a tet apart from them
// (disconnected), and triangles around a shared edge (2D), against the explicit backend.
void galeGpuBoundaryOfOddMeshes() {
  struct Case {
    const char* name;
    int dimension;
    SimplexId vertices;
    std::vector<SimplexId> cells;
  };
  const std::vector<Case> cases = {
      {"three tets on one triangle and one apart", 3, 10, {0, 1, 2, 3, 0, 1, 2, 4, 0, 1,
                                                           2, 5, 2, 3, 6, 7, 6, 7, 8, 9}},
      {"three triangles on one edge", 2, 7, {0, 1, 2, 0, 1, 3, 0, 1, 4, 4, 5, 6}}};
  for (const Case& c : cases) {
    ExplicitTriangulation mesh(c.vertices, c.dimension, c.cells);
    mesh.precondition(BoundaryVertices);
    std::vector<double> points;
    for (SimplexId v = 0; v < c.vertices; ++v)
      points.insert(points.end(), {double(v % 3), double((v / 3) % 3), double(v / 9)});
    gale::Parameters parameters;
    parameters.producer = gale::ProducerKind::Gpu;
    parameters.gpuFactory = gpu::galeGpuProducerFactory();
    parameters.segmentCapacity = 2;
    auto gale = GaleTriangulation::fromExplicit(mesh, points, parameters);
    gale->precondition(BoundaryVertices);
    SimplexId differ = 0;
    for (SimplexId v = 0; v < c.vertices; ++v)
      differ += gale->isVertexOnBoundary(v) != mesh.isVertexOnBoundary(v);
    gale::Parameters cpu = parameters;
    cpu.producer = gale::ProducerKind::Cpu;
    auto host = GaleTriangulation::fromExplicit(mesh, points, cpu);
    expect(sameSimplexLists(*gale, *host),
           std::string("GALE GPU edge / triangle lists (") + c.name + ") differ");
    expect(differ == 0 &&
               gale->getNumberOfNonManifoldFacets() ==
                   mesh.getNumberOfNonManifoldFacets() &&
               mesh.getNumberOfNonManifoldFacets() == 1 && gale->producerName() == "gpu",
           std::string("GALE GPU boundary flags (") + c.name +
               "): " + std::to_string(differ) + " flags differ, non-manifold facets " +
               std::to_string(gale->getNumberOfNonManifoldFacets()) + " against " +
               std::to_string(mesh.getNumberOfNonManifoldFacets()));
  }
}

// GALE's GPU producer (cuda/gale): the device computes VV and the vertex star per
// segment; every row must equal the explicit backend's as a set, the critical points must
// be identical, and an injected CUDA failure ("gale producer") must switch to the CPU
// producers with a warning and the same result.
void galeGpuProducer() {
  const SimplexId nx = 48, ny = 40, nz = 36, n = nx * ny * nz;
  ImplicitTriangulation grid(nx, ny, nz);
  ExplicitTriangulation mesh = explicitCopyOf(grid);
  const std::vector<double> points = test::gridPoints(nx, ny, nz);
  const std::vector<float> field = randomLevels(n, 5, 300);
  critical_points::Output reference;
  critical_points::execute(mesh, viewOf(field), {Backend::Cpu}, Monitor{}, reference);
  for (const SimplexId capacity : {SimplexId(8), SimplexId(100)}) {
    const std::string tag = "GALE GPU producer N=" + std::to_string(capacity);
    gale::Parameters parameters;
    parameters.segmentCapacity = capacity;
    parameters.producer = gale::ProducerKind::Gpu;
    parameters.gpuFactory = gpu::galeGpuProducerFactory();
    auto gale = GaleTriangulation::fromExplicit(mesh, points, parameters);
    expect(gale->producerName() == "gpu" && gale->warnings().empty(),
           tag + ": no GPU producer: " + joined(gale->warnings()));
    gale->precondition(VV | VertexStar);
    int bad = 0;
    for (SimplexId v = 0; v < n; ++v) {
      std::vector<SimplexId> a, b, c, d;
      for (int i = 0; i < gale->getVertexNeighborNumber(v); ++i)
        a.push_back(gale->getVertexNeighbor(v, i));
      for (int i = 0; i < mesh.getVertexNeighborNumber(v); ++i)
        b.push_back(mesh.getVertexNeighbor(v, i));
      for (int i = 0; i < gale->getVertexStarNumber(v); ++i)
        c.push_back(gale->getVertexStar(v, i));
      for (int i = 0; i < mesh.getVertexStarNumber(v); ++i)
        d.push_back(mesh.getVertexStar(v, i));
      std::sort(b.begin(), b.end());
      std::sort(d.begin(), d.end());
      bad += a != b || c != d;
    }
    expect(bad == 0,
           tag + ": " + std::to_string(bad) + " vertices with other VV/star rows");
    {
      // the device's cell lists (I_T), fetched by the host, against the host's own
      gale::Parameters cpu = parameters;
      cpu.producer = gale::ProducerKind::Cpu;
      auto host = GaleTriangulation::fromExplicit(mesh, points, cpu);
      gale->ensureHostCellLists();
      bool same = gale->getNumberOfSegments() == host->getNumberOfSegments();
      for (SimplexId s = 0; same && s <= host->getNumberOfSegments(); ++s)
        same = gale->internalCellBegin(s) == host->internalCellBegin(s) &&
               gale->externalCellBegin(s) == host->externalCellBegin(s);
      for (std::size_t k = 0; same && k < host->internalCells().size(); ++k)
        same = gale->internalCells()[k] == host->internalCells()[k];
      for (std::size_t k = 0; same && k < host->externalCells().size(); ++k)
        same = gale->externalCells()[k] == host->externalCells()[k];
      expect(same && gale->internalCells().size() == host->internalCells().size() &&
                 gale->externalCells().size() == host->externalCells().size(),
             tag + ": the device's cell lists differ from the host's");
      expect(sameSimplexLists(*gale, *host),
             tag + ": the device's edge / triangle lists differ from the host's");
    }
    // the boundary flags come from the device's sort of every facet
    gale->precondition(BoundaryVertices);
    mesh.precondition(BoundaryVertices);
    SimplexId flagged = 0, differ = 0;
    for (SimplexId v = 0; v < n; ++v) {
      flagged += mesh.isVertexOnBoundary(v);
      differ += gale->isVertexOnBoundary(v) != mesh.isVertexOnBoundary(v);
    }
    expect(differ == 0 && flagged == n - (nx - 2) * (ny - 2) * (nz - 2),
           tag + ": " + std::to_string(differ) + " boundary flags differ (" +
               std::to_string(flagged) + " on the box's boundary)");
    critical_points::Output out;
    critical_points::execute(*gale, viewOf(field), {Backend::Cpu}, Monitor{}, out);
    expect(out.vertexTypes == reference.vertexTypes && out.counts == reference.counts,
           tag + ": critical points differ from the explicit backend's");
  }
  {
    // the simplicial discrete gradient through GALE-GPU (VV and the star on the device,
    // the rest by CPU producers and the consumers themselves): the explicit backend's
    // critical cells, with a batch and cache small enough to evict and run ahead
    namespace simplicial = discrete_gradient::simplicial;
    simplicial::Output expected, got;
    ExplicitTriangulation copy = explicitCopyOf(grid);
    simplicial::execute(copy, viewOf(field), {}, Monitor{}, expected);
    gale::Parameters parameters;
    parameters.producer = gale::ProducerKind::Gpu;
    parameters.gpuFactory = gpu::galeGpuProducerFactory();
    parameters.segmentsPerRequest = 96;
    parameters.cacheSegments = 512;
    auto gale = GaleTriangulation::fromExplicit(mesh, points, parameters);
    simplicial::execute(*gale, viewOf(field), {}, Monitor{}, got);
    // edges and triangles are numbered by each backend: compared as vertex tuples
    auto tuples = [](const auto& tri, const simplicial::Output& g) {
      std::vector<std::vector<std::array<SimplexId, 4>>> out(4);
      for (int d = 0; d <= 3; ++d) {
        for (const SimplexId id : g.criticalCells[d]) {
          std::array<SimplexId, 4> t{-1, -1, -1, -1};
          for (int k = 0; k <= d; ++k)
            t[k] = d == 0   ? id
                   : d == 1 ? tri.getEdgeVertex(id, k)
                   : d == 2 ? tri.getTriangleVertex(id, k)
                            : tri.getCellVertex(id, k);
          std::sort(t.begin(), t.begin() + d + 1);
          out[d].push_back(t);
        }
        std::sort(out[d].begin(), out[d].end());
      }
      return out;
    };
    expect(tuples(*gale, got) == tuples(copy, expected),
           "GALE GPU producer: the discrete gradient's critical cells differ from the "
           "explicit backend's");
    const gale::Statistics stats = gale->statistics();
    expect(stats.segmentsAhead > 0 && gale->producerName() == "gpu",
           "GALE GPU producer: no segment computed ahead of the consumers (" +
               gale->producerName() + ")");
  }
  galeGpuBoundaryOfOddMeshes();
  if (!injectFaults)
    return;
  // the boundary flags' own failure: the CPU counts them, the rest stays on the device
  runWithInjectedFault("GALE boundary fault", "gale boundary", [&] {
    gale::Parameters parameters;
    parameters.producer = gale::ProducerKind::Gpu;
    parameters.gpuFactory = gpu::galeGpuProducerFactory();
    auto gale = GaleTriangulation::fromExplicit(mesh, points, parameters);
    critical_points::Output out;
    critical_points::execute(*gale, viewOf(field), {Backend::Cpu}, Monitor{}, out);
    expect(out.vertexTypes == reference.vertexTypes && gale->producerName() == "gpu",
           "GALE boundary fault: the result differs or the producer is gone (" +
               gale->producerName() + ")");
    expect(hasCode(gale->warnings(), WarningCode::GaleGpuPartFailed) &&
               contains(joined(gale->warnings()), "boundary flags failed"),
           "GALE boundary fault: no warning: " + joined(gale->warnings()));
  });
  gale::Parameters parameters;
  parameters.producer = gale::ProducerKind::Gpu;
  parameters.gpuFactory = gpu::galeGpuProducerFactory();
  auto gale = GaleTriangulation::fromExplicit(mesh, points, parameters);
  critical_points::Output out;
  runWithInjectedFault("GALE producer fault", "gale producer", [&] {
    critical_points::execute(*gale, viewOf(field), {Backend::Cpu}, Monitor{}, out);
  });
  expect(out.vertexTypes == reference.vertexTypes,
         "GALE producer fault: the CPU producers' result differs");
  expect(hasCode(gale->warnings(), WarningCode::GaleGpuProducerFailed) &&
             contains(joined(gale->warnings()), "GPU producer failed"),
         "GALE producer fault: no warning: " + joined(gale->warnings()));
}

// The simplicial Morse-Smale complex (issue 9) through GALE's GPU producers against the
// explicit backend on the same tets: the critical cells, every label (maxima compared as
// vertex tuples: boundary facets' ids differ between backends), the arcs and the saddle
// connections' multiplicities.
void galeGpuMorseSmale() {
  namespace smsc = morse_smale_complex::simplicial;
  const SimplexId nx = 40, ny = 36, nz = 30, n = nx * ny * nz;
  ImplicitTriangulation grid(nx, ny, nz);
  ExplicitTriangulation mesh = explicitCopyOf(grid);
  const std::vector<double> points = test::gridPoints(nx, ny, nz);
  const std::vector<float> field = randomLevels(n, 7, 200);
  auto summary = [&](auto& tri) {
    smsc::Output out;
    smsc::execute(tri, viewOf(field), {}, Monitor{}, out);
    std::vector<std::vector<SimplexId>> maxima;
    for (const smsc::Extremum& m : out.maxima) {
      std::vector<SimplexId> t;
      for (int k = 0; k <= m.dimension; ++k)
        t.push_back(m.dimension == 3 ? tri.getCellVertex(m.id, k)
                                     : tri.getTriangleVertex(m.id, k));
      std::sort(t.begin(), t.end());
      maxima.push_back(t);
    }
    std::vector<std::vector<SimplexId>> labels; // none: -1 (TTK's ascending rule)
    for (const auto l : out.ascendingManifold)
      labels.push_back(l < 0 ? std::vector<SimplexId>{} : maxima[std::size_t(l)]);
    for (const auto l : out.cellAscendingManifold)
      labels.push_back(l < 0 ? std::vector<SimplexId>{} : maxima[std::size_t(l)]);
    return std::make_tuple(out.gradient.counts, out.descendingManifold, labels,
                           out.saddle1Minimum.size(), out.saddleMaximum.size(),
                           out.connections.size(), out.connectionMultiplicitySum,
                           out.boundaryMaxima);
  };
  const auto reference = summary(mesh);
  gale::Parameters parameters;
  parameters.segmentCapacity = 64;
  parameters.producer = gale::ProducerKind::Gpu;
  parameters.gpuFactory = gpu::galeGpuProducerFactory();
  auto gale = GaleTriangulation::fromExplicit(mesh, points, parameters);
  expect(gale->producerName() == "gpu",
         "GALE GPU Morse-Smale: no GPU producer: " + joined(gale->warnings()));
  expect(
      summary(*gale) == reference,
      "GALE GPU Morse-Smale: the simplicial complex differs from the explicit backend's");
}

int main(int argc, char** argv) try {
  // Line by line, so that a run cut short (a timeout on the device) keeps its output.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  while (argc > 1 && std::strncmp(argv[1], "--", 2) == 0) {
    const std::string flag = argv[1];
    if (flag == "--host-only") {
      hostOnly = true;
    } else if (flag == "--no-faults") {
      injectFaults = false;
    } else if (flag == "--geodesic-only") {
      geodesicOnly = true;
    } else if (flag == "--rips-only") {
      ripsOnly = true;
    } else if (flag == "--gale-only") {
      galeOnly = true;
    } else if (flag == "--simplicial-only") {
      simplicialOnly = true;
    } else if (flag == "--simplify-only") {
      simplifyOnly = true;
    } else if (flag == "--rips" && argc > 2) {
      ripsFolder = argv[2];
      --argc;
      ++argv;
    } else if (flag == "--surfaces" && argc > 2) {
      surfaceFolder = argv[2];
      --argc;
      ++argv;
    } else {
      std::printf("unknown option %s\n", flag.c_str());
      return 2;
    }
    --argc;
    ++argv;
  }
  std::string why;
  if (!hostOnly && !gpuAvailable(&why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  if (!hostOnly)
    std::printf("device: %s\n", gpu::deviceDescription().c_str());
  if (galeOnly && !hostOnly) {
    galeGpuProducer();
    galeGpuMorseSmale();
    std::printf("%d passed, %d failed\n", checks - failures, failures);
    return failures == 0 ? 0 : 1;
  }
  if (simplifyOnly || (!hostOnly && !geodesicOnly && !simplicialOnly && !ripsOnly)) {
    test::EqualityChecks simplification;
    test::simplificationEquality(argc > 1 ? argv[1] : "", injectFaults, simplification);
    checks += simplification.checks;
    failures += simplification.failures;
    if (simplifyOnly) {
      std::printf("%d passed, %d failed\n", checks - failures, failures);
      return failures == 0 ? 0 : 1;
    }
  }
  if (ripsOnly) {
    if (hostOnly) { // the checks on the host twin (no faults, budgets or device memory)
      ripsGenerated();
      ripsSharedSets(ripsFolder);
    } else {
      ripsCases();
    }
    std::printf("%d passed, %d failed\n", checks - failures, failures);
    return failures == 0 ? 0 : 1;
  }
  if (!geodesicOnly) {
    test::EqualityChecks simplicial;
    test::simplicialEquality(argc > 1 ? argv[1] : "", hostOnly, injectFaults, simplicial);
    checks += simplicial.checks;
    failures += simplicial.failures;
  }
  if (simplicialOnly) {
    std::printf("%d passed, %d failed\n", checks - failures, failures);
    return failures == 0 ? 0 : 1;
  }
  if (!geodesicOnly) {
    syntheticFields();
    givenOrderFields();
    saddleConnectionChains();
    if (argc > 1)
      realVolumes(argv[1]);
  }
  if (hostOnly && geodesicOnly)
    geodesicMeshes(surfaceFolder);
  if (!hostOnly) {
    if (!geodesicOnly) {
      smootherFields();
      memoryBehaviour();
      memoryBudgetFallback();
      if (injectFaults)
        faultInjection();
      galeGpuProducer();
      galeGpuMorseSmale();
    }
    geodesicMeshes(surfaceFolder);
    geodesicChunks();
    geodesicFallbacks();
    geodesicKeptDeviceState();
    if (!geodesicOnly)
      ripsCases();
  }
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::printf("FAIL: unexpected exception: %s\n", e.what());
  return 1;
}
