#include "MeshFiles.h"

#include <fstream>
#include <sstream>

namespace topogpu::io {

RawVolume readRawVolume(const std::string& path, const std::array<SimplexId, 3>& dims,
                        ScalarType type) {
  RawVolume volume;
  volume.dims = dims;
  volume.type = type;
  for (SimplexId d : dims) {
    if (d <= 0)
      throw Error("grid dimensions must be positive");
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw Error("cannot open raw volume '" + path + "'");
  const auto fileSize = static_cast<std::uint64_t>(in.tellg());
  const std::uint64_t expected =
      std::uint64_t(dims[0] * dims[1] * dims[2]) * scalarTypeSize(type);
  if (fileSize != expected)
    throw Error("raw volume '" + path + "' has " + std::to_string(fileSize) +
                " bytes but " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                "x" + std::to_string(dims[2]) + " " + scalarTypeName(type) + " needs " +
                std::to_string(expected));
  volume.bytes.resize(expected);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(volume.bytes.data()), std::streamsize(expected));
  return volume;
}

std::array<SimplexId, 3> parseDims(const std::string& text) {
  std::array<SimplexId, 3> dims{1, 1, 1};
  std::stringstream in(text);
  std::string part;
  int count = 0;
  while (std::getline(in, part, ',')) {
    if (count == 3)
      throw Error("--dims takes at most three sizes: '" + text + "'");
    try {
      std::size_t used = 0;
      dims[count] = std::stoll(part, &used);
      if (used != part.size())
        throw Error("");
    } catch (const std::exception&) {
      throw Error("--dims expects X,Y,Z integers, got '" + text + "'");
    }
    ++count;
  }
  if (count < 2)
    throw Error("--dims expects X,Y,Z (or X,Y), got '" + text + "'");
  return dims;
}

namespace {
// Next token of an OFF file, skipping '#' comments.
bool nextToken(std::istream& in, std::string& token) {
  while (in >> token) {
    if (token[0] != '#')
      return true;
    std::string rest;
    std::getline(in, rest);
  }
  return false;
}
long long nextInteger(std::istream& in, const std::string& path) {
  std::string token;
  if (!nextToken(in, token))
    throw Error("OFF file '" + path + "' ends early");
  try {
    return std::stoll(token);
  } catch (const std::exception&) {
    throw Error("OFF file '" + path + "': expected an integer, got '" + token + "'");
  }
}
} // namespace

SurfaceMesh readOff(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open mesh '" + path + "'");
  std::string token;
  if (!nextToken(in, token) || token.rfind("OFF", 0) != 0)
    throw Error("'" + path + "' is not an OFF file (no OFF header)");
  const long long vertices = nextInteger(in, path), faces = nextInteger(in, path);
  nextInteger(in, path); // edge count, unused by the format
  if (vertices <= 0 || faces < 0)
    throw Error("OFF file '" + path + "' declares no vertices");
  SurfaceMesh mesh;
  mesh.points.resize(vertices * 3);
  for (auto& x : mesh.points) {
    if (!nextToken(in, token))
      throw Error("OFF file '" + path + "' ends inside the vertex list");
    x = std::stod(token);
  }
  mesh.cells.reserve(faces * 3);
  for (long long f = 0; f < faces; ++f) {
    const long long n = nextInteger(in, path);
    if (n != 3)
      throw Error("OFF file '" + path + "': face " + std::to_string(f) + " has " +
                  std::to_string(n) + " vertices; only triangle meshes are supported");
    for (int k = 0; k < 3; ++k)
      mesh.cells.push_back(nextInteger(in, path));
    std::getline(in, token); // optional colour
  }
  if (mesh.cells.empty())
    throw Error("OFF file '" + path + "' has no faces");
  return mesh;
}

} // namespace topogpu::io
