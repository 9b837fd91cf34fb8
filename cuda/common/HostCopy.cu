#include "HostCopy.h"

#include "base/ParallelCopy.h"
#include "cuda/common/CudaCheck.h"

#include <algorithm>

namespace topogpu::gpu {

void copyInParallel(void* to, const void* from, std::size_t bytes) {
  parallelCopy<std::size_t(1) << 20>(static_cast<const unsigned char*>(from), bytes,
                                     static_cast<unsigned char*>(to));
}

StagedDownloads::~StagedDownloads() {
  for (int i = 0; i < 2; ++i) {
    if (landed_[i] != nullptr)
      cudaEventDestroy(landed_[i]);
    if (buffer_[i] != nullptr)
      cudaFreeHost(buffer_[i]);
  }
}

void StagedDownloads::download(const void* device, std::size_t bytes, void* host,
                               cudaStream_t stream) {
  constexpr std::size_t kChunk = std::size_t(32) << 20;
  if (bytes == 0)
    return;
  // The buffers grow to the largest chunk asked for (a small download needs no more
  // than itself) and are kept for the next downloads.
  if (std::min(kChunk, bytes) > chunk_) {
    for (void*& buffer : buffer_) {
      if (buffer != nullptr)
        cudaCheck(cudaFreeHost(buffer), "download: pinned memory");
      buffer = nullptr;
    }
    chunk_ = std::min(kChunk, bytes);
  }
  const std::size_t chunk = chunk_;
  const std::size_t chunks = (bytes + chunk - 1) / chunk;
  for (int i = 0; i < (chunks > 1 ? 2 : 1); ++i) {
    if (buffer_[i] == nullptr)
      cudaCheck(cudaMallocHost(&buffer_[i], chunk), "download: pinned memory");
    if (landed_[i] == nullptr)
      cudaCheck(cudaEventCreateWithFlags(&landed_[i],
                                         cudaEventBlockingSync | cudaEventDisableTiming),
                "download: event");
  }
  auto sizeOf = [&](std::size_t c) { return std::min(chunk, bytes - c * chunk); };
  auto request = [&](std::size_t c) {
    cudaCheck(cudaMemcpyAsync(buffer_[c % 2],
                              static_cast<const unsigned char*>(device) + c * chunk,
                              sizeOf(c), cudaMemcpyDeviceToHost, stream),
              "download: copy");
    cudaCheck(cudaEventRecord(landed_[c % 2], stream), "download: event");
  };
  request(0);
  for (std::size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks)
      request(c + 1); // its buffer was emptied in the previous iteration
    cudaCheck(cudaEventSynchronize(landed_[c % 2]), "download: copy");
    copyInParallel(static_cast<unsigned char*>(host) + c * chunk, buffer_[c % 2],
                   sizeOf(c));
  }
}

void downloadStaged(const void* device, std::size_t bytes, void* host,
                    cudaStream_t stream) {
  StagedDownloads staging;
  staging.download(device, bytes, host, stream);
}

} // namespace topogpu::gpu
