// The buffers of GALE's GPU producer (GaleGpuProducer.cuh): device vectors and their
// uploads, page-locked host memory, and a launch slot's stream, events and buffers.
#pragma once

#include "base/Types.h"
#include "cuda/common/CudaCheck.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <tbb/parallel_for.h>
#include <thrust/device_vector.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace topogpu::gpu::galegpu {

inline int bitsFor(long long n) {
  int bits = 1;
  while (bits < 62 && (1ll << bits) <= n)
    ++bits;
  return bits;
}

template <typename T> thrust::device_vector<T> upload(const std::vector<T>& host) {
  return thrust::device_vector<T>(host.begin(), host.end());
}
// GALE's 32-bit ids uploaded in place (no host copy: the copy was the GPU producer's
// peak host memory); the rare wide array through a narrowed copy.
inline thrust::device_vector<int> upload(const IdArray& ids) {
  if (const std::int32_t* narrow = ids.narrowData())
    return thrust::device_vector<int>(narrow, narrow + ids.size());
  std::vector<int> copy(ids.size());
  tbb::parallel_for(std::size_t(0), ids.size(),
                    [&](std::size_t i) { copy[i] = int(ids[i]); });
  return upload(copy);
}
template <typename T> T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <typename T> const T* raw(const thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <typename T> void reserve(thrust::device_vector<T>& v, std::size_t n) {
  if (v.size() < n)
    v.resize(std::max(n, v.size() * 3 / 2));
}

// Page-locked host memory (asynchronous copies), grown as needed.
template <typename T> class Pinned {
public:
  ~Pinned() {
    if (data_ != nullptr)
      cudaFreeHost(data_);
  }
  T* reserve(std::size_t n) {
    if (n > size_) {
      // grown geometrically: each reallocation (cudaFreeHost synchronizes the device)
      // happens a few times per run, not at every larger launch
      const std::size_t grown = std::max<std::size_t>(n, size_ * 3 / 2);
      if (data_ != nullptr)
        cudaFreeHost(data_);
      data_ = nullptr;
      size_ = 0;
      void* p = nullptr;
      cudaCheck(cudaMallocHost(&p, grown * sizeof(T)),
                "GALE GPU producer: pinned memory");
      data_ = static_cast<T*>(p);
      size_ = grown;
    }
    return data_;
  }
  T* get() const { return data_; }

private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// One launch's buffers and stream; a batch alternates two of them, so one launch's
// kernels run while the previous one's rows are copied back and handed out.
struct Slot {
  cudaStream_t stream = nullptr;
  // scanned and copied block the waiting leader (cudaEventBlockingSync) instead of
  // spinning: the consumers use every core
  cudaEvent_t start = nullptr, scanned = nullptr, copied = nullptr;
  thrust::device_vector<int> batch, firstRow, rowOffsets, rowVertex, rows, counts, dense,
      denseOffsets, flags;
  thrust::device_vector<unsigned char> scratch;
  Pinned<int> upload, offsetsBack, denseBack, flagBack;
  std::size_t first = 0, last = 0; // the launch's segments in the batch
  int rowCount = 0;
  bool pending = false;
  ~Slot() {
    if (stream != nullptr)
      cudaStreamDestroy(stream);
    if (start != nullptr)
      cudaEventDestroy(start);
    if (scanned != nullptr)
      cudaEventDestroy(scanned);
    if (copied != nullptr)
      cudaEventDestroy(copied);
  }
};

} // namespace topogpu::gpu::galegpu
