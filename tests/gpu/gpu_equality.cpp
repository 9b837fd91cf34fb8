// CPU-versus-GPU equality on the device: vertex order and critical point classes must be
// identical, vertex for vertex, on real volumes and synthetic fields. Exit code 0 when
// all pass, 1 on any mismatch, 77 (skip) when no GPU is present. No GoogleTest: the GPU
// machine has none.
#include "core/common/BackendSelection.h"
#include "core/common/VertexOrder.h"
#include "core/critical_points/CriticalPoints.h"
#include "cuda/common/GpuDevice.h"
#include "triangulation/implicit/ImplicitTriangulation.h"
#include "triangulation/io/MeshFiles.h"

#include <cmath>
#include <cstdio>
#include <dirent.h>
#include <random>
#include <regex>
#include <string>
#include <vector>

using namespace topogpu;

namespace {

int failures = 0, checks = 0;

void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  }
}

// Runs both backends on one field and compares every vertex.
void compareCriticalPoints(const std::string& name, const std::array<SimplexId, 3>& dims,
                           const ScalarArrayView& values) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  critical_points::Output cpu, gpu;
  critical_points::execute(tri, values, {Backend::Cpu}, Monitor{}, cpu);
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
  // Morse-theoretic sanity on a box (chi = 1): min - s1 + s2 - max is fixed for 3D
  // non-degenerate fields; checked where no degenerate vertex spoils it.
  const auto& c = gpu.counts;
  const double cpuTime = cpu.report.totalSeconds(), gpuTime = gpu.report.totalSeconds();
  std::printf("  %-40s %9lld verts  min %7lld s1 %7lld s2 %7lld max %7lld deg %5lld | "
              "cpu %.4f s gpu "
              "%.4f s (x%.1f)\n",
              name.c_str(), (long long)cpu.vertexTypes.size(), (long long)c[0],
              (long long)c[1], (long long)c[2], (long long)c[3], (long long)c[4], cpuTime,
              gpuTime, cpuTime / std::max(gpuTime, 1e-9));
}

void compareOrder(const std::string& name, const ScalarArrayView& values) {
  std::vector<SimplexId> cpu(values.size), gpu(values.size);
  RunReport cpuReport, gpuReport;
  computeVertexOrder(values, cpu.data(), Backend::Cpu, cpuReport);
  computeVertexOrder(values, gpu.data(), Backend::Gpu, gpuReport);
  expect(cpuReport.backend == "cpu" && gpuReport.backend == "gpu",
         name + ": vertex order ran on " + cpuReport.backend + " and " +
             gpuReport.backend);
  expect(cpu == gpu, name + ": vertex orders differ");
}

void syntheticFields() {
  std::mt19937 rng(7);
  // Massive ties: a handful of distinct values.
  for (auto dims :
       {std::array<SimplexId, 3>{33, 17, 9}, std::array<SimplexId, 3>{64, 64, 1},
        std::array<SimplexId, 3>{2, 2, 2}, std::array<SimplexId, 3>{40, 1, 30},
        std::array<SimplexId, 3>{128, 96, 80}}) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> ties(n);
    for (auto& x : ties)
      x = std::uint8_t(rng() % 4);
    const std::string tag = std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                            "x" + std::to_string(dims[2]);
    compareOrder("ties " + tag, viewOf(ties));
    compareCriticalPoints("ties uint8 " + tag, dims, viewOf(ties));
    std::vector<double> smooth(n);
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId row = v / dims[0], layer = row / dims[1];
      const double x = double(v % dims[0]), y = double(row % dims[1]), z = double(layer);
      smooth[v] = std::sin(0.3 * x) * std::cos(0.21 * y) + std::sin(0.17 * z + 0.1 * x);
    }
    compareCriticalPoints("sines float64 " + tag, dims, viewOf(smooth));
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

} // namespace

int main(int argc, char** argv) try {
  std::string why;
  if (!gpuAvailable(&why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  std::printf("device: %s\n", gpu::deviceDescription().c_str());
  syntheticFields();
  if (argc > 1)
    realVolumes(argv[1]);
  memoryBehaviour();
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::printf("FAIL: unexpected exception: %s\n", e.what());
  return 1;
}
