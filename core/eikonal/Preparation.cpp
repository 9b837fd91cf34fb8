#include "Preparation.h"

#include <tbb/parallel_for.h>

#include <cstring>
#include <vector>

namespace topogpu::eikonal {

namespace {

constexpr std::uint64_t kOffset = 1469598103934665603ULL;

// FNV-1a over 64-bit words.
std::uint64_t add(std::uint64_t h, std::uint64_t word) {
  return (h ^ word) * 1099511628211ULL;
}

std::uint64_t bitsOf(double x) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// The fingerprint of count words word(i): blocks hashed in parallel, then folded in
// order.
template <typename Word> std::uint64_t fingerprint(std::int64_t count, const Word& word) {
  constexpr std::int64_t kBlock = 1 << 16;
  const std::int64_t blocks = (count + kBlock - 1) / kBlock;
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(blocks));
  tbb::parallel_for(std::int64_t(0), blocks, [&](std::int64_t b) {
    std::uint64_t h = kOffset;
    const std::int64_t end = std::min(count, (b + 1) * kBlock);
    for (std::int64_t i = b * kBlock; i < end; ++i)
      h = add(h, word(i));
    hashes[std::size_t(b)] = h;
  });
  std::uint64_t h = add(kOffset, std::uint64_t(count));
  for (std::uint64_t block : hashes)
    h = add(h, block);
  return h;
}

} // namespace

std::size_t Preparation::bytes() const {
  const std::size_t meshBytes =
      (mesh.length.size() + mesh.slowness.size()) * sizeof(double) +
      mesh.edgesOnly.size() + mesh.splitCorner.size() +
      mesh.fanStart.size() * sizeof(std::int64_t) + mesh.fanSize.size() +
      mesh.fanPoints.size() * sizeof(detail::FanPoint) +
      (mesh.dependentOffsets.size() + mesh.dependents.size()) * sizeof(SimplexId);
  return (hasMesh ? meshBytes : 0) + exact.bytes() + (hasPatches ? patches.bytes() : 0);
}

std::uint64_t meshFingerprint(const ExplicitTriangulation& triangulation,
                              const double* points, const Parameters& parameters) {
  const SimplexId nv = triangulation.getNumberOfVertices();
  const SimplexId nt = triangulation.getNumberOfCells();
  std::uint64_t h = add(kOffset, std::uint64_t(triangulation.getDimension()));
  h = add(h, fingerprint(3 * nt, [&](std::int64_t i) {
            return std::uint64_t(triangulation.getCellVertex(i / 3, int(i % 3)));
          }));
  h = add(h, fingerprint(3 * nv, [&](std::int64_t i) { return bitsOf(points[i]); }));
  h = add(h, std::uint64_t(parameters.speedKind));
  if (parameters.speedKind == SpeedKind::Constant) {
    h = add(h, bitsOf(parameters.speed));
  } else {
    const SimplexId n = parameters.speedKind == SpeedKind::PerVertex ? nv : nt;
    const double* speed = parameters.speedValues;
    h = add(h, speed == nullptr ? 0 : fingerprint(n, [&](std::int64_t i) {
              return bitsOf(speed[i]);
            }));
  }
  h = add(h, std::uint64_t(parameters.maxUnfoldingSteps));
  return add(h, parameters.unfoldObtuseAngles ? 1 : 0);
}

std::uint64_t patchFingerprint(std::uint64_t meshKey, const Parameters& parameters) {
  return add(add(add(kOffset, meshKey), std::uint64_t(parameters.patchSize)),
             parameters.useMetis ? 1 : 0);
}

} // namespace topogpu::eikonal
