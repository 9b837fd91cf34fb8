#include "SimplicialHostMemory.h"

#include "base/HostMemory.h"

#include <algorithm>

namespace topogpu::morse_smale_complex::simplicial {

namespace {

constexpr double kId = sizeof(SimplexId), kLabel = sizeof(std::int32_t);

// The boundary facets: each top cell has top + 1 facets, an inner facet two cells.
double boundaryFacets(const sg::ComplexSize& size) {
  const int top = size.dimension;
  return std::max(0.0, 2 * double(size.simplices[std::size_t(top - 1)]) -
                           double(top + 1) * double(size.simplices[std::size_t(top)]));
}

// The boundary forest's arrays beside the rest: a flag per facet, two offsets per vertex
// (while it is built), and per boundary facet its id, successor, root, the lists around
// the vertices, and the label and flag of its root.
double boundaryForestBytes(const sg::ComplexSize& size) {
  const double facets = double(size.simplices[std::size_t(size.dimension - 1)]);
  const double boundary = boundaryFacets(size);
  return facets + 2 * kId * double(size.simplices[0]) +
         boundary * (3 * kId + double(size.dimension) * kId + kId + 1);
}

// The saddles whose V-paths end at extrema: the 1-saddles and the (d-1)-saddles.
double pathSaddles(const std::array<SimplexId, 4>& critical, int top) {
  return double(critical[1] + critical[std::size_t(top - 1)]);
}

// The arcs (two per saddle at most, 24 bytes each, in vectors grown by doubling) and,
// per 2-saddle, its two lists of connections and paths and its connections, 24 bytes
// each in its list and again in the output: kConnectionsPerSaddle of them (random fields
// have about 4.6, smooth ones fewer).
constexpr double kConnectionsPerSaddle = 6;
double arcBytes(const std::array<SimplexId, 4>& critical, int top,
                bool saddleConnections) {
  double bytes = 2 * 24 * pathSaddles(critical, top);
  if (saddleConnections && top == 3)
    bytes += (2 * 24 + kConnectionsPerSaddle * 2 * 24) * double(critical[2]);
  return bytes;
}

// What earlier stages freed but the allocator may still hold (blocks under glibc's
// mmap threshold, up to 32 MiB, go back to its heap, not to the system): the
// descending forest's successors and minimum indices, the boundary forest's flags and
// offsets. Grids of a few million vertices keep them; large ones return them.
double freedTransients(const sg::ComplexSize& size) {
  return 4 * kId * double(size.simplices[0]) +
         double(size.simplices[std::size_t(size.dimension - 1)]);
}

// The GPU path's downloads go through two page-locked buffers of up to 32 MiB each
// (cuda/common/HostCopy.h), as large as the largest array when it is smaller.
double stagingBytes(double largestArray) {
  return 2 * std::min(32.0 * 1024 * 1024, largestArray);
}

double diagramHostBytes(const sg::ComplexSize& size,
                        const std::array<SimplexId, 4>& critical, HostPath path,
                        bool saddleConnections, double criticalCount, double simplices) {
  const int top = size.dimension;
  const double n = double(size.simplices[0]), cells = double(size.simplices[top]);
  // The gradient's bytes: on the CPU path, and on the GPU's for the host's saddle
  // connections (Z/2, which the device does not count).
  const double base = double(size.valueBytes) * n + kId * n +
                      (path == HostPath::Cpu || saddleConnections ? simplices : 0) +
                      2 * kId * criticalCount;
  const double ends = 2 * kId * pathSaddles(critical, top);
  const double stencils = top == 3 ? double(size.simplices[1]) : 0;
  const double downloaded = ends + stencils + kId * criticalCount;
  const double pairs = downloaded + kPairRecordBytes * criticalCount +
                       (top == 3 ? kChainBytes * double(critical[2]) : 0) +
                       (saddleConnections ? arcBytes(critical, top, true) : 0);
  // GPU: the download's staging buffers are freed before the pairing.
  if (path == HostPath::Gpu)
    return base + std::max(downloaded + stagingBytes(std::max(kId * n, stencils)), pairs);
  // The saddle ends' successors, a tenth more for the walks' per-thread paths and what
  // the allocator keeps of the vertices' successors.
  return base + std::max(1.1 * kId * (n + cells) + ends, pairs);
}

} // namespace

double complexHostBytes(const sg::ComplexSize& size,
                        const std::array<SimplexId, 4>& critical, HostPath path,
                        bool saddleConnections, HostPart part) {
  const int top = size.dimension;
  if (top < 2)
    return 0;
  const double n = double(size.simplices[0]), cells = double(size.simplices[top]);
  double simplices = 0, criticalCount = 0;
  for (int d = 0; d <= top; ++d) {
    simplices += double(size.simplices[std::size_t(d)]);
    criticalCount += double(critical[std::size_t(d)]);
  }
  if (part == HostPart::Diagram)
    return diagramHostBytes(size, critical, path, saddleConnections, criticalCount,
                            simplices);
  // Field, order, gradient bytes, critical simplices with their highest vertices.
  const double gradient =
      double(size.valueBytes) * n + kId * n + simplices + 2 * kId * criticalCount;
  const double arcs = arcBytes(critical, top, saddleConnections);
  // GPU: the labels and the saddles' path ends come down; the staging buffers are freed
  // before the boundary forest and the arcs.
  if (path == HostPath::Gpu)
    return gradient + (kId + 3 * kLabel) * n + kLabel * cells +
           2 * kId * pathSaddles(critical, top) +
           std::max(stagingBytes(std::max(kId * n, kLabel * cells)),
                    boundaryForestBytes(size) + arcs);
  // CPU: at the end (the saddle connections), the minima's indices, DescendingManifold
  // and AscendingManifold per vertex, per top cell its root, its maximum's index and its
  // label, and the boundary facets' lists (the boundary forest's flags and offsets freed,
  // counted with the transients).
  return gradient + freedTransients(size) + (kId + 2 * kLabel) * n +
         (2 * kId + kLabel) * cells + boundaryForestBytes(size) -
         double(size.simplices[std::size_t(top - 1)]) - 2 * kId * n + arcs;
}

void refuseOverBudget(const sg::ComplexSize& size,
                      const std::array<SimplexId, 4>& critical, HostPath path,
                      bool saddleConnections, bool implicitGrid, double budget,
                      HostPart part) {
  const double needed = complexHostBytes(size, critical, path, saddleConnections, part);
  if (!(needed > budget))
    return;
  std::string advice = "raise the memory budget";
  if (path == HostPath::Cpu && implicitGrid)
    advice += ", run it on a GPU (the GPU path's host part needs about " +
              byteSize(complexHostBytes(size, critical, HostPath::Gpu, saddleConnections,
                                        part)) +
              ")";
  advice += implicitGrid ? ", use a smaller or subsampled field, or the cubical complex"
                         : " or use a smaller mesh";
  refuseOverHostMemoryBudget(needed, budget,
                             std::string("the simplicial Morse-Smale complex (") +
                                 (path == HostPath::Gpu ? "GPU" : "CPU") + " path) of " +
                                 sg::describe(size),
                             advice);
}

} // namespace topogpu::morse_smale_complex::simplicial
