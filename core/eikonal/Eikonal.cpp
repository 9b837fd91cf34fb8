#include "Eikonal.h"

#include "EikonalGpu.h"
#include "EikonalMesh.h"
#include "Patches.h"
#include "Preparation.h"
#include "Problem.h"
#include "SolverChoice.h"
#include "base/Timer.h"
#include "core/common/BackendSelection.h"
#include "core/common/DeviceWarmUp.h"
#include "core/common/Fallback.h"
#include "core/eikonal/EikonalGpu.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <sstream>
#include <utility>

namespace topogpu::eikonal {

const char* solverName(Solver solver) {
  switch (solver) {
  case Solver::Fmm:
    return "fmm";
  case Solver::Fim:
    return "fim";
  case Solver::FimMt:
    return "fim-mt";
  case Solver::Gpu:
    return "gpu";
  case Solver::Auto:
    return "auto";
  }
  return "?";
}

Solver parseSolver(const std::string& name) {
  for (Solver s : {Solver::Fmm, Solver::Fim, Solver::FimMt, Solver::Gpu, Solver::Auto}) {
    if (name == solverName(s))
      return s;
  }
  throw Error("unknown solver '" + name + "' (expected auto, fmm, fim, fim-mt or gpu)");
}

std::size_t patchFimDeviceBytes(SimplexId vertices, SimplexId triangles) {
  // Per vertex: value and label twice (32), the announced value (8), two round stamps
  // (8), the seed flag, about 1.5 local slots (vertex id, slot patch and solve offset,
  // 16 each) and readers (4 + 4 per halo entry); per triangle: three solves (and some
  // split ones) of 16 bytes.
  const double bytes = 86.0 * double(vertices) + 3.3 * 16.0 * double(triangles);
  return std::size_t(bytes) + (std::size_t(64) << 20); // + the kernels' lists, slack
}

void toFloat32(const double* distance, std::size_t count, float* out) {
  // In parallel; the error names the first vertex outside float32's range.
  constexpr std::size_t kBlock = std::size_t(1) << 16;
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  const std::size_t firstBad = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, blocks), SIZE_MAX,
      [&](const tbb::blocked_range<std::size_t>& r, std::size_t bad) {
        for (std::size_t b = r.begin(); b < r.end(); ++b) {
          const std::size_t end = std::min(count, (b + 1) * kBlock);
          for (std::size_t i = b * kBlock; i < end; ++i) {
            const double d = distance[i];
            out[i] = float(d); // +inf converts to +inf
            if (d < HUGE_VAL && (out[i] == HUGE_VALF || (d > 0 && out[i] < FLT_MIN)))
              bad = std::min(bad, i);
          }
        }
        return bad;
      },
      [](std::size_t a, std::size_t b) { return std::min(a, b); });
  if (firstBad != SIZE_MAX) {
    std::ostringstream s;
    s.precision(6);
    s << "the distance of vertex " << firstBad << " is " << distance[firstBad]
      << ", outside float32's range (1.17549e-38 to 3.40282e+38): use double "
         "precision";
    throw Error(s.str());
  }
}

std::vector<float> toFloat32(const std::vector<double>& distance) {
  std::vector<float> out(distance.size());
  toFloat32(distance.data(), distance.size(), out.data());
  return out;
}

namespace {

using detail::Mesh;
using detail::VertexUpdate;
constexpr double kInf = HUGE_VAL;

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

void validate(const ExplicitTriangulation& tri, const Parameters& parameters) {
  if (tri.getNumberOfVertices() == 0)
    throw Error("the mesh is empty (no vertices)");
  if (tri.getDimension() != 2)
    throw Error("geodesic distance needs a triangle mesh; this mesh has tetrahedra");
  if (parameters.seeds.empty())
    throw Error("no seed vertex was given (at least one is needed)");
  for (SimplexId s : parameters.seeds) {
    if (s < 0 || s >= tri.getNumberOfVertices())
      throw Error("seed vertex " + std::to_string(s) + " is out of range (the mesh has " +
                  std::to_string(tri.getNumberOfVertices()) + " vertices)");
  }
  if (std::isnan(parameters.stopDistance) || !(parameters.stopDistance >= 0))
    throw Error("the stop distance must be >= 0 (or +inf), got " +
                number(parameters.stopDistance));
  if (!(parameters.epsilon > 0) || !std::isfinite(parameters.epsilon))
    throw Error("epsilon must be finite and positive, got " + number(parameters.epsilon));
  if (parameters.maxIterations < 1)
    throw Error("the iteration cap must be at least 1, got " +
                std::to_string(parameters.maxIterations));
  if (parameters.patchSize < kMinPatchSize || parameters.patchSize > kMaxPatchSize)
    throw Error("the patch size must be between " + std::to_string(kMinPatchSize) +
                " and " + std::to_string(kMaxPatchSize) + ", got " +
                std::to_string(parameters.patchSize));
  if (parameters.internalIterations < 1 ||
      parameters.internalIterations > kMaxInternalIterations)
    throw Error("the internal iterations must be between 1 and " +
                std::to_string(kMaxInternalIterations) + ", got " +
                std::to_string(parameters.internalIterations));
  if (std::isnan(parameters.bandWidth) || !(parameters.bandWidth > 0))
    throw Error("the band width must be > 0 (or +inf), got " +
                number(parameters.bandWidth));
  if (std::isnan(parameters.exactStartRadius))
    throw Error("the exact start radius must be a number (negative: automatic), got NaN");
  if (parameters.maxUnfoldingSteps < 1 ||
      parameters.maxUnfoldingSteps > kMaxUnfoldingSteps)
    throw Error("the unfolding steps must be between 1 and " +
                std::to_string(kMaxUnfoldingSteps) + ", got " +
                std::to_string(parameters.maxUnfoldingSteps));
  const PatchFimLaunch& launch = parameters.patchFimLaunch;
  if (launch.blocksPerSm < 0 || launch.blocksPerSm > kMaxPatchFimBlocksPerSm)
    throw Error("patchFIM's blocks per multiprocessor must be between 0 (no cap) and " +
                std::to_string(kMaxPatchFimBlocksPerSm) + ", got " +
                std::to_string(launch.blocksPerSm));
  if (launch.lanes < 0 || launch.lanes > kMaxPatchFimLanes ||
      (launch.lanes & (launch.lanes - 1)) != 0)
    throw Error(
        "patchFIM's lanes must be 1, 2, 4 or 8 (0: chosen by the patch size), got " +
        std::to_string(launch.lanes));
  if (launch.chunk < 1 || launch.chunk > kMaxPatchFimChunk)
    throw Error("patchFIM's chunk must be between 1 and " +
                std::to_string(kMaxPatchFimChunk) + " rounds, got " +
                std::to_string(launch.chunk));
}

// Values, labels and what each solver counts, in the mesh's units; `seed` flags the
// vertices fixed from the start (detail::Start).
struct State {
  std::vector<double> value;
  std::vector<SimplexId> label;
  std::vector<std::uint8_t> seed;
  long long solves = 0;
  long long iterations = 0;
  bool converged = true;
  SimplexId exactVertices = 0;
  double exactRadius = 0; // mesh length units
};

// The CPU solvers' per-vertex start from the start list.
void initialise(const Mesh& mesh, const detail::FixedStart& fixed, State& state) {
  detail::Start start;
  detail::expandStart(fixed, mesh.vertices, start);
  state.value = std::move(start.value);
  state.label = std::move(start.label);
  state.seed = std::move(start.fixed);
}

// Checks for an abort and reports progress (the share of vertices reached, in steps of
// 1%) on each tick from the calling thread.
class Pacer {
public:
  Pacer(const Monitor& monitor, SimplexId total) : monitor_(monitor), total_(total) {}
  void tick(SimplexId done) {
    monitor_.checkAbort();
    const double f =
        0.99 * double(std::min(done, total_)) / double(std::max<SimplexId>(total_, 1));
    if (f > last_ + 0.01) {
      last_ = f;
      monitor_.report(f);
    }
  }

private:
  const Monitor& monitor_;
  SimplexId total_;
  double last_ = 0;
};

// Fast marching: vertices accepted in increasing value from a binary heap (lazy
// deletion: stale entries are skipped); an update reads accepted values only, and when
// v is accepted only the triangles of its neighbours that read v are solved again.
void runFmm(const Mesh& mesh, const Parameters& parameters, const Monitor& monitor,
            State& state) {
  enum : std::uint8_t { Far = 0, Trial = 1, Alive = 2 };
  std::vector<std::uint8_t> status(std::size_t(mesh.vertices), Far);
  using Entry = std::pair<double, SimplexId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  const auto valueOf = [&](SimplexId u) {
    return status[u] == Alive ? state.value[u] : kInf;
  };
  const auto labelOf = [&](SimplexId u) { return state.label[u]; };
  const auto relax = [&](SimplexId v) {
    detail::forEachDownwind(mesh, v, [&](SimplexId u) {
      if (status[u] == Alive)
        return;
      const VertexUpdate up = detail::updateVertex(mesh, u, valueOf, labelOf, v);
      state.solves += up.solves;
      if (up.value < state.value[u] && up.value <= parameters.stopDistance) {
        state.value[u] = up.value;
        state.label[u] = up.label;
        status[u] = Trial;
        heap.push({up.value, u});
      }
    });
  };
  for (SimplexId v = 0; v < mesh.vertices; ++v) {
    if (state.seed[v])
      status[v] = Alive;
  }
  for (SimplexId v = 0; v < mesh.vertices; ++v) {
    if (state.seed[v])
      relax(v);
  }
  Pacer pacer(monitor, mesh.vertices);
  SimplexId accepted = 0;
  while (!heap.empty()) {
    const auto [value, v] = heap.top();
    heap.pop();
    if (status[v] == Alive || value != state.value[v])
      continue;
    status[v] = Alive;
    ++accepted;
    if ((accepted & 0x3ff) == 0)
      pacer.tick(accepted);
    relax(v);
  }
  state.iterations = accepted;
  for (SimplexId v = 0; v < mesh.vertices; ++v) {
    if (status[v] != Alive && !state.seed[v]) {
      state.value[v] = kInf;
      state.label[v] = -1;
    }
  }
}

// The vertices to start from: the neighbours of the seeds (Algorithm 2.1's
// initialisation), each once.
std::vector<SimplexId> initialActiveList(const Mesh& mesh, const State& state,
                                         std::vector<std::uint8_t>& inList) {
  std::vector<SimplexId> list;
  for (SimplexId v = 0; v < mesh.vertices; ++v) {
    if (!state.seed[v])
      continue;
    detail::forEachDownwind(mesh, v, [&](SimplexId u) {
      if (!state.seed[u] && !inList[u]) {
        inList[u] = 1;
        list.push_back(u);
      }
    });
  }
  return list;
}

Warning capWarning(long long iterations, std::size_t active) {
  return {WarningCode::IterationCap,
          "meshFIM stopped at the iteration cap (" + std::to_string(iterations) +
              " sweeps) with " + std::to_string(active) +
              " vertices still active: distances there and beyond may be too large"};
}

// meshFIM, Algorithm 2.1: each sweep updates the active vertices in list order, every
// new value used at once (Gauss-Seidel); a vertex whose value changed by less than
// epsilon leaves the list and updates its potentially downwind neighbours (those of
// greater value, section 2.4), which join the list when their value dropped by more
// than epsilon. Values only decrease, so it terminates. Joining vertices wait for the
// next sweep: appended to the sweep in progress (one reading of the paper) they carry
// first guesses far ahead of the front, and on adaptive meshes the corrections then cost
// 14 times more local solves (turbineblade.ply: 625 per vertex instead of 44).
void runFim(const Mesh& mesh, const Parameters& parameters, double epsilon,
            const Monitor& monitor, State& state, RunReport& report) {
  std::vector<std::uint8_t> inList(std::size_t(mesh.vertices), 0);
  std::vector<SimplexId> list = initialActiveList(mesh, state, inList), next;
  const auto valueOf = [&](SimplexId u) { return state.value[u]; };
  const auto labelOf = [&](SimplexId u) { return state.label[u]; };
  Pacer pacer(monitor, mesh.vertices);
  SimplexId reached = 0;
  while (!list.empty()) {
    if (state.iterations == parameters.maxIterations) {
      state.converged = false;
      report.warnings.push_back(capWarning(state.iterations, list.size()));
      break;
    }
    ++state.iterations;
    pacer.tick(reached);
    next.clear();
    for (std::size_t i = 0; i < list.size(); ++i) {
      if ((i & 0x3ff) == 0x3ff)
        pacer.tick(reached);
      const SimplexId v = list[i];
      const double p = state.value[v];
      const VertexUpdate up = detail::updateVertex(mesh, v, valueOf, labelOf);
      state.solves += up.solves;
      if (up.value < p) {
        if (p == kInf)
          ++reached;
        state.value[v] = up.value;
        state.label[v] = up.label;
      }
      if (p - state.value[v] > epsilon) {
        next.push_back(v);
        continue;
      }
      const double settled = state.value[v];
      detail::forEachDownwind(mesh, v, [&](SimplexId u) {
        // Causal updates: v cannot lower a value at or below its own.
        if (inList[u] || state.seed[u] || state.value[u] <= settled)
          return;
        const double before = state.value[u];
        const VertexUpdate nb = detail::updateVertex(mesh, u, valueOf, labelOf);
        state.solves += nb.solves;
        if (nb.value < before) {
          if (before == kInf)
            ++reached;
          state.value[u] = nb.value;
          state.label[u] = nb.label;
          if (before - nb.value > epsilon && nb.value <= parameters.stopDistance) {
            inList[u] = 1;
            next.push_back(u);
          }
        }
      });
      inList[v] = 0;
    }
    for (SimplexId v : next)
      inList[v] = 1;
    list.swap(next);
  }
}

// meshFIM on threads (section 2.4): each sweep splits the active list into blocks that
// TBB tasks process as the single-threaded sweep does (Gauss-Seidel within a block,
// asynchronous between blocks). Values are atomics lowered by compare-and-swap, so
// they only decrease and a task may read a neighbour's value from before or after
// another task's write: the converged values differ from the single-threaded ones (and
// between runs) within the epsilon-convergence tolerance. A label is written after its
// value and may come from a concurrent, equally good update.
void runFimMt(const Mesh& mesh, const Parameters& parameters, double epsilon,
              const Monitor& monitor, State& state, RunReport& report) {
  const SimplexId nv = mesh.vertices;
  std::vector<std::uint8_t> initial(std::size_t(nv), 0);
  std::vector<SimplexId> list = initialActiveList(mesh, state, initial);
  std::vector<std::atomic<double>> value(static_cast<std::size_t>(nv));
  std::vector<std::atomic<SimplexId>> label(static_cast<std::size_t>(nv));
  std::vector<std::atomic<std::uint8_t>> inList(static_cast<std::size_t>(nv));
  tbb::parallel_for(SimplexId(0), nv, [&](SimplexId v) {
    value[v].store(state.value[v], std::memory_order_relaxed);
    label[v].store(state.label[v], std::memory_order_relaxed);
    inList[v].store(initial[v], std::memory_order_relaxed);
  });
  initial = {};
  const auto valueOf = [&](SimplexId u) {
    return value[u].load(std::memory_order_relaxed);
  };
  const auto labelOf = [&](SimplexId u) {
    return label[u].load(std::memory_order_relaxed);
  };
  // Lowers u's value to up.value unless another task went lower; true when it did.
  const auto lower = [&](SimplexId u, const VertexUpdate& up) {
    double current = value[u].load(std::memory_order_relaxed);
    while (up.value < current) {
      if (value[u].compare_exchange_weak(current, up.value, std::memory_order_relaxed)) {
        label[u].store(up.label, std::memory_order_relaxed);
        return true;
      }
    }
    return false;
  };
  struct Local {
    std::vector<SimplexId> next;
    long long solves = 0;
    SimplexId reached = 0;
  };
  tbb::enumerable_thread_specific<Local> locals;
  const std::size_t threads =
      std::size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
  Pacer pacer(monitor, nv);
  SimplexId reached = 0;
  std::vector<SimplexId> next;
  while (!list.empty()) {
    if (state.iterations == parameters.maxIterations) {
      state.converged = false;
      report.warnings.push_back(capWarning(state.iterations, list.size()));
      break;
    }
    ++state.iterations;
    pacer.tick(reached);
    // The active list is the front: a few thousand vertices on a 1M-vertex mesh, so a
    // fixed grain of 256 made fewer chunks than 16 threads. Eight chunks per thread
    // (at least 16 vertices each) keep them all busy and balanced.
    const std::size_t grain =
        std::clamp<std::size_t>(list.size() / (8 * threads), 16, 256);
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, list.size(), grain),
        [&](const tbb::blocked_range<std::size_t>& r) {
          Local& local = locals.local();
          for (std::size_t i = r.begin(); i < r.end(); ++i) {
            const SimplexId v = list[i];
            const double p = valueOf(v);
            const VertexUpdate up = detail::updateVertex(mesh, v, valueOf, labelOf);
            local.solves += up.solves;
            if (lower(v, up))
              local.reached += p == kInf;
            const double settled = valueOf(v);
            if (p - settled > epsilon) {
              local.next.push_back(v); // stays active
              continue;
            }
            inList[v].store(0, std::memory_order_relaxed);
            detail::forEachDownwind(mesh, v, [&](SimplexId u) {
              if (state.seed[u] || inList[u].load(std::memory_order_relaxed))
                return;
              const double before = valueOf(u);
              if (before <= settled)
                return;
              const VertexUpdate nb = detail::updateVertex(mesh, u, valueOf, labelOf);
              local.solves += nb.solves;
              if (!lower(u, nb))
                return;
              local.reached += before == kInf;
              if (before - nb.value > epsilon && nb.value <= parameters.stopDistance &&
                  inList[u].exchange(1, std::memory_order_relaxed) == 0)
                local.next.push_back(u);
            });
          }
        });
    next.clear();
    for (Local& local : locals) {
      next.insert(next.end(), local.next.begin(), local.next.end());
      state.solves += local.solves;
      reached += local.reached;
      local.next.clear();
      local.solves = 0;
      local.reached = 0;
    }
    // No repeats: a kept vertex never left the list and a new one was claimed once.
    list.swap(next);
  }
  tbb::parallel_for(SimplexId(0), nv, [&](SimplexId v) {
    state.value[v] = value[v].load(std::memory_order_relaxed);
    state.label[v] = label[v].load(std::memory_order_relaxed);
  });
}

// Gpu and Auto: patchFIM on the device where it is asked for or expected to win and the
// device can run it (the patches built, or kept in reuse), else, or when the device
// fails, meshFIM-MT. Returns the solver that ran; timer restarts where a CPU solver
// starts (the caller times it as that solver's).
Solver runPatchFimOrFimMt(const Mesh& mesh, const Parameters& parameters,
                          const Parameters& inUnits, double epsilon,
                          const detail::FixedStart& fixed, std::uint64_t meshKey,
                          bool meshCached, Preparation* reuse, const Monitor& monitor,
                          Timer& timer, State& state, Result& result, RunReport& report) {
  Solver ran = parameters.solver;
  const std::uint64_t patchKey = patchFingerprint(meshKey, parameters);
  const bool patchesCached = reuse && reuse->hasPatches && reuse->patchKey == patchKey;
  // Auto asks for the device only where patchFIM is expected to win end to end (the
  // start still under way counts), so a CPU choice never waits for it.
  AutoInputs costInputs;
  costInputs.vertices = mesh.vertices;
  costInputs.cpuThreads = std::max(1, tbb::this_task_arena::max_concurrency());
  costInputs.patchesReady = patchesCached;
  costInputs.reruns = meshCached ? kExpectedReruns : 0;
  costInputs.deviceReadyIn = deviceReadyIn();
  const bool tryGpu = parameters.solver == Solver::Gpu || autoPrefersGpu(costInputs);
  const double waited = tryGpu ? waitForDevice() : 0.0;
  if (waited > 1e-3)
    report.timings.emplace_back("device start (wait)", waited);
  // The device memory a kept device state of these patches already holds is needed
  // again, not in addition.
  const bool resident = patchesCached && reuse->device != nullptr;
  const Backend resolved =
      tryGpu
          ? resolveBackend(
                parameters.solver == Solver::Gpu ? Backend::Gpu : Backend::Auto,
                resident ? 0 : patchFimDeviceBytes(mesh.vertices, mesh.triangles), report)
          : Backend::Cpu;
  runWithFallback(
      resolved, "patchFIM", report,
      [&] {
        Timer patchTimer;
        PatchArrays built;
        if (!patchesCached) {
          if (reuse) {
            reuse->device.reset(); // the device's copy of the old patches
            reuse->hasPatches = false;
          }
          buildPatchArrays(mesh, parameters.patchSize, parameters.useMetis,
                           reuse ? reuse->patches : built, report.warnings,
                           detail::seedFlags(mesh, parameters).data());
        }
        const PatchArrays& arrays = reuse ? reuse->patches : built;
        if (reuse) {
          reuse->hasPatches = true;
          reuse->patchKey = patchKey;
        }
        report.timings.emplace_back(patchesCached ? "patches (cached)" : "patches (cpu)",
                                    patchTimer.seconds());
        monitor.checkAbort();
        const PatchFimSettings settings = detail::patchFimSettings(mesh, parameters);
        PatchFimState patchState;
        std::unique_ptr<gpu::PatchFimResident> once;
        std::unique_ptr<gpu::PatchFimResident>& device = reuse ? reuse->device : once;
        try {
          gpu::solvePatchFim(arrays, settings, fixed.fixed, monitor, patchState, report,
                             device);
        } catch (...) {
          device.reset(); // a failed or aborted run keeps nothing on the device
          throw;
        }
        if (once) {
          // A run that keeps nothing: its device memory goes back now.
          timer.reset();
          once.reset();
          report.timings.emplace_back("release (gpu)", timer.seconds());
        }
        if (!patchState.converged)
          report.warnings.push_back(
              {WarningCode::IterationCap,
               "patchFIM stopped at the iteration cap (" +
                   std::to_string(patchState.rounds) + " rounds) with " +
                   std::to_string(patchState.activeAtCap) +
                   " patches still active: distances there and beyond may be too "
                   "large"});
        state.value = std::move(patchState.value);
        state.label = std::move(patchState.label);
        state.iterations = patchState.rounds;
        state.solves = patchState.solves;
        state.converged = patchState.converged;
        result.patches = arrays.patches;
        result.patchRounds = patchState.patchRounds;
        result.partition = arrays.method;
        ran = Solver::Gpu;
      },
      [&] {
        // Nothing of the GPU attempt is kept.
        timer.reset();
        initialise(mesh, fixed, state);
        state.solves = 0;
        state.iterations = 0;
        state.converged = true;
        result.patches = 0;
        result.patchRounds = 0;
        result.partition.clear();
        runFimMt(mesh, inUnits, epsilon, monitor, state, report);
        ran = Solver::FimMt;
      });
  return ran;
}

// The warnings about the mesh and what stayed unreached.
void addMeshWarnings(const ExplicitTriangulation& triangulation, const Mesh& mesh,
                     const Parameters& parameters, const Result& result,
                     RunReport& report) {
  if (result.unreached > 0)
    report.warnings.push_back(
        {WarningCode::UnreachedVertices,
         std::to_string(result.unreached) + " of " + std::to_string(mesh.vertices) +
             " vertices are unreached (distance +inf): " +
             (parameters.stopDistance < kInf ? "beyond the stop distance, " : "") +
             "in no triangle, or on a component without a seed"});
  if (mesh.degenerateTriangles > 0)
    report.warnings.push_back({WarningCode::DegenerateTriangles,
                               std::to_string(mesh.degenerateTriangles) +
                                   " degenerate (zero-area) triangles are used through "
                                   "their edges only"});
  const SimplexId nonManifold = triangulation.getNumberOfNonManifoldFacets();
  if (nonManifold > 0)
    report.warnings.push_back({WarningCode::NonManifoldMesh,
                               std::to_string(nonManifold) +
                                   " non-manifold edges (in more than two triangles): "
                                   "every triangle still updates its vertices; "
                                   "obtuse-angle unfolding stops there"});
  const SimplexId unsplit = mesh.obtuseAngles - mesh.unfoldedAngles;
  // Their fallback is causal, only less accurate there: worth a warning when common.
  if (parameters.unfoldObtuseAngles && unsplit * 100 > mesh.obtuseAngles)
    report.warnings.push_back(
        {WarningCode::ObtuseAnglesNotUnfolded,
         std::to_string(unsplit) + " of " + std::to_string(mesh.obtuseAngles) +
             " obtuse angles could not be split into angles of at most 90 degrees (" +
             std::to_string(mesh.unfoldingStops[0]) + " at a boundary, " +
             std::to_string(mesh.unfoldingStops[1]) + " at a non-manifold edge, " +
             std::to_string(mesh.unfoldingStops[2]) + " around their vertex, " +
             std::to_string(mesh.unfoldingStops[3]) +
             " beyond the unfolding steps): their wider parts are solved through their "
             "edges "
             "only"});
}

} // namespace

void execute(ExplicitTriangulation& triangulation, const double* points,
             const Parameters& parameters, const Monitor& monitor, Result& result,
             RunReport& report, Preparation* reuse) {
  report = RunReport();
  result = Result();
  result.solver = parameters.solver;
  validate(triangulation, parameters);
  if (points == nullptr)
    throw Error("the mesh has no point coordinates");
  report.backend = "cpu";
  // The device's start overlaps the precondition, the mesh setup and the patches: for
  // Gpu always, for Auto where the GPU could win once started (a start never needed
  // would only hold up the process's exit).
  if (parameters.solver == Solver::Gpu)
    warmUpDevice();
  if (parameters.solver == Solver::Auto) {
    AutoInputs started;
    started.vertices = triangulation.getNumberOfVertices();
    started.cpuThreads = std::max(1, tbb::this_task_arena::max_concurrency());
    started.patchesReady = reuse && reuse->hasPatches;
    started.reruns = reuse && reuse->hasMesh ? kExpectedReruns : 0;
    if (autoPrefersGpu(started))
      warmUpDevice();
  }
  Timer timer;
  triangulation.precondition(kRequiredRelations);
  report.timings.emplace_back("precondition", timer.seconds());
  monitor.checkAbort();
  timer.reset();
  Mesh fresh;
  const std::uint64_t meshKey =
      reuse ? meshFingerprint(triangulation, points, parameters) : 0;
  const bool meshCached = reuse && reuse->hasMesh && reuse->meshKey == meshKey;
  if (!meshCached) {
    if (reuse)
      reuse->clear(); // its patches belong to the old mesh too
    detail::buildMesh(triangulation, points, parameters, reuse ? reuse->mesh : fresh);
    if (reuse) {
      reuse->hasMesh = true;
      reuse->meshKey = meshKey;
    }
  }
  Mesh& mesh = reuse ? reuse->mesh : fresh;
  mesh.tri = &triangulation; // the same cells, maybe another (rebuilt) triangulation
  report.timings.emplace_back(meshCached ? "mesh setup (cached)" : "mesh setup",
                              timer.seconds());
  monitor.checkAbort();
  monitor.report(0.01);

  timer.reset();
  // The start as a list: the device uploads only it, the CPU solvers expand it.
  detail::FixedStart fixed;
  detail::fixedStart(mesh, parameters, reuse ? &reuse->exact : nullptr, fixed);
  report.timings.emplace_back("exact start", timer.seconds());
  monitor.checkAbort();
  timer.reset();
  State state;
  state.exactVertices = SimplexId(fixed.fixed.vertex.size());
  state.exactRadius = fixed.exactRadius;
  // The solvers work in the mesh's units (EikonalMesh.h): the stop distance too.
  Parameters inUnits = parameters;
  inUnits.stopDistance = detail::inMeshUnits(mesh, parameters.stopDistance);
  const double epsilon = parameters.epsilon * mesh.meanEdgeTime;
  Solver ran = parameters.solver;
  switch (parameters.solver) {
  case Solver::Fmm:
    initialise(mesh, fixed, state);
    runFmm(mesh, inUnits, monitor, state);
    break;
  case Solver::Fim:
    initialise(mesh, fixed, state);
    runFim(mesh, inUnits, epsilon, monitor, state, report);
    break;
  case Solver::FimMt:
    initialise(mesh, fixed, state);
    runFimMt(mesh, inUnits, epsilon, monitor, state, report);
    break;
  case Solver::Gpu:
  case Solver::Auto: {
    ran = runPatchFimOrFimMt(mesh, parameters, inUnits, epsilon, fixed, meshKey,
                             meshCached, reuse, monitor, timer, state, result, report);
    break;
  }
  }
  // The GPU's stages ("upload (gpu)", "patchfim (gpu)", "download (gpu)") are timed
  // by solvePatchFim itself.
  if (ran != Solver::Gpu)
    report.timings.emplace_back(std::string(solverName(ran)) + " (cpu)", timer.seconds());
  // Beyond the stop distance nothing is reached, whatever the solver left there.
  timer.reset();
  result.unreached = detail::toInputUnits(mesh, parameters, state.value, state.label);
  report.timings.emplace_back("input units", timer.seconds());
  result.solver = ran;
  result.distance = std::move(state.value);
  result.seedIdentifier = std::move(state.label);
  result.iterations = state.iterations;
  result.localSolves = state.solves;
  result.localSolvesPerVertex = double(state.solves) / double(mesh.vertices);
  result.converged = state.converged;
  result.obtuseAngles = mesh.obtuseAngles;
  result.unfoldedAngles = mesh.unfoldedAngles;
  result.degenerateTriangles = mesh.degenerateTriangles;
  result.exactVertices = state.exactVertices;
  result.exactRadius = std::ldexp(state.exactRadius, mesh.lengthExponent);

  addMeshWarnings(triangulation, mesh, parameters, result, report);
  monitor.report(1.0);
}

} // namespace topogpu::eikonal
