// The one CUDA error check of every .cu file: failures become GpuError (out-of-memory
// flagged), which runWithFallback turns into a warning and a CPU run.
#pragma once

#include "base/Types.h"

#include <cuda_runtime.h>
#include <thrust/system_error.h>

#include <new>
#include <string>

namespace topogpu::gpu {

// Throws GpuError "what: CUDA's message" and clears CUDA's last error, so that a later
// cudaGetLastError does not report this failure again.
[[noreturn]] void throwCudaError(cudaError_t status, const std::string& what);

inline void cudaCheck(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throwCudaError(status, what);
}

// End of a GPU stage: waits for its kernels, checks for errors, and is where the
// fault-injection hook of the tests fires (see CudaCheck.cu).
void stageDone(const char* stage);

// Runs an entry point's body, turning Thrust's CUDA exceptions (system_error,
// bad_alloc) into GpuError; GpuError, Aborted and topogpu::Error pass unchanged.
template <typename Body> void translateCudaFailures(const char* entry, Body&& body) {
  try {
    body();
  } catch (const thrust::system_error& e) {
    const bool oom = e.code().value() == int(cudaErrorMemoryAllocation);
    cudaGetLastError();
    throw GpuError(std::string(entry) + ": " + e.what(), oom);
  } catch (const std::bad_alloc& e) {
    cudaGetLastError();
    throw GpuError(std::string(entry) + ": out of memory (" + e.what() + ")", true);
  }
}

} // namespace topogpu::gpu
