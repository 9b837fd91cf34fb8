// Numeric model and small shared types of TopoGPU (VTK-free, CUDA-free).
#pragma once

#include "base/PrintableText.h"
#include "base/Warning.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Functions shared by host code and CUDA kernels carry this qualifier.
#if defined(__CUDACC__)
#define TOPOGPU_HD __host__ __device__ inline
#else
#define TOPOGPU_HD inline
#endif

namespace topogpu {

// One typedef fixes the index width for every simplex (as Ripser's index_t): 64-bit so
// grids beyond 2^31 simplices (a 512^3 grid has 1.6e9 triangles) stay addressable.
using SimplexId = std::int64_t;

// Which processor runs an algorithm. Auto: the GPU when one is present and the problem
// fits its memory, else the CPU.
enum class Backend { Auto, Cpu, Gpu };

inline const char* backendName(Backend b) {
  switch (b) {
  case Backend::Auto:
    return "auto";
  case Backend::Cpu:
    return "cpu";
  case Backend::Gpu:
    return "gpu";
  }
  return "?";
}

// Bad input or an impossible request: the message names the problem for the user. Bytes
// quoted from the input that would not print (a NUL, control bytes, broken UTF-8) are
// shown as \xNN, so that what() holds the whole message.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message)
      : std::runtime_error(printableText(message)) {}
  explicit Error(const char* message) : Error(std::string(message)) {}
};

// Thrown when the user aborted the computation (ParaView's abort button).
class Aborted : public std::runtime_error {
public:
  Aborted() : std::runtime_error("computation aborted by the user") {}
};

// A failure of the GPU itself (a CUDA error, device memory exhausted, no CUDA in this
// build), never of the input: runWithFallback catches it and reruns on the CPU.
class GpuError : public std::runtime_error {
public:
  GpuError(const std::string& what, bool outOfMemory)
      : std::runtime_error(what), outOfMemory_(outOfMemory) {}
  bool outOfMemory() const { return outOfMemory_; }

private:
  bool outOfMemory_;
};

// Progress reporting and abort checks, called from the calling thread only (VTK wants
// UpdateProgress on the thread that runs RequestData).
struct Monitor {
  std::function<void(double)> progress;
  std::function<bool()> abortRequested;

  void report(double fraction) const {
    if (progress)
      progress(fraction);
  }
  void checkAbort() const {
    if (abortRequested && abortRequested())
      throw Aborted();
  }
  // The same monitor with progress mapped onto [begin, end], so that a stage reporting
  // 0..1 fills its share of the caller's bar.
  Monitor stage(double begin, double end) const {
    Monitor m;
    m.abortRequested = abortRequested;
    if (progress)
      m.progress = [p = progress, begin, end](double f) { p(begin + (end - begin) * f); };
    return m;
  }
};

// What ran and how long each stage took, for field data, the CLI and benchmarks.
struct RunReport {
  std::string backend; // "cpu" or "gpu": the one that actually ran
  std::vector<Warning> warnings;
  std::vector<std::pair<std::string, double>> timings; // stage name, seconds
  // Largest device memory in use (cudaMemGetInfo: the whole device, other processes
  // included) sampled at the end of each GPU stage: not a true peak, as scratch space
  // freed inside a stage (the sort's) is never seen.
  std::size_t peakDeviceBytes = 0;

  bool hasWarning(WarningCode code) const {
    for (const Warning& w : warnings)
      if (w.code == code)
        return true;
    return false;
  }

  double totalSeconds() const {
    double sum = 0;
    for (const auto& t : timings)
      sum += t.second;
    return sum;
  }
};

} // namespace topogpu
