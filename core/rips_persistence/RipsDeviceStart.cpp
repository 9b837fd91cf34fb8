// When and how the GPU takes over a Rips run: the device starts on another thread while
// the CPU begins, and each dimension goes to the device's column builder from the first
// one that finds the device ready (or big enough to wait for it); a device failure
// reruns the whole call on the CPU.
#include "RipsDeviceLogic.h"
#include "RipsPersistence.h"
#include "RipsPersistenceGpu.h"

#include "base/Timer.h"
#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "core/common/GpuDevice.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <system_error>
#include <utility>
#include <vector>

namespace topogpu::rips_persistence {

namespace {

// The device starting on another thread, seen from the run (its thread only): ready()
// never waits; usable() waits for it (abort checked) and settles the backend once, with
// resolveBackend's warnings where it would have put them and the start's timing.
class DeviceGate {
public:
  DeviceGate(std::shared_future<detail::DeviceStart> device, std::size_t baseBytes,
             const Monitor& monitor, RunReport& report)
      : device_(std::move(device)), baseBytes_(baseBytes), monitor_(monitor),
        report_(report), warningsAt_(report.warnings.size()) {}
  bool ready() const {
    return settled_ ||
           device_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
  bool usable() {
    if (settled_)
      return usable_;
    while (device_.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
      monitor_.checkAbort();
    const detail::DeviceStart& start = device_.get();
    report_.timings.emplace_back("device start (gpu)", start.seconds);
    RunReport choice;
    usable_ = chooseBackend(Backend::Gpu, start.usable, start.whyNot, baseBytes_,
                            start.budgetBytes, choice) == Backend::Gpu;
    const std::size_t at = std::min(warningsAt_, report_.warnings.size());
    report_.warnings.insert(report_.warnings.begin() + std::ptrdiff_t(at),
                            choice.warnings.begin(), choice.warnings.end());
    settled_ = true;
    return usable_;
  }

private:
  std::shared_future<detail::DeviceStart> device_;
  std::size_t baseBytes_;
  const Monitor& monitor_;
  RunReport& report_;
  std::size_t warningsAt_;
  bool settled_ = false, usable_ = false;
};

// A ColumnBuilder that declines (the CPU builds the dimension) while the device starts,
// unless the dimension is big enough to wait for it (WaitRule), and hands every
// dimension from the first that finds the device ready to the builder it then makes.
class StartingBuilder final : public ColumnBuilder {
public:
  StartingBuilder(const RipsGraph& graph, const ColumnBuilderFactory& factory,
                  DeviceGate& gate, SimplexId waitSimplices)
      : graph_(graph), factory_(factory), gate_(gate),
        waitSimplices_(waitSimplices), counts_{double(graph.n)} {}
  bool prepare(int dim, std::vector<Simplex>& facets, const std::vector<Simplex>* given,
               bool keepSimplices, const std::vector<SimplexId>& clearedReduced,
               PreparedDimension& out, RunReport& report) override {
    if (!builder_) {
      if (!gate_.ready() &&
          expectedSimplices(dim, facets.size()) <= double(waitSimplices_))
        return false;
      if (!gate_.usable())
        return false;
      builder_ = factory_(graph_, report);
    }
    return builder_->prepare(dim, facets, given, keepSimplices, clearedReduced, out,
                             report);
  }

private:
  // The simplices of `dim` before they are made: dimension 1 gets its own simplices
  // (the edges), a higher one its facets (all of them while no builder kept any). From
  // the counts c of the two dimensions below, c[d-1]^2 / c[d-2] * d / (d+1): a complete
  // complex's count times (n-d+1)/(n-d), and the growth of the last dimension for a
  // partial one.
  double expectedSimplices(int dim, std::size_t facets) {
    const std::size_t below = std::size_t(std::max(dim, 1));
    if (counts_.size() <= below)
      counts_.resize(below + 1, 0.0);
    counts_[below] = double(facets);
    if (dim <= 1)
      return double(facets);
    const double older = counts_[below - 1];
    return older > 0
               ? double(facets) * double(facets) / older * double(dim) / double(dim + 1)
               : 0.0;
  }

  const RipsGraph& graph_;
  const ColumnBuilderFactory& factory_;
  DeviceGate& gate_;
  SimplexId waitSimplices_;
  std::vector<double> counts_; // simplices per dimension seen so far (0: the points)
  std::unique_ptr<ColumnBuilder> builder_;
};

// The device's start on a background thread; synchronous once a call of this process
// found it usable (the context exists: the checks then take microseconds, and every
// dimension goes to the device as soon as the run asks).
std::shared_future<detail::DeviceStart> startDevice() {
  static std::atomic<bool> started{false};
  const auto start = [] {
    detail::DeviceStart state;
    const Timer timer;
    state.usable = gpuAvailable(&state.whyNot);
    state.budgetBytes = state.usable ? deviceMemoryBudget(gpu::freeDeviceMemory()) : 0;
    state.seconds = timer.seconds();
    if (state.usable)
      started.store(true);
    return state;
  };
  if (!started.load()) {
    try {
      return std::async(std::launch::async, start).share();
    } catch (const std::system_error&) {
      // no thread to be had: start it here
    }
  }
  std::promise<detail::DeviceStart> now;
  now.set_value(start());
  return now.get_future().share();
}

} // namespace

namespace detail {

std::size_t gpuBaseBytes(const RipsInput& input, const Parameters& parameters) {
  const std::size_t n = std::size_t(std::max<SimplexId>(input.numberOfPoints, 0));
  const std::size_t table =
      (std::size_t(std::max(parameters.maxDimension, 0)) + 3) * (n + 1) * 8;
  const std::size_t graph = input.format == InputFormat::Sparse
                                ? (n + 1) * 8 + input.edges.size() * 2 * 12
                                : n * (n - (n > 0 ? 1 : 0)) / 2 * 4;
  // One smallest batch: the cofacets of one simplex (at most n), at the builder's bytes
  // per simplex, plus a little for the facets and the scans.
  return table + graph + n * device::kBytesPerSimplex + (std::size_t(1) << 16);
}

void executeStarting(const RipsInput& input, const Parameters& parameters,
                     const Monitor& monitor, std::shared_future<DeviceStart> device,
                     const ColumnBuilderFactory& factory,
                     const DistanceFunction& deviceDistances, Result& result,
                     RunReport& report, const WaitRule& wait) {
  result = Result{};
  validate(input, parameters);
  DeviceGate gate(std::move(device), gpuBaseBytes(input, parameters), monitor, report);
  // executeWith asks for the distances first thing: the device's when it is ready by now
  // or the matrix is worth waiting for.
  DistanceFunction distances;
  const double entries =
      double(input.numberOfPoints) * double(input.numberOfPoints - 1) / 2;
  if (deviceDistances && input.format == InputFormat::PointCloud &&
      (gate.ready() || entries > double(wait.distances)) && gate.usable())
    distances = deviceDistances;
  ColumnBuilderFactory starting;
  if (factory)
    starting = [&](const RipsGraph& graph, RunReport&) {
      return std::unique_ptr<ColumnBuilder>(
          new StartingBuilder(graph, factory, gate, wait.simplices));
    };
  runWithFallback(
      Backend::Gpu, "rips persistence", report,
      [&] {
        executeWith(input, parameters, monitor, starting, distances, result, report);
        gate.usable(); // settles the backend (and waits for the start) if nothing did
      },
      [&] { executeWith(input, parameters, monitor, {}, {}, result, report); });
  if (!gate.usable())
    report.backend = "cpu";
}

void executeOnDevice(const RipsInput& input, const Parameters& parameters,
                     const Monitor& monitor, Result& result, RunReport& report) {
  // The device memory a GPU step may plan for: 7/8 of what is free now (the rest for
  // Thrust's scratch and other processes), capped by the budget cap
  // (setDeviceMemoryBudgetCap).
  const auto budget = [] {
    const std::size_t free = gpu::freeDeviceMemory();
    return deviceMemoryBudget(free - free / 8);
  };
  detail::executeStarting(
      input, parameters, monitor, startDevice(),
      [&](const RipsGraph& graph, RunReport& r) {
        return gpu::makeRipsColumnBuilder(graph, budget(), monitor, r);
      },
      [&](const RipsInput& in, std::vector<float>& lower, RunReport& r) {
        gpu::ripsPointDistances(in.points, in.numberOfPoints, in.pointDimension, budget(),
                                lower, r);
      },
      result, report);
}

} // namespace detail

} // namespace topogpu::rips_persistence
