// Rips persistence's gpu:: entry points in a build without CUDA.
#include "core/common/NoCuda.h"
#include "core/rips_persistence/RipsPersistenceGpu.h"

namespace topogpu::gpu {

std::unique_ptr<rips_persistence::ColumnBuilder>
makeRipsColumnBuilder(const rips_persistence::RipsGraph&, std::size_t, const Monitor&,
                      RunReport&) {
  throwNoCuda("rips persistence");
}

void ripsPointDistances(const std::vector<double>&, SimplexId, int, std::size_t,
                        std::vector<float>&, RunReport&) {
  throwNoCuda("rips persistence");
}

} // namespace topogpu::gpu
