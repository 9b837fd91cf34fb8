// gpu_equality's cases for the topological simplification
// (core/topological_simplification): the sweeps on the device against the CPU's, values
// byte for byte and the order rank for rank, on random, tie-heavy and smooth grids (2D
// and 3D) and the small shared volumes, with thresholds that remove few and most pairs,
// and in constraint mode; a CUDA failure injected in a sweep stage falls back to the
// CPU's result with a warning.
#include "tests/gpu/SimplificationEquality.h"

#include "core/common/GpuDevice.h"
#include "core/topological_simplification/TopologicalSimplification.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace topogpu::test {

namespace {

namespace ts = topological_simplification;
using Dims = std::array<SimplexId, 3>;

std::string tagOf(const std::string& what, const Dims& dims, double threshold) {
  return what + " " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
         std::to_string(dims[2]) + " T=" + std::to_string(threshold);
}

void compare(const std::string& name, const Dims& dims, const ScalarArrayView& values,
             ts::Parameters parameters, EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  ts::Output cpu, gpu;
  parameters.backend = Backend::Cpu;
  ts::execute(tri, values, parameters, Monitor{}, cpu);
  parameters.backend = Backend::Gpu;
  ts::execute(tri, values, parameters, Monitor{}, gpu);
  checks.expect(gpu.report.backend == "gpu",
                name + ": simplification ran on " + gpu.report.backend);
  checks.expect(cpu.values == gpu.values, name + ": simplified values differ");
  checks.expect(cpu.order == gpu.order, name + ": simplified order differs");
  checks.expect(cpu.iterations == gpu.iterations,
                name + ": iterations " + std::to_string(cpu.iterations) + " vs " +
                    std::to_string(gpu.iterations));
  checks.expect(cpu.changedVertices == gpu.changedVertices &&
                    cpu.reorderedVertices == gpu.reorderedVertices,
                name + ": changed/flattened counts differ");
}

void compareThresholds(const std::string& what, const Dims& dims,
                       const ScalarArrayView& values, EqualityChecks& checks) {
  for (double relative : {0.02, 0.3, 0.9}) {
    ts::Parameters p;
    p.persistenceThreshold = relative;
    p.thresholdIsRelative = true;
    compare(tagOf(what, dims, relative), dims, values, p, checks);
  }
}

void constraintCase(const Dims& dims, const ScalarArrayView& values,
                    EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  persistence_diagram::Diagram diagram;
  persistence_diagram::execute(tri, values, {}, Monitor{}, diagram);
  ts::Parameters p;
  p.useConstraints = true;
  for (std::size_t i = 0; i < diagram.pairs.size(); i += 3) // every third pair's ends
    for (SimplexId v : {diagram.pairs[i].birthVertex, diagram.pairs[i].deathVertex})
      p.constraints.push_back({v, -1});
  compare(tagOf("constraints", dims, 0), dims, values, p, checks);
}

void faultFallback(const Dims& dims, const ScalarArrayView& values,
                   EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  ts::Parameters p;
  p.persistenceThreshold = 0.3;
  p.thresholdIsRelative = true;
  p.backend = Backend::Cpu;
  ts::Output cpu, faulty;
  ts::execute(tri, values, p, Monitor{}, cpu);
  for (const char* stage : {"keys", "distances", "sweep", "check"}) {
    gpu::setInjectedFault(stage, "gpu_equality simplification");
    p.backend = Backend::Gpu;
    ts::execute(tri, values, p, Monitor{}, faulty);
    gpu::setInjectedFault("", "");
    checks.expect(faulty.report.backend == "cpu" &&
                      faulty.report.hasWarning(WarningCode::GpuOutOfMemory) &&
                      faulty.values == cpu.values && faulty.order == cpu.order,
                  std::string("simplification fault in ") + stage +
                      ": no CPU fallback with the CPU's result");
  }
}

} // namespace

void simplificationEquality(const std::string& volumeFolder, bool injectFaults,
                            EqualityChecks& checks) {
  std::mt19937 rng(23);
  const Dims shapes[] = {{33, 17, 9}, {64, 64, 1}, {40, 1, 30}, {65, 47, 33}};
  for (const Dims& dims : shapes) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> ties(static_cast<std::size_t>(n));
    for (auto& x : ties)
      x = std::uint8_t(rng() % 4);
    std::vector<float> noise(static_cast<std::size_t>(n));
    for (auto& x : noise)
      x = float(rng() % (1u << 20));
    std::vector<double> smooth(static_cast<std::size_t>(n));
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId row = v / dims[0], layer = row / dims[1];
      const double x = double(v % dims[0]), y = double(row % dims[1]), z = double(layer);
      smooth[std::size_t(v)] = std::sin(0.3 * x) * std::cos(0.21 * y) +
                               std::sin(0.17 * z + 0.1 * x) + 1e-3 * double(rng() % 100);
    }
    compareThresholds("ties uint8", dims, viewOf(ties), checks);
    compareThresholds("noise float32", dims, viewOf(noise), checks);
    compareThresholds("sines float64", dims, viewOf(smooth), checks);
    constraintCase(dims, viewOf(noise), checks);
    if (injectFaults && dims[0] == 65)
      faultFallback(dims, viewOf(noise), checks);
  }
  forEachRawVolume(volumeFolder, [&](const std::string& name, const Dims& dims,
                                     const ScalarArrayView& values) {
    // m4_density, bucky, ... and engine: the input diagram's CPU stages bound the rest.
    if (dims[0] * dims[1] * dims[2] <= 300000 || name.rfind("engine", 0) == 0)
      compareThresholds(name, dims, values, checks);
  });
}

} // namespace topogpu::test
