#include "core/persistence_diagram/ElderRoundsGpu.h"

#include "cuda/common/CudaCheck.h"
#include "cuda/common/DeviceLaunch.cuh"

#include <thrust/device_vector.h>
#include <thrust/remove.h>
#include <thrust/sequence.h>

#include <algorithm>

namespace topogpu::gpu {

namespace pd = persistence_diagram;
namespace elder = persistence_diagram::elder;

namespace {

__global__ void proposeKernel(int round, const SimplexId* live, SimplexId n,
                              const SimplexId* ends, SimplexId* parent, SimplexId* roots,
                              SimplexId* earliest) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    elder::propose(round, live[i], ends, parent, roots, earliest);
}

__global__ void settleKernel(int round, const SimplexId* live, SimplexId n,
                             const SimplexId* roots, const SimplexId* earliest,
                             SimplexId* parent, SimplexId* younger, char* done) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    done[live[i]] =
        elder::settle(round, live[i], roots, earliest, parent, younger) ? 1 : 0;
}

// An edge the rounds are done with (or the sweep skips).
struct Flagged {
  const char* flag;
  __device__ bool operator()(SimplexId e) const { return flag[e] != 0; }
};

} // namespace

void elderPairs(const pd::ElderGraph& graph, const pd::ElderSchedule& schedule,
                std::vector<SimplexId>& younger, pd::ElderStats& stats) {
  stats = pd::ElderStats();
  pd::detail::checkElderGraph(graph);
  younger.assign(std::size_t(graph.edges), -1);
  if (graph.edges == 0)
    return;
  std::vector<SimplexId> parent(static_cast<std::size_t>(graph.nodes)), live;
  translateCudaFailures("elder rule", [&] {
    const SimplexId edges = graph.edges, nodes = graph.nodes;
    const auto edgeCount = static_cast<std::size_t>(edges),
               nodeCount = static_cast<std::size_t>(nodes);
    thrust::device_vector<SimplexId> ends(graph.ends, graph.ends + 2 * edges),
        deviceParent(nodeCount), deviceLive(edgeCount), roots(2 * edgeCount),
        earliest(nodeCount, elder::kNoEdge), deviceYounger(edgeCount, SimplexId(-1));
    thrust::sequence(deviceParent.begin(), deviceParent.end());
    thrust::sequence(deviceLive.begin(), deviceLive.end());
    thrust::device_vector<char> done(edgeCount, 0);
    if (graph.skip != nullptr) {
      const thrust::device_vector<char> skip(graph.skip, graph.skip + edges);
      deviceLive.erase(thrust::remove_if(deviceLive.begin(), deviceLive.end(),
                                         Flagged{thrust::raw_pointer_cast(skip.data())}),
                       deviceLive.end());
    }
    const int maxRounds = std::min(schedule.maxRounds, elder::kMaxRounds);
    while (SimplexId(deviceLive.size()) > schedule.serialEdges &&
           stats.rounds < maxRounds) {
      const int round = ++stats.rounds;
      const auto n = SimplexId(deviceLive.size());
      proposeKernel<<<blocksFor(n), kBlock>>>(round, raw(deviceLive), n, raw(ends),
                                              raw(deviceParent), raw(roots),
                                              raw(earliest));
      settleKernel<<<blocksFor(n), kBlock>>>(round, raw(deviceLive), n, raw(roots),
                                             raw(earliest), raw(deviceParent),
                                             raw(deviceYounger), raw(done));
      cudaCheck(cudaGetLastError(), "elder rule");
      deviceLive.erase(
          thrust::remove_if(deviceLive.begin(), deviceLive.end(), Flagged{raw(done)}),
          deviceLive.end());
    }
    stageDone("elder rule");
    thrust::copy(deviceYounger.begin(), deviceYounger.end(), younger.begin());
    thrust::copy(deviceParent.begin(), deviceParent.end(), parent.begin());
    live.resize(deviceLive.size());
    thrust::copy(deviceLive.begin(), deviceLive.end(), live.begin());
  });
  stats.serialEdges = SimplexId(live.size());
  pd::detail::finishElderSweep(graph, parent, live, younger);
}

} // namespace topogpu::gpu
