#include "HostCopy.h"

#include "base/ParallelCopy.h"
#include "cuda/common/CudaCheck.h"

#include <algorithm>

namespace topogpu::gpu {

void copyInParallel(void* to, const void* from, std::size_t bytes) {
  parallelCopy<std::size_t(1) << 20>(static_cast<const unsigned char*>(from), bytes,
                                     static_cast<unsigned char*>(to));
}

namespace {

// The staging buffers and their events, released on every exit.
struct Staging {
  void* buffer[2] = {nullptr, nullptr};
  cudaEvent_t landed[2] = {nullptr, nullptr};
  ~Staging() {
    for (int i = 0; i < 2; ++i) {
      if (landed[i] != nullptr)
        cudaEventDestroy(landed[i]);
      if (buffer[i] != nullptr)
        cudaFreeHost(buffer[i]);
    }
  }
};

} // namespace

void downloadStaged(const void* device, std::size_t bytes, void* host,
                    cudaStream_t stream) {
  constexpr std::size_t kChunk = std::size_t(32) << 20;
  if (bytes == 0)
    return;
  const std::size_t chunk = std::min(kChunk, bytes);
  const std::size_t chunks = (bytes + chunk - 1) / chunk;
  Staging s;
  for (int i = 0; i < (chunks > 1 ? 2 : 1); ++i) {
    cudaCheck(cudaMallocHost(&s.buffer[i], chunk), "download: pinned memory");
    cudaCheck(cudaEventCreateWithFlags(&s.landed[i],
                                       cudaEventBlockingSync | cudaEventDisableTiming),
              "download: event");
  }
  auto sizeOf = [&](std::size_t c) { return std::min(chunk, bytes - c * chunk); };
  auto request = [&](std::size_t c) {
    cudaCheck(cudaMemcpyAsync(s.buffer[c % 2],
                              static_cast<const unsigned char*>(device) + c * chunk,
                              sizeOf(c), cudaMemcpyDeviceToHost, stream),
              "download: copy");
    cudaCheck(cudaEventRecord(s.landed[c % 2], stream), "download: event");
  };
  request(0);
  for (std::size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks)
      request(c + 1); // its buffer was emptied in the previous iteration
    cudaCheck(cudaEventSynchronize(s.landed[c % 2]), "download: copy");
    copyInParallel(static_cast<unsigned char*>(host) + c * chunk, s.buffer[c % 2],
                   sizeOf(c));
  }
}

} // namespace topogpu::gpu
