#include "core/morse_smale_complex/ElderRoundsGpu.h"

#include "cuda/common/CudaCheck.h"
#include "cuda/common/DeviceLaunch.cuh"
#include "cuda/morse_smale_complex/ElderRoundsDevice.cuh"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/remove.h>
#include <thrust/sequence.h>

#include <algorithm>

namespace topogpu::gpu {

namespace msc = morse_smale_complex;
namespace elder = morse_smale_complex::elder;

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

// The two ends of each live edge, for the host's serial sweep.
__global__ void liveEndsKernel(const SimplexId* live, SimplexId n, const SimplexId* ends,
                               SimplexId* liveEnds) {
  const SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    liveEnds[2 * i] = ends[2 * live[i]];
    liveEnds[2 * i + 1] = ends[2 * live[i] + 1];
  }
}

// An edge the rounds are done with (or the sweep skips).
struct Flagged {
  const char* flag;
  __device__ bool operator()(SimplexId e) const { return flag[e] != 0; }
};

template <typename T>
void copyToHost(const thrust::device_vector<T>& from, std::vector<T>& to) {
  to.resize(from.size());
  thrust::copy(from.begin(), from.end(), to.begin());
}

} // namespace

void elderRoundsOnDevice(const thrust::device_vector<SimplexId>& ends, SimplexId nodes,
                         const thrust::device_vector<char>& skip,
                         const msc::ElderSchedule& schedule,
                         std::vector<SimplexId>& younger, msc::ElderStats& stats) {
  stats = msc::ElderStats();
  const auto edgeCount = ends.size() / 2, nodeCount = static_cast<std::size_t>(nodes);
  younger.assign(edgeCount, -1);
  if (edgeCount == 0)
    return;
  std::vector<SimplexId> parent, live, liveEnds;
  translateCudaFailures("elder rule", [&] {
    thrust::device_vector<SimplexId> deviceParent(nodeCount), deviceLive(edgeCount),
        roots(2 * edgeCount), earliest(nodeCount, elder::kNoEdge),
        deviceYounger(edgeCount, SimplexId(-1));
    thrust::sequence(deviceParent.begin(), deviceParent.end());
    thrust::sequence(deviceLive.begin(), deviceLive.end());
    thrust::device_vector<char> done(edgeCount, 0);
    if (!skip.empty())
      deviceLive.erase(
          thrust::remove_if(deviceLive.begin(), deviceLive.end(), Flagged{raw(skip)}),
          deviceLive.end());
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
    const auto n = SimplexId(deviceLive.size());
    thrust::device_vector<SimplexId> deviceLiveEnds(2 * deviceLive.size());
    if (n > 0)
      liveEndsKernel<<<blocksFor(n), kBlock>>>(raw(deviceLive), n, raw(ends),
                                               raw(deviceLiveEnds));
    stageDone("elder rule");
    thrust::copy(deviceYounger.begin(), deviceYounger.end(), younger.begin());
    copyToHost(deviceParent, parent);
    copyToHost(deviceLive, live);
    copyToHost(deviceLiveEnds, liveEnds);
  });
  stats.serialEdges = SimplexId(live.size());
  msc::detail::finishElderSweep(
      parent.data(), stats.serialEdges,
      [&](SimplexId i) {
        return msc::detail::LiveEdge{live[std::size_t(i)], liveEnds[std::size_t(2 * i)],
                                     liveEnds[std::size_t(2 * i + 1)]};
      },
      younger.data());
}

void elderPairs(const msc::ElderGraph& graph, const msc::ElderSchedule& schedule,
                std::vector<SimplexId>& younger, msc::ElderStats& stats) {
  msc::detail::checkElderGraph(graph);
  thrust::device_vector<SimplexId> ends;
  thrust::device_vector<char> skip;
  translateCudaFailures("elder rule", [&] {
    ends.assign(graph.ends, graph.ends + 2 * graph.edges);
    if (graph.skip != nullptr)
      skip.assign(graph.skip, graph.skip + graph.edges);
  });
  elderRoundsOnDevice(ends, graph.nodes, skip, schedule, younger, stats);
}

} // namespace topogpu::gpu
