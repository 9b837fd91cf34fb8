// VTK-free readers for the inputs the CLI takes without VTK: raw volumes, OFF and PLY
// triangle meshes. They are written for untrusted files: every count is bounded by the
// file size before anything is allocated, every number is parsed strictly, and every
// problem is an Error naming the file and what is wrong (never a crash or a silent
// partial read).
#pragma once

#include "base/ScalarArray.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::io {

// Size of a regular file we can read; a missing file, a directory, an unreadable file or
// "-" (standard input, which these readers do not take) -> Error naming it (`what` says
// which input: "raw volume", "mesh").
std::uint64_t readableFileSize(const std::string& path, const std::string& what);

struct RawVolume {
  std::array<SimplexId, 3> dims{1, 1, 1};
  ScalarType type = ScalarType::UInt8;
  std::vector<unsigned char> bytes; // little-endian values, x fastest

  ScalarArrayView view() const {
    return {bytes.data(), type, dims[0] * dims[1] * dims[2]};
  }
};

// Throws Error when the file is missing or its size is not X*Y*Z*sizeof(type) (the
// product is checked for overflow before it is compared with the file size).
RawVolume readRawVolume(const std::string& path, const std::array<SimplexId, 3>& dims,
                        ScalarType type);

struct SurfaceMesh {
  std::vector<double> points; // x y z per vertex
  int cellDimension = 2;
  std::vector<SimplexId> cells; // 3 ids per triangle
  // Scalar per-vertex properties of a PLY file (x, y, z included), by name.
  std::vector<std::pair<std::string, std::vector<double>>> pointArrays;
  SimplexId numberOfVertices() const { return SimplexId(points.size() / 3); }
};

// OFF (Object File Format) triangle meshes; faces that are not triangles -> Error.
SurfaceMesh readOff(const std::string& path);

// PLY (ascii, binary_little_endian, binary_big_endian) triangle meshes: the "vertex"
// element (x, y, z and any other scalar property) and the "face" element's
// vertex_indices (or vertex_index) list; faces that are not triangles -> Error.
SurfaceMesh readPly(const std::string& path);

} // namespace topogpu::io
