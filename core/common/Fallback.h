// The one GPU-to-CPU fallback every algorithm uses: a GPU failure (GpuError: a CUDA
// error, device memory exhausted) mid-run becomes a warning and a CPU run; an abort or
// bad input is never retried.
#pragma once

#include "base/Types.h"

#include <string>

namespace topogpu {

// Runs gpu() when resolved is Gpu (see resolveBackend), else cpu(). If gpu() throws
// GpuError, report gets a warning naming stage and the error, and cpu() runs instead;
// cpu() must not rely on anything gpu() left half-written. Aborted and every other
// exception propagate. Sets report.backend to the one whose result is returned.
template <typename GpuFunction, typename CpuFunction>
void runWithFallback(Backend resolved, const std::string& stage, RunReport& report,
                     GpuFunction&& gpu, CpuFunction&& cpu) {
  if (resolved == Backend::Gpu) {
    try {
      gpu();
      report.backend = "gpu";
      return;
    } catch (const GpuError& e) {
      report.warnings.push_back(
          {e.outOfMemory() ? WarningCode::GpuOutOfMemory : WarningCode::GpuFailed,
           "GPU " + stage + " failed" +
               (e.outOfMemory() ? " (out of device memory): " : ": ") + e.what() +
               "; ran on the CPU instead"});
    }
  }
  report.backend = "cpu";
  cpu();
}

} // namespace topogpu
