// VTK-free readers for the inputs the CLI takes without VTK: raw volumes and OFF meshes.
#pragma once

#include "core/common/ScalarArray.h"

#include <array>
#include <string>
#include <vector>

namespace topogpu::io {

struct RawVolume {
  std::array<SimplexId, 3> dims{1, 1, 1};
  ScalarType type = ScalarType::UInt8;
  std::vector<unsigned char> bytes; // little-endian values, x fastest

  ScalarArrayView view() const {
    return {bytes.data(), type, dims[0] * dims[1] * dims[2]};
  }
};

// Throws Error when the file is missing or its size is not X*Y*Z*sizeof(type).
RawVolume readRawVolume(const std::string& path, const std::array<SimplexId, 3>& dims,
                        ScalarType type);

// Parses "X,Y,Z" (or "X,Y" for 2D).
std::array<SimplexId, 3> parseDims(const std::string& text);

struct SurfaceMesh {
  std::vector<double> points; // x y z per vertex
  int cellDimension = 2;
  std::vector<SimplexId> cells; // 3 ids per triangle
  SimplexId numberOfVertices() const { return SimplexId(points.size() / 3); }
};

// OFF (Object File Format) triangle meshes; faces that are not triangles -> Error.
SurfaceMesh readOff(const std::string& path);

} // namespace topogpu::io
