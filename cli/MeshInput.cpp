#include "MeshInput.h"

#include "triangulation/io/MeshFiles.h"

namespace topogpu::cli {

namespace {
bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

MeshInput loadMesh(const std::string& path, const std::string& arrayName) {
  if (endsWith(path, ".off")) {
    const int axis = arrayName == "x"   ? 0
                     : arrayName == "y" ? 1
                     : arrayName == "z" ? 2
                                        : -1;
    if (axis < 0)
      throw Error(
          "OFF files carry no point arrays; use --array x, y or z (a coordinate as "
          "the scalar field)");
    io::SurfaceMesh surface = io::readOff(path);
    MeshInput input;
    input.ownedValues.resize(surface.numberOfVertices());
    for (SimplexId v = 0; v < surface.numberOfVertices(); ++v)
      input.ownedValues[v] = surface.points[3 * v + axis];
    input.values = {input.ownedValues.data(), ScalarType::Float64,
                    SimplexId(input.ownedValues.size())};
    input.explicitTriangulation = std::make_shared<ExplicitTriangulation>(
        surface.numberOfVertices(), 2, std::move(surface.cells));
    return input;
  }
#if TOPOGPU_WITH_VTK
  return loadMeshWithVtk(path, arrayName);
#else
  throw Error("this build has no VTK: --mesh reads only .off files (got '" + path + "')");
#endif
}

} // namespace topogpu::cli
