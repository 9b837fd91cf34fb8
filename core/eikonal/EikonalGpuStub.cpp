// patchFIM's gpu:: entry points in a build without CUDA; the upload memory is plain
// host memory there.
#include "core/common/NoCuda.h"
#include "core/eikonal/EikonalGpu.h"

#include <cstdlib>
#include <new>

namespace topogpu::gpu {

void solvePatchFim(const eikonal::PatchArrays&, const eikonal::PatchFimSettings&,
                   const eikonal::FixedVertices&, const Monitor&, eikonal::PatchFimState&,
                   RunReport&, std::unique_ptr<PatchFimResident>&) {
  throwNoCuda("patchFIM");
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

} // namespace topogpu::gpu
