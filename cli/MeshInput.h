// Mesh inputs of the CLI: OFF without VTK; .vtu/.vtp/.vti/.vtk/.ply through VTK readers
// and the filters' adaptor when the build has VTK.
#pragma once

#include "core/common/ScalarArray.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <memory>
#include <string>
#include <vector>

namespace topogpu::cli {

struct MeshInput {
  std::shared_ptr<ExplicitTriangulation> explicitTriangulation;
  std::shared_ptr<ImplicitTriangulation> implicitTriangulation; // .vti inputs
  ScalarArrayView values;
  std::vector<double> ownedValues; // backs `values` when the CLI derived them
  std::shared_ptr<void> keepAlive; // backs `values` when a reader owns them
  std::string note;
};

// arrayName: a point array of the file, or x, y, z (a coordinate as the scalar).
MeshInput loadMesh(const std::string& path, const std::string& arrayName);

#if TOPOGPU_WITH_VTK
MeshInput loadMeshWithVtk(const std::string& path, const std::string& arrayName);
#endif

} // namespace topogpu::cli
