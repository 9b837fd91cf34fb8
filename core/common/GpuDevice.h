// Device presence and memory, behind a CUDA-free header (a CUDA-free build links
// cuda/GpuStubs.cpp instead).
#pragma once

#include <cstddef>
#include <string>

namespace topogpu::gpu {

bool deviceAvailable(std::string* why);
std::size_t freeDeviceMemory();
// Name and memory of device 0, for reports ("NVIDIA H100 80GB HBM3, 79 GiB").
std::string deviceDescription();
// Device memory in use right now on device 0, in bytes (total - free from
// cudaMemGetInfo: every process's allocations, the CUDA context included). An
// instantaneous sample, not a peak.
std::size_t deviceMemoryInUse();
// Creates the CUDA context of device 0 (the primary context every host thread shares)
// when a device is present; blocks until it is ready (a fraction of a second the first
// time, nothing after). Never throws: a failure shows again at the first real CUDA call.
void startDeviceContext();

// Test hook, process-wide: the GPU stage named `stage` (stageDone's name, e.g. "upload")
// fails with a real CUDA out-of-memory error after its device memory is allocated, so
// that tests see a failure mid-run and its fallback; the message names `source` (who set
// it). An empty stage: none (the default). The front ends set it from
// TOPOGPU_TEST_GPU_FAULT (frontend/EnvironmentKnobs.h). Set it between runs.
void setInjectedFault(std::string stage, std::string source);

} // namespace topogpu::gpu
