// GALE against the explicit backend on every tetrahedral mesh of ../shared/data/tets
// (inverted and zero-volume tets, mixed cell types), read through VTK's readers and the
// filters' adaptor (so the cells are exactly what the filters and the CLI see): every
// relation of every simplex, as sets, with small and default segments. Files the adaptor
// rejects (quadratic tets, the Medit file VTK cannot read) must be rejected the same way
// by both; missing data skips with a message.
#include "GaleChecks.h"

#include "TopoGPUDataSetAdaptor.h"

#include <vtkDataSet.h>
#include <vtkDataSetReader.h>
#include <vtkSmartPointer.h>
#include <vtkXMLGenericDataObjectReader.h>

#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

namespace topogpu::test {
namespace {

vtkSmartPointer<vtkDataSet> readMesh(const std::string& path) {
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".vtk") == 0) {
    auto reader = vtkSmartPointer<vtkDataSetReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    return vtkDataSet::SafeDownCast(reader->GetOutput());
  }
  auto reader = vtkSmartPointer<vtkXMLGenericDataObjectReader>::New();
  reader->SetFileName(path.c_str());
  reader->Update();
  return vtkDataSet::SafeDownCast(reader->GetOutput());
}

TEST(GaleMeshes, EveryRelationEqualsExplicitOnTheSharedTetMeshes) {
  const std::string folder = sharedDataDir() + "/tets";
  std::vector<std::string> files;
  if (DIR* dir = opendir(folder.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.size() > 4 && (name.substr(name.size() - 4) == ".vtu" ||
                              name.substr(name.size() - 4) == ".vtk"))
        files.push_back(name);
    }
    closedir(dir);
  }
  if (files.empty())
    GTEST_SKIP() << "no tet meshes under " << folder;
  std::sort(files.begin(), files.end());
  int compared = 0;
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    vtkSmartPointer<vtkDataSet> data = readMesh(folder + "/" + name);
    ASSERT_TRUE(data) << "VTK could not read " << name;
    std::shared_ptr<ExplicitTriangulation> mesh;
    try {
      vtk::TriangulationResult result = vtk::makeTriangulation(data);
      mesh = std::get<std::shared_ptr<ExplicitTriangulation>>(result.triangulation);
    } catch (const Error& error) {
      std::cout << "[ rejected ] " << name << ": " << error.what() << "\n";
      continue;
    }
    std::vector<double> points(3 * std::size_t(data->GetNumberOfPoints()));
    for (vtkIdType v = 0; v < data->GetNumberOfPoints(); ++v)
      data->GetPoint(v, &points[3 * std::size_t(v)]);
    mesh->precondition(AllRelations);
    for (const SimplexId capacity : {SimplexId(8), SimplexId(100)}) {
      gale::Parameters parameters;
      parameters.segmentCapacity = capacity;
      // every segment stays cached: the checks read tets in input order (random
      // segments); tiny caches are the stress test's business
      parameters.cacheSegments = 1 << 20;
      auto gale = GaleTriangulation::fromExplicit(*mesh, points, parameters);
      gale->precondition(AllRelations);
      compareWithExplicit(*gale, *mesh, name + " N=" + std::to_string(capacity));
    }
    std::cout << "[ compared ] " << name << " (" << mesh->getNumberOfCells()
              << " cells)\n";
    ++compared;
  }
  EXPECT_GE(compared, 5);
}

} // namespace
} // namespace topogpu::test
