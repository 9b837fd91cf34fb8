#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "core/morse_smale_complex/SimplicialSaddleGraph.h"
#include "cuda/common/CudaCheck.h"
#include "cuda/morse_smale_complex/SaddleConnectionsDevice.cuh"

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>

namespace topogpu::gpu {

void simplicialSaddleConnectionsOnDevice(
    const discrete_gradient::simplicial::GridSimplices& grid,
    const std::uint8_t* edgeBytes, const std::uint8_t* triangleBytes,
    const std::vector<SimplexId>& saddles1, const std::vector<SimplexId>& saddles2,
    const Monitor& monitor, SimplicialGridConnections& out, RunReport& report) {
  out = SimplicialGridConnections();
  Timer timer;
  if (grid.dims.dimension == 3 && !saddles1.empty() && !saddles2.empty()) {
    const saddle_connections::graph::SimplicialGridGraph graph{grid, edgeBytes,
                                                               triangleBytes};
    const SimplexId edges = graph.edges();
    const thrust::device_vector<SimplexId> s1(saddles1.begin(), saddles1.end());
    // 2-saddles as nodes: after the edges
    thrust::device_vector<SimplexId> s2(saddles2.begin(), saddles2.end());
    thrust::transform(thrust::device, s2.begin(), s2.end(), s2.begin(),
                      [=] __device__(SimplexId t) { return edges + t; });
    thrust::device_vector<saddle_connections::Arc> arcs;
    saddle_connections::SaddleConnections stats;
    RunReport stages; // the pipeline's own stages: one timing for the whole here
    out.overflow = saddleArcsOnDevice(graph, s1, s2, monitor, arcs, stats, stages);
    report.peakDeviceBytes = std::max(report.peakDeviceBytes, stages.peakDeviceBytes);
    // (saddle1, saddle2) order to the CPU's (saddle2, saddle1): a stable sort by the
    // 2-saddle keeps the 1-saddles ascending within each.
    thrust::device_vector<SimplexId> keys(arcs.size());
    const saddle_connections::Arc* arc = thrust::raw_pointer_cast(arcs.data());
    SimplexId* key = thrust::raw_pointer_cast(keys.data());
    thrust::for_each(thrust::device, thrust::counting_iterator<SimplexId>(0),
                     thrust::counting_iterator<SimplexId>(SimplexId(arcs.size())),
                     [=] __device__(SimplexId i) { key[i] = arc[i].saddle2; });
    thrust::stable_sort_by_key(thrust::device, keys.begin(), keys.end(), arcs.begin());
    out.arcs.resize(arcs.size());
    if (!arcs.empty())
      cudaCheck(cudaMemcpy(out.arcs.data(), thrust::raw_pointer_cast(arcs.data()),
                           arcs.size() * sizeof(saddle_connections::Arc),
                           cudaMemcpyDeviceToHost),
                "saddle connections: arcs download");
  }
  stageDone("saddle connections");
  report.timings.emplace_back("saddle connections (gpu)", timer.seconds());
}

} // namespace topogpu::gpu
