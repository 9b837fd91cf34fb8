// Every gpu:: entry point for a build without CUDA, in one place: the device is reported
// absent (so resolveBackend picks the CPU) and the algorithms throw GpuError (so a
// direct call falls back to the CPU as well). A new module adds its entries here.
#include "core/rips_persistence/RipsPersistenceGpu.h"
#include "cuda/common/GpuDevice.h"
#include "cuda/common/VertexOrderGpu.h"
#include "cuda/critical_points/CriticalPointsGpu.h"
#include "cuda/discrete_gradient/DiscreteGradientGpu.h"
#include "cuda/eikonal/EikonalGpu.h"
#include "cuda/gale/GaleGpu.h"
#include "cuda/morse_smale_complex/MorseSmaleComplexGpu.h"
#include "cuda/morse_smale_complex/SaddleConnectionsGpu.h"
#include "cuda/scalar_field_smoother/ScalarFieldSmootherGpu.h"

#include <cstdlib>
#include <new>

namespace topogpu::gpu {

namespace {
[[noreturn]] void noCuda(const char* entry) {
  throw GpuError(std::string(entry) + ": this build of TopoGPU has no CUDA support",
                 false);
}
} // namespace

bool deviceAvailable(std::string* why) {
  if (why)
    *why = "this build of TopoGPU has no CUDA support";
  return false;
}

std::size_t freeDeviceMemory() {
  return 0;
}

std::string deviceDescription() {
  return "no CUDA device (CUDA-free build)";
}

std::size_t deviceMemoryInUse() {
  return 0;
}

void startDeviceContext() {}

// No GPU stage runs here, so there is nothing to fail.
void setInjectedFault(std::string, std::string) {}

void computeVertexOrder(const ScalarArrayView&, SimplexId*, const Monitor&) {
  noCuda("vertex order");
}

void classifyGridVertices(const grid::Dims&, const ScalarArrayView&, const Monitor&,
                          std::int8_t*, std::vector<SimplexId>&, RunReport&) {
  noCuda("critical points");
}

void smoothGrid(const grid::Dims&, const ScalarArrayView&, int, const std::uint8_t*,
                const Monitor&, void*, RunReport&) {
  noCuda("scalar field smoother");
}

void computeDiscreteGradient(const cubical::Grid&, const ScalarArrayView&, const Monitor&,
                             std::vector<std::uint8_t>&,
                             std::array<std::vector<SimplexId>, 4>&, RunReport&) {
  noCuda("discrete gradient");
}

void computeMorseSmaleComplex(const cubical::Grid&, const ScalarArrayView&, bool,
                              const Monitor&, morse_smale_complex::Output&) {
  noCuda("morse-smale complex");
}

// ---- Morse-Smale complex, stage 3 (saddle connections) ----
void computeSaddleConnections(const cubical::Grid&, const std::vector<std::uint8_t>&,
                              const std::vector<SimplexId>&,
                              const std::vector<SimplexId>&, const Monitor&,
                              saddle_connections::SaddleConnections&, RunReport&) {
  noCuda("saddle connections");
}

// ---- geodesic distance (patchFIM) ----
void solvePatchFim(const eikonal::PatchArrays&, const eikonal::PatchFimSettings&,
                   const eikonal::FixedVertices&, const Monitor&, eikonal::PatchFimState&,
                   RunReport&, std::unique_ptr<PatchFimResident>&) {
  noCuda("patchFIM");
}
int livePatchFimResidents() {
  return 0;
}
void* allocateUploadMemory(std::size_t bytes, bool) {
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes))
    return p;
  throw std::bad_alloc();
}
void releaseUploadMemory(void* memory) noexcept {
  std::free(memory);
}

// ---- Rips persistence ----
std::unique_ptr<rips_persistence::ColumnBuilder>
makeRipsColumnBuilder(const rips_persistence::RipsGraph&, std::size_t, const Monitor&,
                      RunReport&) {
  noCuda("rips persistence");
}

void ripsPointDistances(const std::vector<double>&, SimplexId, int, std::size_t,
                        std::vector<float>&, RunReport&) {
  noCuda("rips persistence");
}

struct GaleGpuStart {};
struct GaleGpuCells {};

std::shared_ptr<GaleGpuStart> beginGaleGpuProducer(const GaleTriangulation&,
                                                   std::shared_ptr<GaleGpuCells>) {
  return nullptr;
}

std::shared_ptr<GaleGpuCells> uploadGaleGpuCells(const std::int32_t*, std::size_t) {
  return nullptr;
}

bool galeGpuCellOffsets(const GaleGpuStart*, std::vector<SimplexId>&,
                        std::vector<SimplexId>&) {
  return false;
}

std::shared_ptr<gale::SegmentProducer> makeGaleGpuProducer(const GaleTriangulation&,
                                                           std::shared_ptr<GaleGpuStart>,
                                                           std::string& why) {
  why = "this build of TopoGPU has no CUDA support";
  return nullptr;
}

void startGaleGpuContext() {}

} // namespace topogpu::gpu
