// The simplicial complex of implicit grids on the device against the CPU: both run
// simplicial::processGridLowerStar (GridSimplicialLowerStar.h) on the same vertex order,
// so every simplex's byte, the critical simplices and their highest vertices must be
// identical, and so must the V-path forests rooted on the device (the minimum of every
// vertex, the root or boundary exit of every top cell) and the Morse-Smale complex built
// on the GPU's gradient (labels, maxima, arcs, saddle connections). The CPU's critical
// cells satisfy Euler's relation on a box (n0 - n1 + n2 - n3 = 1), counted independently
// of the pairing. The saddle connections counted on the device (counts only; the CPU
// traces them when their paths are asked for) equal the CPU's walls on every volume and
// synthetic field, 2D (none) included. A CUDA failure mid-run (the saddle connections'
// stages too) and a too-small device budget fall back to the CPU's result with a
// warning. The persistence diagram read off the device's complex is the CPU's, row for
// row, and so is the complex answered at persistence thresholds from the cancellation
// hierarchy of each (the answer runs on the host).
#include "tests/gpu/SimplicialEquality.h"

#include "base/ScalarArray.h"
#include "core/common/BackendSelection.h"
#include "core/common/GpuDevice.h"
#include "core/discrete_gradient/PointerJumping.h"
#include "core/discrete_gradient/SimplicialGradient.h"
#include "core/discrete_gradient/SimplicialSeparatrices.h"
#include "core/morse_smale_complex/CancellationHierarchy.h"
#include "core/morse_smale_complex/ElderRoundsGpu.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplexGpu.h"
#include "core/persistence_diagram/ExtremumPairs.h"
#include "core/persistence_diagram/SimplicialPersistence.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"
#include "triangulation/io/MeshFiles.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <dirent.h>
#include <numeric>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace topogpu::test {

void EqualityChecks::expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  }
}

bool forEachRawVolume(
    const std::string& folder,
    const std::function<void(const std::string&, const std::array<SimplexId, 3>&,
                             const ScalarArrayView&)>& visit) {
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr)
    return false;
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
    const ScalarType type = m[5] == "uint8"     ? ScalarType::UInt8
                            : m[5] == "int16le" ? ScalarType::Int16
                            : m[5] == "float32" ? ScalarType::Float32
                                                : ScalarType::Float64;
    const io::RawVolume volume =
        io::readRawVolume(std::string(folder).append("/").append(name), dims, type);
    visit(name, dims, volume.view());
  }
  return true;
}

std::vector<SimplexId> ranksWithRandomTies(const ScalarArrayView& values,
                                           std::uint32_t seed) {
  std::vector<double> key(std::size_t(values.size));
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* x = static_cast<const ValueT*>(values.data);
    for (SimplexId v = 0; v < values.size; ++v)
      key[std::size_t(v)] = double(x[v]);
  });
  std::vector<SimplexId> tieBreak(key.size()), byRank(key.size());
  std::iota(tieBreak.begin(), tieBreak.end(), SimplexId(0));
  std::shuffle(tieBreak.begin(), tieBreak.end(), std::mt19937(seed));
  std::iota(byRank.begin(), byRank.end(), SimplexId(0));
  std::sort(byRank.begin(), byRank.end(), [&](SimplexId a, SimplexId b) {
    return key[a] != key[b] ? key[a] < key[b] : tieBreak[a] < tieBreak[b];
  });
  std::vector<SimplexId> rank(key.size());
  for (std::size_t r = 0; r < byRank.size(); ++r)
    rank[std::size_t(byRank[r])] = SimplexId(r);
  return rank;
}

namespace {

namespace sg = discrete_gradient::simplicial;
namespace smsc = morse_smale_complex::simplicial;

using Dims = std::array<SimplexId, 3>;

std::string tagOf(const std::string& name, const Dims& d) {
  return name + " " + std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

std::string firstWarning(const RunReport& report) {
  return report.warnings.empty() ? std::string("no warning") : report.warnings[0].text;
}

// Bytes of every dimension, critical simplices, their highest vertices, the order.
SimplexId differingBytes(const sg::Output& a, const sg::Output& b) {
  SimplexId differ = 0;
  for (int d = 0; d < 4; ++d) {
    if (a.gradient[d].size() != b.gradient[d].size())
      return -1;
    for (std::size_t i = 0; i < a.gradient[d].size(); ++i)
      differ += a.gradient[d][i] != b.gradient[d][i];
  }
  return differ;
}

bool sameGradient(const sg::Output& a, const sg::Output& b) {
  return differingBytes(a, b) == 0 && a.criticalCells == b.criticalCells &&
         a.criticalVertices == b.criticalVertices && a.counts == b.counts &&
         a.simplexCounts == b.simplexCounts;
}

void compareGradient(const std::string& name, const Dims& dims,
                     const ScalarArrayView& values, bool hostOnly,
                     EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  sg::Output cpu, gpu;
  std::vector<SimplexId> cpuOrder, gpuOrder;
  sg::execute(tri, values, {Backend::Cpu}, Monitor{}, cpu, &cpuOrder);
  const auto& c = cpu.counts;
  checks.expect(c[0] - c[1] + c[2] - c[3] == 1,
                name + ": simplicial gradient breaks Euler's relation: " +
                    std::to_string(c[0]) + " - " + std::to_string(c[1]) + " + " +
                    std::to_string(c[2]) + " - " + std::to_string(c[3]));
  if (hostOnly)
    return;
  sg::execute(tri, values, {Backend::Gpu}, Monitor{}, gpu, &gpuOrder);
  checks.expect(gpu.report.backend == "gpu",
                name + ": GPU simplicial gradient did not run (" +
                    firstWarning(gpu.report) + ")");
  checks.expect(sameGradient(cpu, gpu) && cpuOrder == gpuOrder,
                name +
                    ": simplicial gradient: " + std::to_string(differingBytes(cpu, gpu)) +
                    " simplices differ, critical cells " +
                    (cpu.criticalCells == gpu.criticalCells ? "equal" : "differ") +
                    ", highest vertices " +
                    (cpu.criticalVertices == gpu.criticalVertices ? "equal" : "differ") +
                    ", order " + (cpuOrder == gpuOrder ? "equal" : "differs"));
  const double cpuTime = cpu.report.totalSeconds(), gpuTime = gpu.report.totalSeconds();
  std::printf("  %-40s simplicial gradient: %lld %lld %lld %lld | cpu %.4f s gpu %.4f s "
              "(x%.1f)\n",
              name.c_str(), (long long)c[0], (long long)c[1], (long long)c[2],
              (long long)c[3], cpuTime, gpuTime, cpuTime / std::max(gpuTime, 1e-9));
}

bool sameArcs(const std::vector<smsc::Arc>& a, const std::vector<smsc::Arc>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const smsc::Arc& x, const smsc::Arc& y) {
                      return x.saddle == y.saddle && x.extremum == y.extremum &&
                             x.multiplicity == y.multiplicity;
                    });
}

// The connections in order with their multiplicities, their paths and sum.
bool sameConnections(const smsc::Output& a, const smsc::Output& b) {
  const bool connections = std::equal(
      a.connections.begin(), a.connections.end(), b.connections.begin(),
      b.connections.end(), [](const smsc::Connection& x, const smsc::Connection& y) {
        return x.saddle1 == y.saddle1 && x.saddle2 == y.saddle2 &&
               x.multiplicity == y.multiplicity;
      });
  const bool paths = std::equal(a.connectionPaths.begin(), a.connectionPaths.end(),
                                b.connectionPaths.begin(), b.connectionPaths.end());
  return connections && paths && a.connectionsComputed == b.connectionsComputed &&
         a.connectionMultiplicitySum == b.connectionMultiplicitySum;
}

bool sameComplex(const smsc::Output& a, const smsc::Output& b) {
  const bool maxima =
      std::equal(a.maxima.begin(), a.maxima.end(), b.maxima.begin(), b.maxima.end(),
                 [](const smsc::Extremum& x, const smsc::Extremum& y) {
                   return x.dimension == y.dimension && x.id == y.id;
                 });
  return sameGradient(a.gradient, b.gradient) && a.rank == b.rank && maxima &&
         sameConnections(a, b) && a.boundaryFacets == b.boundaryFacets &&
         a.boundaryNext == b.boundaryNext &&
         a.unlabelledDescending == b.unlabelledDescending &&
         a.unlabelledAscending == b.unlabelledAscending &&
         a.unlabelledCells == b.unlabelledCells &&
         a.ascendingManifold == b.ascendingManifold &&
         a.descendingManifold == b.descendingManifold &&
         a.cellAscendingManifold == b.cellAscendingManifold &&
         sameArcs(a.saddle1Minimum, b.saddle1Minimum) &&
         sameArcs(a.saddleMaximum, b.saddleMaximum) &&
         a.boundaryMaxima == b.boundaryMaxima;
}

double timingOf(const RunReport& report, const std::string& stage) {
  for (const auto& [name, seconds] : report.timings)
    if (name == stage)
      return seconds;
  return -1;
}

// The saddle connections counted on the device (no paths asked) against the CPU's walls
// (simplicial::detail::saddleConnections) on the GPU's gradient, which compareGradient
// holds equal to the CPU's: the same pairs in the same order (2-saddle, then 1-saddle),
// multiplicities and sum; the stage reported as the GPU's, none in 2D.
void compareConnections(const std::string& name, const Dims& dims,
                        const ScalarArrayView& values, EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  smsc::Parameters parameters;
  parameters.backend = Backend::Gpu;
  smsc::Output gpu, cpu;
  smsc::execute(tri, values, parameters, Monitor{}, gpu);
  const bool volume = gpu.gradient.dimension == 3;
  const double gpuSeconds = timingOf(gpu.report, "saddle connections (gpu)");
  checks.expect(gpu.report.backend == "gpu" && (gpuSeconds >= 0) == volume &&
                    timingOf(gpu.report, "saddle connections (cpu)") < 0,
                name + ": saddle connections did not run on the device in 3D only (" +
                    firstWarning(gpu.report) + ")");
  if (volume) {
    tri.precondition(smsc::kRequiredRelations);
    smsc::detail::saddleConnections(tri, gpu.gradient, parameters, cpu);
  }
  checks.expect(
      sameConnections(cpu, gpu),
      name + ": saddle connections differ: " + std::to_string(cpu.connections.size()) +
          " on the CPU, " + std::to_string(gpu.connections.size()) + " on the GPU");
  std::printf("  %-40s saddle connections: %zu, %llu V-paths | cpu %.4f s gpu %.4f s\n",
              name.c_str(), cpu.connections.size(),
              (unsigned long long)cpu.connectionMultiplicitySum,
              timingOf(cpu.report, "saddle connections (cpu)"), gpuSeconds);
}

// Both AscendingManifold rules (TTK's, the default, and through the boundary): every
// label, arc and count equal on CPU and GPU.
void compareComplex(const std::string& name, const Dims& dims,
                    const ScalarArrayView& values, EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  for (const smsc::AscendingSegmentation rule :
       {smsc::AscendingSegmentation::Ttk, smsc::AscendingSegmentation::ThroughBoundary}) {
    const std::string tag =
        name + (rule == smsc::AscendingSegmentation::Ttk ? " (TTK's ascending rule)"
                                                         : " (through the boundary)");
    smsc::Output cpu, gpu;
    smsc::Parameters parameters;
    parameters.ascendingSegmentation = rule;
    parameters.backend = Backend::Cpu;
    smsc::execute(tri, values, parameters, Monitor{}, cpu);
    parameters.backend = Backend::Gpu;
    smsc::execute(tri, values, parameters, Monitor{}, gpu);
    checks.expect(gpu.report.backend == "gpu", tag +
                                                   ": GPU simplicial Morse-Smale complex "
                                                   "did not run (" +
                                                   firstWarning(gpu.report) + ")");
    checks.expect(sameComplex(cpu, gpu),
                  tag + ": simplicial Morse-Smale complex differs between CPU and GPU");
    std::printf("  %-40s simplicial msc: %zu maxima, %zu connections, %lld vertices "
                "unlabelled | cpu %.4f s gpu %.4f s\n",
                tag.c_str(), cpu.maxima.size(), cpu.connections.size(),
                (long long)cpu.unlabelledAscending, cpu.report.totalSeconds(),
                gpu.report.totalSeconds());
  }
}

// The V-path forests on the device (gpu::computeSimplicialGridForests) against the
// CPU's: the descending manifold's minimum per vertex and each top cell's root or
// boundary exit (jumpToRoots over ascendingSuccessor), with the same gradient and order.
void compareForests(const std::string& name, const Dims& dims,
                    const ScalarArrayView& values, EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  sg::Output cpu;
  std::vector<SimplexId> cpuOrder, minimumOf;
  sg::execute(tri, values, {Backend::Cpu}, Monitor{}, cpu, &cpuOrder);
  tri.precondition(smsc::kRequiredRelations);
  sg::computeDescendingManifold(tri, cpu, minimumOf);
  const int top = cpu.dimension;
  std::vector<SimplexId> topRoot(std::size_t(cpu.simplexCounts[top]));
  for (SimplexId c = 0; c < cpu.simplexCounts[top]; ++c)
    topRoot[std::size_t(c)] = sg::ascendingSuccessor(tri, cpu, c);
  discrete_gradient::jumpToRoots(topRoot);

  gpu::SimplicialGradientArrays arrays;
  gpu::SimplicialGridForests forests;
  std::vector<SimplexId> order;
  RunReport report;
  gpu::computeSimplicialGridForests(sg::gridSimplicesOf(tri.dims()), values, Monitor{},
                                    arrays, order, forests, report);
  checks.expect(arrays.gradient == cpu.gradient &&
                    arrays.criticalCells == cpu.criticalCells &&
                    arrays.criticalVertices == cpu.criticalVertices && order == cpuOrder,
                name + ": device forests' gradient or order differs from the CPU's");
  checks.expect(forests.minimumOf == minimumOf,
                name + ": descending manifold (minimum per vertex) differs");
  checks.expect(forests.topRoot == topRoot,
                name + ": ascending forest (root or exit per top cell) differs");
  std::printf("  %-40s simplicial forests | gpu %.4f s\n", name.c_str(),
              report.totalSeconds());
}

// The host memory budget: under the GPU path's estimate the run is refused, naming it;
// between that estimate and the CPU path's the GPU runs, and the CPU rerun after a device
// failure is refused, naming the CPU path.
void hostBudgets(ImplicitTriangulation& tri, const ScalarArrayView& values,
                 const smsc::Output& cpu, bool injectFaults, EqualityChecks& checks) {
  smsc::Parameters parameters;
  parameters.backend = Backend::Gpu;
  smsc::Output out;
  auto refusal = [&](const char* fault) {
    std::string message;
    gpu::setInjectedFault(fault, "gpu_equality");
    try {
      smsc::execute(tri, values, parameters, Monitor{}, out);
    } catch (const Error& e) {
      message = e.what();
    }
    gpu::setInjectedFault("", "");
    return message;
  };
  parameters.memoryBudget = 1;
  std::string message = refusal("");
  checks.expect(message.find("(GPU path)") != std::string::npos &&
                    message.find("more than the memory budget of") != std::string::npos,
                "simplicial msc under a 1-byte host budget: '" + message + "'");
  const sg::ComplexSize size = sg::gridComplexSize(tri.dims(), values);
  const double gpuBytes =
      smsc::complexHostBytes(size, cpu.gradient.counts, smsc::HostPath::Gpu, true);
  const double cpuBytes = smsc::complexHostBytes(size, {}, smsc::HostPath::Cpu, true);
  if (!(gpuBytes < cpuBytes))
    return;
  parameters.memoryBudget = (gpuBytes + cpuBytes) / 2;
  message = refusal("");
  checks.expect(message.empty() && out.report.backend == "gpu" && sameComplex(cpu, out),
                "simplicial msc between the GPU and CPU estimates: the GPU does not run "
                "it ('" +
                    message + "')");
  if (!injectFaults)
    return;
  message = refusal("labels");
  checks.expect(message.find("(CPU path)") != std::string::npos,
                "simplicial msc, CPU rerun over the host budget after a device failure: "
                "not refused ('" +
                    message + "')");
}

// The Morse-Smale complex's device path: a failure after each of stages and a 1-byte
// budget give the CPU's complex (the gradient too on the CPU) with a warning. With
// keepPaths the saddle connections are traced on the CPU; without, they are counted on
// the device, and their stages are among those that can fail.
void complexFallbacks(ImplicitTriangulation& tri, const ScalarArrayView& values,
                      bool keepPaths, const std::vector<const char*>& stages,
                      EqualityChecks& checks) {
  smsc::Parameters parameters;
  parameters.backend = Backend::Cpu;
  parameters.keepConnectionPaths = keepPaths;
  smsc::Output cpu, out;
  smsc::execute(tri, values, parameters, Monitor{}, cpu);
  checks.expect(!cpu.connections.empty(),
                "complex fallbacks: a field with no connection");
  parameters.backend = Backend::Gpu;
  smsc::execute(tri, values, parameters, Monitor{}, out);
  checks.expect(out.report.backend == "gpu" && sameComplex(cpu, out),
                std::string("simplicial msc ") + (keepPaths ? "with" : "without") +
                    " connection paths: GPU differs from the CPU or did not run (" +
                    firstWarning(out.report) + ")");
  for (const char* stage : stages) {
    gpu::setInjectedFault(stage, "gpu_equality");
    smsc::execute(tri, values, parameters, Monitor{}, out);
    gpu::setInjectedFault("", "");
    checks.expect(
        out.report.backend == "cpu" && out.gradient.report.backend == "cpu" &&
            out.report.hasWarning(WarningCode::GpuOutOfMemory) && sameComplex(cpu, out),
        std::string("simplicial msc, fault in '") + stage +
            "': no CPU rerun with a warning (" + firstWarning(out.report) + ")");
  }
  setDeviceMemoryBudgetCap(DeviceMemoryBudgetCap{1, "gpu_equality"});
  smsc::execute(tri, values, parameters, Monitor{}, out);
  setDeviceMemoryBudgetCap(std::nullopt);
  checks.expect(out.report.backend == "cpu" &&
                    out.report.hasWarning(WarningCode::GpuMemoryInsufficient) &&
                    sameComplex(cpu, out),
                std::string("simplicial msc ") + (keepPaths ? "with" : "without") +
                    " connection paths within a 1-byte budget: no CPU run with a "
                    "warning (" +
                    firstWarning(out.report) + ")");
  // The host budgets with the connections on the device (no paths, as hostBudgets asks).
  if (!keepPaths)
    hostBudgets(tri, values, cpu, !stages.empty(), checks);
}

// A failure injected after a stage's allocation, and a budget too small for the run:
// the CPU's result, a warning saying why.
void fallbacks(const Dims& dims, const ScalarArrayView& values, bool injectFaults,
               EqualityChecks& checks) {
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  sg::Output cpu, out;
  sg::execute(tri, values, {Backend::Cpu}, Monitor{}, cpu);
  const std::vector<const char*> stages =
      injectFaults ? std::vector<const char*>{"upload", "vertex order", "gradient",
                                              "critical cells", "download"}
                   : std::vector<const char*>{};
  for (const char* stage : stages) {
    gpu::setInjectedFault(stage, "gpu_equality");
    sg::execute(tri, values, {Backend::Gpu}, Monitor{}, out);
    gpu::setInjectedFault("", "");
    checks.expect(
        out.report.backend == "cpu" &&
            out.report.hasWarning(WarningCode::GpuOutOfMemory) && sameGradient(cpu, out),
        std::string("simplicial gradient, fault in '") + stage +
            "': no CPU rerun with a warning (" + firstWarning(out.report) + ")");
  }
  using Stages = std::vector<const char*>;
  complexFallbacks(tri, values, true,
                   injectFaults ? Stages{"gradient", "forests", "labels", "download"}
                                : Stages{},
                   checks);
  complexFallbacks(tri, values, false,
                   injectFaults ? Stages{"saddle reachability", "saddle DAG minor",
                                         "saddle path counting", "saddle connections"}
                                : Stages{},
                   checks);
  setDeviceMemoryBudgetCap(DeviceMemoryBudgetCap{1, "gpu_equality"});
  sg::execute(tri, values, {Backend::Gpu}, Monitor{}, out);
  setDeviceMemoryBudgetCap(std::nullopt);
  checks.expect(
      out.report.backend == "cpu" &&
          out.report.hasWarning(WarningCode::GpuMemoryInsufficient) &&
          sameGradient(cpu, out),
      "simplicial gradient within a 1-byte budget: no CPU run with a warning (" +
          firstWarning(out.report) + ")");
}

// The persistence diagram (core/persistence_diagram): the device's complex, then the
// CPU's pairing, must give the CPU run's rows exactly; the same tets stored as a mesh
// (the CPU's mesh path, other simplex ids) its rows but the cells. A CUDA failure after
// each of faults: the CPU's diagram, with a warning.
void compareDiagram(const std::string& name, const Dims& dims,
                    const ScalarArrayView& values, EqualityChecks& checks,
                    const std::vector<const char*>& faults = {}) {
  namespace pd = persistence_diagram;
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  pd::Parameters parameters;
  parameters.backend = Backend::Cpu;
  pd::Diagram cpu, gpu;
  pd::execute(tri, values, parameters, Monitor{}, cpu);
  parameters.backend = Backend::Gpu;
  pd::execute(tri, values, parameters, Monitor{}, gpu);
  auto rows = [](const pd::Diagram& d, bool cells) {
    std::vector<std::array<double, 9>> out;
    for (const auto& p : d.pairs)
      out.push_back({double(p.type), cells ? double(p.birthCell) : -1.0,
                     cells ? double(p.deathCell) : -1.0, double(p.birthVertex),
                     double(p.deathVertex), p.birth, p.death, double(p.birthType),
                     double(p.isFinite)});
    return out;
  };
  checks.expect(gpu.report.backend == "gpu", name + ": persistence diagram ran on " +
                                                 gpu.report.backend + " (" +
                                                 firstWarning(gpu.report) + ")");
  checks.expect(rows(cpu, true) == rows(gpu, true),
                name + ": persistence diagram differs (" +
                    std::to_string(cpu.pairs.size()) + " vs " +
                    std::to_string(gpu.pairs.size()) + " pairs)");
  for (const char* stage : faults) {
    pd::Diagram out;
    gpu::setInjectedFault(stage, "gpu_equality");
    pd::execute(tri, values, parameters, Monitor{}, out);
    gpu::setInjectedFault("", "");
    checks.expect(out.report.backend == "cpu" &&
                      out.report.hasWarning(WarningCode::GpuOutOfMemory) &&
                      rows(out, true) == rows(cpu, true),
                  name + ": persistence diagram, fault in '" + stage +
                      "': no CPU rerun with a warning and the CPU's diagram (" +
                      firstWarning(out.report) + ")");
  }
  if (dims[0] * dims[1] * dims[2] > 300000)
    return;
  if (dims[2] > 1) { // the saddle-saddle pairs from the host's saddle connections instead
    pd::Parameters connections = parameters;
    connections.saddleConnections = true;
    pd::Diagram out;
    pd::execute(tri, values, connections, Monitor{}, out);
    checks.expect(out.report.backend == "gpu" && rows(out, true) == rows(cpu, true),
                  name + ": persistence diagram from the saddle connections (on " +
                      out.report.backend + ") differs from the boundary expansion's (" +
                      std::to_string(out.pairs.size()) + " vs " +
                      std::to_string(cpu.pairs.size()) + " pairs)");
  }
  ExplicitTriangulation mesh = explicitCopyOf(tri);
  pd::Diagram fromMesh;
  pd::execute(mesh, values, parameters, Monitor{}, fromMesh);
  checks.expect(rows(fromMesh, false) == rows(gpu, false),
                name +
                    ": persistence diagram of the grid on the device differs from its "
                    "tets' as a mesh (" +
                    std::to_string(fromMesh.pairs.size()) + " vs " +
                    std::to_string(gpu.pairs.size()) + " pairs)");
}

// The elder rule's rounds (ElderRoundsGpu.h) against the CPU's, schedule for schedule,
// on random extremum graphs and on a chain whose every round merges one edge.
void compareElderRounds(EqualityChecks& checks) {
  namespace pd = persistence_diagram;
  std::mt19937 rng(22);
  for (int trial = 0; trial < 8; ++trial) {
    const bool chain = trial == 7;
    const SimplexId nodes = chain ? 3000 : SimplexId(1) << (8 + 2 * (trial % 6));
    const SimplexId edges = chain ? nodes - 1 : 4 * nodes;
    std::vector<SimplexId> ends(std::size_t(2 * edges));
    std::vector<char> skip(static_cast<std::size_t>(edges));
    for (SimplexId e = 0; e < edges; ++e) {
      ends[std::size_t(2 * e)] = chain ? e : SimplexId(rng() % std::uint64_t(nodes));
      ends[std::size_t(2 * e + 1)] =
          chain ? e + 1 : SimplexId(rng() % std::uint64_t(nodes));
      skip[std::size_t(e)] = trial % 2 == 1 && rng() % 7 == 0;
    }
    const morse_smale_complex::ElderGraph graph{nodes, edges, ends.data(),
                                                trial % 2 == 1 ? skip.data() : nullptr};
    for (const morse_smale_complex::ElderSchedule schedule :
         {morse_smale_complex::ElderSchedule{},
          morse_smale_complex::ElderSchedule{1 << 20, 0}}) {
      std::vector<SimplexId> cpu, device;
      morse_smale_complex::ElderStats cpuStats, deviceStats;
      morse_smale_complex::elderPairs(graph, schedule, cpu, cpuStats);
      gpu::elderPairs(graph, schedule, device, deviceStats);
      checks.expect(cpu == device && cpuStats.rounds == deviceStats.rounds &&
                        cpuStats.serialEdges == deviceStats.serialEdges,
                    "elder rule, " + std::to_string(nodes) + " extrema, " +
                        std::to_string(edges) + " saddles, " +
                        std::to_string(schedule.maxRounds) +
                        " rounds at most: the GPU's kills differ from the CPU's (" +
                        std::to_string(deviceStats.rounds) + " vs " +
                        std::to_string(cpuStats.rounds) + " rounds)");
    }
  }
}

// Informational: the sweep, the CPU's rounds and the GPU's on an extremum graph of
// engine's size (100k extrema, 400k saddles joining nearby extrema).
void timeElderRounds() {
  namespace pd = persistence_diagram;
  std::mt19937 rng(7);
  const SimplexId nodes = 100000, edges = 400000;
  std::vector<SimplexId> ends(std::size_t(2 * edges));
  for (SimplexId e = 0; e < edges; ++e) {
    ends[std::size_t(2 * e)] = SimplexId(rng() % std::uint64_t(nodes));
    ends[std::size_t(2 * e + 1)] = (ends[std::size_t(2 * e)] + 1 + rng() % 20) % nodes;
  }
  const morse_smale_complex::ElderGraph graph{nodes, edges, ends.data(), nullptr};
  std::vector<SimplexId> younger;
  morse_smale_complex::ElderStats stats;
  gpu::elderPairs(graph, {}, younger, stats); // warm
  for (int pass = 0; pass < 2; ++pass) {
    const auto time = [&](auto&& run) {
      const auto start = std::chrono::steady_clock::now();
      run();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
    };
    const double sweep = time([&] {
      morse_smale_complex::elderPairs(graph, {0, 0}, younger, stats);
    });
    const double cpu =
        time([&] { morse_smale_complex::elderPairs(graph, {}, younger, stats); });
    const int cpuRounds = stats.rounds;
    const double device = time([&] { gpu::elderPairs(graph, {}, younger, stats); });
    std::printf("elder rule timing: sweep %.4f s, CPU rounds %.4f s (%d), GPU rounds "
                "%.4f s (%d)\n",
                sweep, cpu, cpuRounds, device, stats.rounds);
  }
}

// The complex at the automatic threshold and at half the largest persistence, from
// the hierarchy of the CPU's and of the GPU's complex: equal answers.
void compareSimplified(const std::string& name, const Dims& dims,
                       const ScalarArrayView& values, EqualityChecks& checks) {
  namespace pd = persistence_diagram;
  ImplicitTriangulation tri(dims[0], dims[1], dims[2]);
  // The whole complex, as the filter and the CLI build the hierarchy from it (the
  // persistence path's own complex leaves out the arcs).
  smsc::Parameters parameters;
  std::array<smsc::Output, 2> complexes;
  std::array<smsc::CancellationHierarchy, 2> hierarchies;
  for (int k = 0; k < 2; ++k) {
    parameters.backend = k == 0 ? Backend::Cpu : Backend::Gpu;
    smsc::execute(tri, values, parameters, Monitor{}, complexes[std::size_t(k)]);
    pd::Diagram diagram;
    pd::diagramOfComplex(tri, complexes[std::size_t(k)], values, Monitor{}, diagram);
    smsc::buildHierarchy(complexes[std::size_t(k)],
                         pd::extremumPairs(tri, diagram, complexes[std::size_t(k)]),
                         pd::saddlePairs(diagram), hierarchies[std::size_t(k)]);
  }
  const double automatic = smsc::legibleThreshold(hierarchies[0], smsc::kLegibleExtrema,
                                                  smsc::kLegibleExtrema);
  for (const double T : {automatic, 0.5 * hierarchies[0].largestPersistence}) {
    std::array<smsc::SimplifiedComplex, 2> a;
    for (int k = 0; k < 2; ++k)
      smsc::simplify(complexes[std::size_t(k)], hierarchies[std::size_t(k)], T,
                     smsc::AscendingSegmentation::Ttk, a[std::size_t(k)]);
    const bool same = a[0].counts == a[1].counts && a[0].kept == a[1].kept &&
                      a[0].descendingManifold == a[1].descendingManifold &&
                      a[0].ascendingManifold == a[1].ascendingManifold &&
                      a[0].cellAscendingManifold == a[1].cellAscendingManifold &&
                      a[0].morseSmaleManifold == a[1].morseSmaleManifold &&
                      sameArcs(a[0].saddle1Minimum, a[1].saddle1Minimum) &&
                      sameArcs(a[0].saddleMaximum, a[1].saddleMaximum) &&
                      a[0].keptConnections == a[1].keptConnections;
    checks.expect(same && complexes[1].report.backend == "gpu",
                  name + ": the complex at persistence " + std::to_string(T) +
                      " differs between the CPU's and the GPU's hierarchy (GPU ran on " +
                      complexes[1].report.backend + ")");
  }
}

// Tie-heavy fields as bench_persistence.py's generated one (a smooth field on 8 levels
// plus noise in {0, 1}): many saddles whose boundaries meet, so the parallel pairing
// (the saddle boundary expansion's concurrent claims) meets many conflicts.
void tieHeavyDiagrams(EqualityChecks& checks) {
  std::mt19937 rng(160);
  for (const Dims& dims : {Dims{64, 64, 64}, Dims{96, 80, 72}, Dims{120, 90, 1}}) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> values(static_cast<std::size_t>(n));
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId row = v / dims[0], layer = row / dims[1];
      const double x = double(v % dims[0]), y = double(row % dims[1]), z = double(layer);
      const double smooth =
          std::sin(x / 9.0) + std::sin(y / 7.0 + 1.0) + std::sin(z / 11.0 + 2.0);
      values[std::size_t(v)] =
          std::uint8_t(std::floor((smooth + 3.0) / 6.0 * 7.999) + double(rng() % 2));
    }
    compareDiagram(tagOf("8 levels + noise uint8", dims), dims, viewOf(values), checks);
  }
}

void syntheticFields(bool hostOnly, bool injectFaults, EqualityChecks& checks) {
  std::mt19937 rng(17);
  const Dims shapes[] = {{33, 17, 9}, {64, 64, 1},  {2, 2, 2},    {40, 1, 30},
                         {1, 27, 31}, {65, 47, 33}, {128, 96, 80}};
  for (const Dims& dims : shapes) {
    const SimplexId n = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> ties(std::size_t(n), 0);
    for (auto& x : ties)
      x = std::uint8_t(rng() % 3);
    std::vector<float> noise(std::size_t(n), 0.0f), constant(std::size_t(n), 4.0f);
    for (auto& x : noise)
      x = float(rng() % (1u << 20));
    std::vector<double> smooth(std::size_t(n), 0.0);
    for (SimplexId v = 0; v < n; ++v) {
      const SimplexId row = v / dims[0], layer = row / dims[1];
      const double x = double(v % dims[0]), y = double(row % dims[1]), z = double(layer);
      smooth[std::size_t(v)] =
          std::sin(0.3 * x) * std::cos(0.21 * y) + std::sin(0.17 * z + 0.1 * x);
    }
    compareGradient(tagOf("ties {0,1,2} uint8", dims), dims, viewOf(ties), hostOnly,
                    checks);
    compareGradient(tagOf("noise float32", dims), dims, viewOf(noise), hostOnly, checks);
    compareGradient(tagOf("constant float32", dims), dims, viewOf(constant), hostOnly,
                    checks);
    compareGradient(tagOf("sines float64", dims), dims, viewOf(smooth), hostOnly, checks);
    if (!hostOnly) {
      compareForests(tagOf("ties {0,1,2} uint8", dims), dims, viewOf(ties), checks);
      compareForests(tagOf("noise float32", dims), dims, viewOf(noise), checks);
      compareConnections(tagOf("ties {0,1,2} uint8", dims), dims, viewOf(ties), checks);
      compareConnections(tagOf("noise float32", dims), dims, viewOf(noise), checks);
      compareConnections(tagOf("constant float32", dims), dims, viewOf(constant), checks);
    }
    // The ties broken by a given order (TTK's `<field>_Order`) instead of vertex ids.
    const std::vector<SimplexId> given = ranksWithRandomTies(viewOf(ties), 23);
    ScalarArrayView ordered = viewOf(ties);
    ordered.order = given.data();
    compareGradient(tagOf("ties, given order", dims), dims, ordered, hostOnly, checks);
    if (!hostOnly && n <= 200000) {
      compareComplex(tagOf("ties, given order", dims), dims, ordered, checks);
      compareDiagram(tagOf("ties, given order", dims), dims, ordered, checks);
      compareComplex(tagOf("ties {0,1,2} uint8", dims), dims, viewOf(ties), checks);
      compareComplex(tagOf("sines float64", dims), dims, viewOf(smooth), checks);
      compareComplex(tagOf("noise float32", dims), dims, viewOf(noise), checks);
      compareComplex(tagOf("constant float32", dims), dims, viewOf(constant), checks);
      compareDiagram(tagOf("ties {0,1,2} uint8", dims), dims, viewOf(ties), checks);
      compareDiagram(tagOf("noise float32", dims), dims, viewOf(noise), checks);
      compareSimplified(tagOf("ties {0,1,2} uint8", dims), dims, viewOf(ties), checks);
      compareSimplified(tagOf("sines float64", dims), dims, viewOf(smooth), checks);
    }
    if (!hostOnly && dims[0] == 65) {
      fallbacks(dims, viewOf(noise), injectFaults, checks);
      if (injectFaults)
        compareDiagram(tagOf("ties {0,1,2} uint8, faults", dims), dims, viewOf(ties),
                       checks, {"forests", "saddle ends", "download", "elder rule"});
    }
  }
  if (!hostOnly) {
    tieHeavyDiagrams(checks);
    compareElderRounds(checks);
    timeElderRounds();
  }
}

void realVolumes(const std::string& folder, bool hostOnly, EqualityChecks& checks) {
  forEachRawVolume(folder, [&](const std::string& name, const Dims& dims,
                               const ScalarArrayView& values) {
    compareGradient(name, dims, values, hostOnly, checks);
    if (hostOnly)
      return;
    compareForests(name, dims, values, checks);
    compareConnections(name, dims, values, checks);
    // The complex's CPU stages take minutes on the largest volumes.
    if (dims[0] * dims[1] * dims[2] <= 300000) {
      compareComplex(name, dims, values, checks);
      compareDiagram(name, dims, values, checks);
    }
  });
}

} // namespace

void simplicialEquality(const std::string& volumeFolder, bool hostOnly, bool injectFaults,
                        EqualityChecks& checks) {
  syntheticFields(hostOnly, injectFaults, checks);
  realVolumes(volumeFolder, hostOnly, checks);
}

} // namespace topogpu::test
