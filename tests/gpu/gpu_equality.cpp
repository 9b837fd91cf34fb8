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
#include "core/common/BackendSelection.h"
#include "core/common/VertexOrder.h"
#include "core/critical_points/CriticalPoints.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/eikonal/Eikonal.h"
#include "core/eikonal/EikonalMesh.h"
#include "core/eikonal/Patches.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/SaddleConnections.h"
#include "core/scalar_field_smoother/ScalarFieldSmoother.h"
#include "cuda/common/GpuDevice.h"
#include "tests/unit/EikonalMeshes.h"
#include "tests/unit/SaddleConnectionsChain.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"
#include "triangulation/io/MeshFiles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <random>
#include <regex>
#include <string>
#include <vector>

using namespace topogpu;

namespace {

int failures = 0, checks = 0;
bool hostOnly = false, injectFaults = true, geodesicOnly = false;
std::string surfaceFolder;

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
  expect(gpu.report.backend == "gpu",
         name + ": GPU path did not run (" +
             (gpu.report.warnings.empty() ? std::string("?") : gpu.report.warnings[0]) +
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
  expect(gpu.report.backend == "gpu",
         name + ": GPU discrete gradient did not run (" +
             (gpu.report.warnings.empty() ? std::string("?") : gpu.report.warnings[0]) +
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
  morse_smale_complex::execute(tri, values, {Backend::Cpu}, Monitor{}, cpu);
  expect(cpu.unlabelledAscending == 0 && cpu.unlabelledDescending == 0 &&
             cpu.unlabelledCells == 0,
         name + ": Morse-Smale complex left vertices or cells unlabelled");
  if (hostOnly)
    return;
  morse_smale_complex::execute(tri, values, {Backend::Gpu}, Monitor{}, gpu);
  expect(gpu.report.backend == "gpu",
         name + ": GPU Morse-Smale complex did not run (" +
             (gpu.report.warnings.empty() ? std::string("?") : gpu.report.warnings[0]) +
             ")");
  expect(cpu.ascendingManifold == gpu.ascendingManifold &&
             cpu.descendingManifold == gpu.descendingManifold &&
             cpu.cellDescendingManifold == gpu.cellDescendingManifold &&
             cpu.maxima == gpu.maxima && cpu.saddle1Minimum == gpu.saddle1Minimum &&
             cpu.saddleMaximum == gpu.saddleMaximum &&
             cpu.gradient.gradient == gpu.gradient.gradient &&
             cpu.gradient.criticalCells == gpu.gradient.criticalCells &&
             cpu.saddleConnections.arcs == gpu.saddleConnections.arcs &&
             cpu.saddleConnections.multiplicitySum ==
                 gpu.saddleConnections.multiplicitySum,
         name + ": Morse-Smale complex labels or arcs differ between CPU and GPU");
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
  expect(ran,
         name + ": GPU saddle connections did not run (" +
             (gpuReport.warnings.empty() ? std::string("?") : gpuReport.warnings[0]) +
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

// The scalar field smoother: the GPU's output must equal the CPU's bit for bit (both
// run SmootherStencil.h's function, same neighbour order, explicit round-to-nearest).
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
  expect(gpuReport.backend == "gpu",
         name + ": GPU smoother did not run (" +
             (gpuReport.warnings.empty() ? std::string("?") : gpuReport.warnings[0]) +
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
    std::vector<std::int64_t> wide(n);
    std::normal_distribution<float> normal(0.f, 1.f);
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId row = v / dims[0], layer = row / dims[1];
      sines[v] =
          std::sin(0.3 * double(v % dims[0])) * std::cos(0.21 * double(row % dims[1])) +
          0.1 * double(layer);
      noise[v] = normal(rng);
      bytes[v] = std::uint8_t(rng());
      wide[v] = std::int64_t(rng()) * 4096 - (std::int64_t(1) << 40);
    }
    compareSmoother("smooth sines float64 " + tag, dims, sines, 5, false);
    compareSmoother("smooth noise float32 " + tag, dims, noise, 3, true);
    compareSmoother("smooth uint8 " + tag, dims, bytes, 1, false);
    compareSmoother("smooth int64 " + tag, dims, wide, 2, false);
  }
}

void realVolumes(const std::string& folder) {
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) {
    std::printf("  (no volume folder %s: real volumes skipped)\n", folder.c_str());
    return;
  }
  const std::regex pattern(
      R"((.*)_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw)");
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir))
    names.push_back(entry->d_name);
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::smatch m;
    if (!std::regex_match(name, m, pattern))
      continue;
    const std::array<SimplexId, 3> dims{std::stoll(m[2]), std::stoll(m[3]),
                                        std::stoll(m[4])};
    const std::string type = m[5] == "int16le" ? "int16" : std::string(m[5]);
    const io::RawVolume volume = io::readRawVolume(
        std::string(folder).append("/").append(name), dims, parseScalarType(type));
    compareOrder(name, volume.view());
    compareCriticalPoints(name, dims, volume.view());
    compareDiscreteGradient(name, dims, volume.view());
    compareMorseSmaleComplex(name, dims, volume.view());
    compareSaddleConnections(name, dims, volume.view());
  }
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

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines)
    all += l + "\n";
  return all;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Runs `run` with TOPOGPU_TEST_GPU_FAULT=stage and checks that the device memory in use
// came back to its level before the run (within 16 MiB of allocator slack).
template <typename Run>
void runWithInjectedFault(const std::string& tag, const char* stage, Run&& run) {
  const std::size_t before = gpu::deviceMemoryInUse();
  setenv("TOPOGPU_TEST_GPU_FAULT", stage, 1);
  run();
  unsetenv("TOPOGPU_TEST_GPU_FAULT");
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
    expect(contains(warnings, "critical points") && contains(warnings, stage) &&
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
               mscOut.ascendingManifold == mscReference.ascendingManifold &&
               mscOut.cellDescendingManifold == mscReference.cellDescendingManifold &&
               mscOut.descendingManifold == mscReference.descendingManifold &&
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
    expect(contains(warnings, "vertex order") && contains(warnings, stage) &&
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
    setenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "65536", 1);
    parameters.backend = requested;
    morse_smale_complex::execute(tri, viewOf(field), parameters, Monitor{}, out);
    unsetenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
    const std::string warnings = joined(out.report.warnings);
    expect(out.report.backend == "cpu", tag + ": ran on " + out.report.backend);
    expect(contains(warnings, "of GPU memory but only 0.1 MiB are free") &&
               contains(warnings, "TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES"),
           std::string(tag).append(": no warning naming the memory: ").append(warnings));
    expect(out.report.peakDeviceBytes == 0,
           tag + ": device memory used: " + std::to_string(out.report.peakDeviceBytes));
    for (const auto& timing : out.report.timings)
      expect(!contains(timing.first, "(gpu)"),
             tag + ": a stage ran on the GPU: " + timing.first);
    expect(out.gradient.criticalCells == reference.gradient.criticalCells &&
               out.ascendingManifold == reference.ascendingManifold &&
               out.descendingManifold == reference.descendingManifold &&
               out.cellDescendingManifold == reference.cellDescendingManifold &&
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
// Stated tolerance, GPU vs the CPU solvers: the GPU computes in double with the host's
// arithmetic (PatchSolve.h shared, FMA contraction off), so it equals the host-side
// patchFIM (Patches.h: the same rounds, Jacobi order and convergence tests) bit for bit;
// against FMM and meshFIM the differences come only from the epsilon-convergence (each
// solver stops a vertex within epsilon = 1e-6 of the mean edge time of its fixed point,
// in its own update order), the same bound as between the CPU solvers: 1e-4 of the mean
// edge length. That is below float32 rounding of the output distances on these meshes
// (distances ~ 1 to 100 edges; float32 spacing 6e-8 relative), so "CPU and GPU agree up
// to float rounding" holds for the float32 arrays the filter writes.

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

eikonal::Result geodesic(const eikonal::Surface& s, eikonal::Parameters p,
                         eikonal::Solver solver, RunReport& report) {
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  p.solver = solver;
  eikonal::Result r;
  eikonal::execute(tri, s.points.data(), p, Monitor{}, r, report);
  return r;
}

// The host-side patchFIM on the arrays execute builds for the GPU.
eikonal::PatchFimState hostPatchFim(const eikonal::Surface& s,
                                    const eikonal::Parameters& p) {
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  tri.precondition(eikonal::kRequiredRelations);
  eikonal::detail::Mesh mesh;
  eikonal::detail::buildMesh(tri, s.points.data(), p, mesh);
  eikonal::PatchArrays arrays;
  std::vector<std::string> warnings;
  eikonal::buildPatchArrays(mesh, p.patchSize, p.useMetis, arrays, warnings);
  eikonal::PatchFimState state;
  state.value.assign(s.vertices(), HUGE_VAL);
  state.label.assign(s.vertices(), -1);
  state.seed.assign(s.vertices(), 0);
  for (SimplexId v : p.seeds) {
    state.value[v] = 0;
    state.label[v] = v;
    state.seed[v] = 1;
  }
  eikonal::PatchFimSettings settings;
  settings.internalIterations = p.internalIterations;
  settings.epsilon = p.epsilon * mesh.meanEdgeTime;
  settings.stopDistance = p.stopDistance;
  settings.maxRounds = p.maxIterations;
  eikonal::runPatchFimHost(arrays, settings, Monitor{}, state);
  for (SimplexId v = 0; v < s.vertices(); ++v) {
    if (state.value[v] > p.stopDistance || state.value[v] == HUGE_VAL) {
      state.value[v] = HUGE_VAL;
      state.label[v] = -1;
    }
  }
  return state;
}

void compareGeodesic(const std::string& name, const eikonal::Surface& s,
                     const eikonal::Parameters& parameters) {
  const double tol = 1e-4 * meanEdge(s);
  RunReport fmmReport, fimReport, gpuReport;
  const eikonal::Result fmm = geodesic(s, parameters, eikonal::Solver::Fmm, fmmReport);
  const eikonal::Result fim = geodesic(s, parameters, eikonal::Solver::FimMt, fimReport);
  const eikonal::PatchFimState host = hostPatchFim(s, parameters);
  eikonal::Result gpu;
  if (hostOnly) {
    // --host-only checks these checks with the host-side patchFIM in the GPU's place.
    gpu.solver = eikonal::Solver::Gpu;
    gpu.distance = host.value;
    gpu.seedIdentifier = host.label;
    gpu.iterations = host.rounds;
    gpu.localSolves = host.solves;
    gpu.localSolvesPerVertex = double(host.solves) / double(s.vertices());
    gpu.converged = host.converged;
    gpu.unreached = SimplexId(std::count(host.value.begin(), host.value.end(), HUGE_VAL));
    gpuReport.backend = "gpu";
  } else {
    gpu = geodesic(s, parameters, eikonal::Solver::Gpu, gpuReport);
  }
  expect(gpu.solver == eikonal::Solver::Gpu && gpuReport.backend == "gpu",
         name + ": patchFIM did not run on the GPU: " + joined(gpuReport.warnings));
  expect(gpu.converged, name + ": patchFIM hit the iteration cap");
  const double stop = parameters.stopDistance;
  const double dFmm = maxDifference(gpu.distance, fmm.distance, stop, tol);
  const double dFim = maxDifference(gpu.distance, fim.distance, stop, tol);
  expect(dFmm < tol,
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
  expect(host.rounds == gpu.iterations && host.solves == gpu.localSolves,
         name + ": rounds/solves " + std::to_string(gpu.iterations) + "/" +
             std::to_string(gpu.localSolves) + " vs host " + std::to_string(host.rounds) +
             "/" + std::to_string(host.solves));
  // Voronoi ids: where the nearest seed is clear (its single-seed distance beats the
  // next by more than two edges, far above the tolerance), the GPU names it; elsewhere
  // it names a seed within two edges of the nearest.
  if (parameters.seeds.size() > 1 && parameters.seeds.size() <= 4 && stop == HUGE_VAL) {
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
              "%lld rounds, %.1f solves/v, %d patches %s)  |gpu-fmm| %.2e tol %.2e\n",
              name.c_str(), static_cast<long long>(s.vertices()),
              fmmReport.totalSeconds(), fimReport.totalSeconds(),
              gpuReport.totalSeconds(), onDevice(gpuReport), gpu.iterations,
              gpu.localSolvesPerVertex, gpu.patches, gpu.partition.c_str(), dFmm, tol);
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
    eikonal::Parameters bfs = seededAt({3});
    bfs.useMetis = false;
    compareGeodesic("regular square 257^2, bfs patches", s, bfs);
    eikonal::Parameters stop = seededAt({257 * 128 + 128});
    stop.stopDistance = 0.3;
    compareGeodesic("regular square 257^2, stop 0.3", s, stop);
  }
  compareGeodesic("irregular square 301^2", square(301, 2.0, 0.3, 5), seededAt({45000}));
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

// Fault injection, the memory budget and repeated runs for patchFIM.
void geodesicFallbacks() {
  const eikonal::Surface s = eikonal::square(200, 1.0, 0.2, 8);
  const double tol = 1e-4 * meanEdge(s);
  const eikonal::Parameters p = seededAt({0, 20000});
  RunReport report;
  const eikonal::Result reference = geodesic(s, p, eikonal::Solver::Fmm, report);
  if (injectFaults) {
    for (const char* stage : {"upload", "iterate", "download"}) {
      const std::string tag = std::string("patchFIM, fault in '") + stage + "'";
      eikonal::Result out;
      runWithInjectedFault(tag, stage,
                           [&] { out = geodesic(s, p, eikonal::Solver::Gpu, report); });
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
    setenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "65536", 1);
    const eikonal::Result out = geodesic(s, p, solver, report);
    unsetenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
    const std::string tag = std::string("patchFIM under a 64 KiB budget (") +
                            eikonal::solverName(solver) + ")";
    expect(out.solver == eikonal::Solver::FimMt && report.backend == "cpu" &&
               report.peakDeviceBytes == 0 &&
               maxDifference(out.distance, reference.distance) < tol,
           tag + ": did not fall back to fim-mt");
    expect(contains(joined(report.warnings), "of GPU memory"),
           tag + ": no warning naming the memory: " + joined(report.warnings));
  }
  const eikonal::Result autoRun = geodesic(s, p, eikonal::Solver::Auto, report);
  expect(autoRun.solver == eikonal::Solver::Gpu && report.warnings.empty(),
         "patchFIM: auto did not pick the GPU: " + joined(report.warnings));
  // Repeated runs release their device memory.
  const eikonal::Surface large = eikonal::square(700, 1.0, 0.2, 9);
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

} // namespace

// GALE's GPU producer (cuda/gale): the device computes VV and the vertex star per
// segment; every row must equal the explicit backend's as a set, the critical points must
// be identical, and an injected CUDA failure ("gale producer") must switch to the CPU
// producers with a warning and the same result.
void galeGpuProducer() {
  const SimplexId nx = 48, ny = 40, nz = 36, n = nx * ny * nz;
  ImplicitTriangulation grid(nx, ny, nz);
  ExplicitTriangulation mesh = explicitCopyOf(grid);
  std::vector<double> points;
  for (SimplexId z = 0; z < nz; ++z)
    for (SimplexId y = 0; y < ny; ++y)
      for (SimplexId x = 0; x < nx; ++x)
        points.insert(points.end(), {double(x), double(y), double(z)});
  std::vector<float> field(n);
  std::mt19937 rng(5);
  for (auto& x : field)
    x = float(rng() % 300);
  critical_points::Output reference;
  critical_points::execute(mesh, viewOf(field), {Backend::Cpu}, Monitor{}, reference);
  for (const SimplexId capacity : {SimplexId(8), SimplexId(100)}) {
    const std::string tag = "GALE GPU producer N=" + std::to_string(capacity);
    gale::Parameters parameters;
    parameters.segmentCapacity = capacity;
    parameters.producer = gale::ProducerKind::Gpu;
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
    critical_points::Output out;
    critical_points::execute(*gale, viewOf(field), {Backend::Cpu}, Monitor{}, out);
    expect(out.vertexTypes == reference.vertexTypes && out.counts == reference.counts,
           tag + ": critical points differ from the explicit backend's");
  }
  if (!injectFaults)
    return;
  gale::Parameters parameters;
  parameters.producer = gale::ProducerKind::Gpu;
  auto gale = GaleTriangulation::fromExplicit(mesh, points, parameters);
  critical_points::Output out;
  runWithInjectedFault("GALE producer fault", "gale producer", [&] {
    critical_points::execute(*gale, viewOf(field), {Backend::Cpu}, Monitor{}, out);
  });
  expect(out.vertexTypes == reference.vertexTypes,
         "GALE producer fault: the CPU producers' result differs");
  expect(contains(joined(gale->warnings()), "GPU producer failed"),
         "GALE producer fault: no warning: " + joined(gale->warnings()));
}

int main(int argc, char** argv) try {
  while (argc > 1 && std::strncmp(argv[1], "--", 2) == 0) {
    const std::string flag = argv[1];
    if (flag == "--host-only") {
      hostOnly = true;
    } else if (flag == "--no-faults") {
      injectFaults = false;
    } else if (flag == "--geodesic-only") {
      geodesicOnly = true;
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
  if (!geodesicOnly) {
    syntheticFields();
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
    }
    geodesicMeshes(surfaceFolder);
    geodesicFallbacks();
  }
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::printf("FAIL: unexpected exception: %s\n", e.what());
  return 1;
}
