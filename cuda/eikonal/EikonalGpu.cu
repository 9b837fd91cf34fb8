// patchFIM on the device (core/eikonal/EikonalGpu.h): the run from its stages, the
// kept device state (PatchFimDeviceState), the upload (PatchFimUpload), the rounds
// (PatchFimRounds, PatchFimKernels) and the download.
#include "core/eikonal/EikonalGpu.h"

#include "PatchFimDeviceState.cuh"
#include "PatchFimKernels.cuh"
#include "PatchFimLaunch.cuh"
#include "PatchFimRounds.cuh"
#include "PatchFimUpload.cuh"
#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/common/HostCopy.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace topogpu::gpu {

namespace {

using patchfim::DeviceState;
using patchfim::RoundState;

// Nothing to solve (no patch or no vertex): the start as it is.
void startAsResult(std::size_t nv, const eikonal::FixedVertices& fixed,
                   eikonal::PatchFimState& out) {
  out.value.assign(nv, HUGE_VAL);
  out.label.assign(nv, -1);
  for (std::size_t i = 0; i < fixed.vertex.size(); ++i) {
    out.value[std::size_t(fixed.vertex[i])] = fixed.value[i];
    out.label[std::size_t(fixed.vertex[i])] = fixed.label[i];
  }
}

// The values, labels and the run's counters down, after the persistent rounds'
// gather of every vertex's latest value (the tables' upload done first: the gather
// reads the vertices' patches, which go up last).
void download(DeviceState& d, const RoundState& st, eikonal::PatchFimState& out) {
  cudaStream_t mainStream = d.main.stream;
  const std::size_t nv = d.nv;
  if (d.launch.persistent) {
    // (After the first run the event has long completed: no wait.)
    cudaCheck(cudaStreamWaitEvent(mainStream, d.copied.event, 0), "patchFIM: download");
    patchfim::launchGather(st, nv, mainStream);
  }
  // The counters go to the transfer block's tail (pinned: an asynchronous copy into
  // pageable memory would wait for the values ahead of it).
  unsigned long long* const total = reinterpret_cast<unsigned long long*>(
      d.transfer.data() + patchfim::kTransferTotals);
  const std::size_t valueBytes = nv * sizeof(double), labelBytes = nv * sizeof(SimplexId);
  // Through the state's page-locked staging block: the DMA at full bus speed, then
  // copies by all cores, the values' while the labels come down (faster than the DMA
  // straight into pageable vectors).
  unsigned char* const values = d.staging.data();
  unsigned char* const labels = d.staging.data() + valueBytes;
  cudaCheck(
      cudaMemcpyAsync(values, st.valueIn, valueBytes, cudaMemcpyDeviceToHost, mainStream),
      "patchFIM: download");
  cudaCheck(cudaEventRecord(d.done[0].event, mainStream), "patchFIM: event");
  cudaCheck(
      cudaMemcpyAsync(labels, st.labelIn, labelBytes, cudaMemcpyDeviceToHost, mainStream),
      "patchFIM: download");
  cudaCheck(cudaMemcpyAsync(total, st.solves, 3 * sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, mainStream),
            "patchFIM: download");
  out.value.resize(nv);
  out.label.resize(nv);
  cudaCheck(cudaEventSynchronize(d.done[0].event), "patchFIM: download");
  copyInParallel(out.value.data(), values, valueBytes);
  cudaCheck(cudaStreamSynchronize(mainStream), "patchFIM: download");
  copyInParallel(out.label.data(), labels, labelBytes);
  out.solves = static_cast<long long>(total[0]);
  out.patchRounds = static_cast<long long>(total[1]);
  out.rounds = static_cast<long long>(total[2]);
}

} // namespace

void solvePatchFim(const eikonal::PatchArrays& arrays,
                   const eikonal::PatchFimSettings& settings,
                   const eikonal::FixedVertices& fixed, const Monitor& monitor,
                   eikonal::PatchFimState& out, RunReport& report,
                   std::unique_ptr<PatchFimResident>& resident) {
  translateCudaFailures("patchFIM", [&] {
    Timer timer;
    out.value.clear();
    out.label.clear();
    out.rounds = out.patchRounds = out.solves = 0;
    out.converged = true;
    out.activeAtCap = 0;
    if (arrays.patches == 0 || arrays.patchOf.empty()) {
      startAsResult(arrays.patchOf.size(), fixed, out);
      return;
    }
    // The upload: the device state kept from an earlier run on these arrays, or a new
    // one whose tables go up now, staged on a stream of their own while the start and
    // the per-vertex arrays go up on the main one. "upload (gpu)" times the state's
    // making and the queueing of the copies, and, for the multi-launch rounds, the
    // copies themselves; the persistent kernel is queued behind the main stream's
    // copies, so its copies and the staged ones go on during the rounds (inside
    // "patchfim (gpu)").
    DeviceState& d = patchfim::keepDeviceState(
        resident, arrays, patchfim::configureLaunch(arrays, settings.launch));
    // Nothing stays queued behind a run, even one that throws.
    struct Drain {
      DeviceState& d;
      ~Drain() { d.drain(); }
    } drain{d};
    const bool uploadTables = !d.tablesUp;
    RoundState st = d.st;
    st.band = settings.band;
    const std::vector<std::int32_t> initial =
        patchfim::uploadStart(d, st, arrays, settings, fixed, uploadTables);
    patchfim::RoundBatches rounds(d, st, settings);
    if (rounds.startsEarly(initial.size()))
      rounds.launchFirst();
    // The staged tables, queued after the main stream's copies so that those go first.
    if (uploadTables)
      patchfim::uploadTablesStaged(d, arrays);
    stageDone("upload");
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
    report.timings.emplace_back("upload (gpu)", timer.seconds());

    timer.reset();
    const patchfim::RoundBatches::End end = rounds.run(initial.size(), monitor);
    cudaCheck(cudaStreamSynchronize(d.main.stream), "patchFIM: rounds");
    stageDone("iterate");
    report.timings.emplace_back("patchfim (gpu)", timer.seconds());

    timer.reset();
    download(d, st, out);
    if (end.capped) {
      out.converged = false;
      out.activeAtCap = std::size_t(end.activeAtCap);
    }
    stageDone("download");
    report.timings.emplace_back("download (gpu)", timer.seconds());
  });
}

} // namespace topogpu::gpu
