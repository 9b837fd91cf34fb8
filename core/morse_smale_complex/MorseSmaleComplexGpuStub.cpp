// The Morse-Smale complex's gpu:: entry points (stage 2, stage 3's saddle connections,
// the elder rule's rounds) in a build without CUDA.
#include "core/common/NoCuda.h"
#include "core/morse_smale_complex/ElderRoundsGpu.h"
#include "core/morse_smale_complex/MorseSmaleComplexGpu.h"
#include "core/morse_smale_complex/SaddleConnectionsGpu.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplexGpu.h"

namespace topogpu::gpu {

void elderPairs(const morse_smale_complex::ElderGraph&,
                const morse_smale_complex::ElderSchedule&, std::vector<SimplexId>&,
                morse_smale_complex::ElderStats&) {
  throwNoCuda("elder rule");
}

void computeMorseSmaleComplex(const cubical::Grid&, const ScalarArrayView&, bool, bool,
                              const Monitor&, morse_smale_complex::Output&) {
  throwNoCuda("morse-smale complex");
}

void computeSaddleConnections(const cubical::Grid&, const std::vector<std::uint8_t>&,
                              const std::vector<SimplexId>&,
                              const std::vector<SimplexId>&, const Monitor&,
                              saddle_connections::SaddleConnections&, RunReport&) {
  throwNoCuda("saddle connections");
}

void computeSimplicialGridForests(const discrete_gradient::simplicial::GridSimplices&,
                                  const ScalarArrayView&, const Monitor&,
                                  SimplicialGradientArrays&, std::vector<SimplexId>&,
                                  SimplicialGridForests&, RunReport&) {
  throwNoCuda("simplicial morse-smale complex");
}

void computeSimplicialGridLabels(const discrete_gradient::simplicial::GridSimplices&,
                                 const ScalarArrayView&, const Monitor&,
                                 const SimplicialGridBoundaryHooks&, bool,
                                 SimplicialGradientArrays&, std::vector<SimplexId>&,
                                 SimplicialGridLabels&, RunReport&,
                                 SimplicialGridConnections*) {
  throwNoCuda("simplicial morse-smale complex");
}

void computeSimplicialGridSaddleEnds(const discrete_gradient::simplicial::GridSimplices&,
                                     const ScalarArrayView&, const Monitor&,
                                     SimplicialGradientArrays&, std::vector<SimplexId>&,
                                     SimplicialGridSaddleEnds&, RunReport&,
                                     SimplicialGridConnections*, bool) {
  throwNoCuda("simplicial morse-smale complex");
}

} // namespace topogpu::gpu
