// The persistence diagram's gpu:: entry point in a build without CUDA.
#include "core/common/NoCuda.h"
#include "core/persistence_diagram/ElderRoundsGpu.h"

namespace topogpu::gpu {

void elderPairs(const persistence_diagram::ElderGraph&,
                const persistence_diagram::ElderSchedule&, std::vector<SimplexId>&,
                persistence_diagram::ElderStats&) {
  throwNoCuda("elder rule");
}

} // namespace topogpu::gpu
