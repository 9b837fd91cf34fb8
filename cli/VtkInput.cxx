// VTK formats for the CLI: the readers VTK ships, then the adaptor the filters use.
#include "MeshInput.h"
#include "TopoGPUDataSetAdaptor.h"

#include <vtkDataSet.h>
#include <vtkDataSetReader.h>
#include <vtkDoubleArray.h>
#include <vtkPLYReader.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLGenericDataObjectReader.h>

#include <fstream>

namespace topogpu::cli {

MeshInput loadMeshWithVtk(const std::string& path, const std::string& arrayName) {
  if (!std::ifstream(path))
    throw Error("cannot open mesh '" + path + "'");
  vtkSmartPointer<vtkDataSet> data;
  const std::string ext = path.substr(path.find_last_of('.') + 1);
  if (ext == "vtk") {
    auto reader = vtkSmartPointer<vtkDataSetReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    data = reader->GetOutput();
  } else if (ext == "ply") {
    auto reader = vtkSmartPointer<vtkPLYReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    data = reader->GetOutput();
  } else if (ext == "vtu" || ext == "vtp" || ext == "vti") {
    auto reader = vtkSmartPointer<vtkXMLGenericDataObjectReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    data = vtkDataSet::SafeDownCast(reader->GetOutput());
  } else {
    throw Error("unsupported mesh format '." + ext +
                "' (expected .off .vtu .vtp .vti .vtk .ply)");
  }
  if (data == nullptr || data->GetNumberOfPoints() == 0)
    throw Error("could not read a data set with points from '" + path + "'");

  MeshInput input;
  input.keepAlive = std::shared_ptr<void>(data.GetPointer(), [keep = data](void*) {});
  const int axis = arrayName == "x"   ? 0
                   : arrayName == "y" ? 1
                   : arrayName == "z" ? 2
                                      : -1;
  if (axis >= 0 && data->GetPointData()->GetArray(arrayName.c_str()) == nullptr) {
    input.ownedValues.resize(data->GetNumberOfPoints());
    for (vtkIdType v = 0; v < data->GetNumberOfPoints(); ++v)
      input.ownedValues[v] = data->GetPoint(v)[axis];
    input.values = {input.ownedValues.data(), ScalarType::Float64,
                    SimplexId(input.ownedValues.size())};
  } else {
    input.values = vtk::viewScalarArray(data->GetPointData()->GetArray(arrayName.c_str()),
                                        arrayName);
  }
  vtk::TriangulationResult result = vtk::makeTriangulation(data);
  input.note = result.note;
  if (auto* grid =
          std::get_if<std::shared_ptr<ImplicitTriangulation>>(&result.triangulation))
    input.implicitTriangulation = *grid;
  else
    input.explicitTriangulation =
        std::get<std::shared_ptr<ExplicitTriangulation>>(result.triangulation);
  return input;
}

} // namespace topogpu::cli
