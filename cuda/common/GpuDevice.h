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

} // namespace topogpu::gpu
