// Device presence and memory, behind a CUDA-free header.
#pragma once

#include <cstddef>
#include <string>

namespace topogpu::gpu {

bool deviceAvailable(std::string* why);
std::size_t freeDeviceMemory();
// Name and memory of device 0, for reports ("NVIDIA H100 80GB HBM3, 79 GiB").
std::string deviceDescription();
// Peak device memory in use seen by the current process since the last reset, in bytes
// (sampled after each stage; see cuda/common/GpuDevice.cu).
std::size_t deviceMemoryInUse();

} // namespace topogpu::gpu
