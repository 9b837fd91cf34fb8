// Large device-to-host transfers into pageable memory at the bus's speed: a pageable
// cudaMemcpy is staged by the driver through one core, several times slower than a
// page-locked copy, and the first touch of fresh pages then also runs on that core.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace topogpu::gpu {

// memcpy by all cores (TBB), in blocks of 1 MiB.
void copyInParallel(void* to, const void* from, std::size_t bytes);

// bytes from device memory to host (pageable) memory, ordered after the work queued on
// stream: chunks come down into two page-locked buffers in turn, and all cores copy
// each one out while the next is in flight. Returns when host holds everything; throws
// GpuError on a CUDA failure.
void downloadStaged(const void* device, std::size_t bytes, void* host,
                    cudaStream_t stream);

// downloadStaged for several arrays through the same two page-locked buffers, allocated
// at the first download and freed with this object: pinning them costs milliseconds
// each time.
class StagedDownloads {
public:
  StagedDownloads() = default;
  StagedDownloads(const StagedDownloads&) = delete;
  StagedDownloads& operator=(const StagedDownloads&) = delete;
  ~StagedDownloads();
  void download(const void* device, std::size_t bytes, void* host, cudaStream_t stream);

private:
  void* buffer_[2] = {nullptr, nullptr};
  cudaEvent_t landed_[2] = {nullptr, nullptr};
  std::size_t chunk_ = 0; // the buffers' size
};

} // namespace topogpu::gpu
