#include "TopoGPUDataSetAdaptor.h"

#include <vtkCellArray.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkDataSetAttributes.h>
#include <vtkIdList.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkType.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <vector>

namespace topogpu::vtk {

namespace {

// Collects the cells of the highest dimension present (tets, else triangles); other
// cells are counted as skipped.
TriangulationResult fromCells(vtkDataSet* input) {
  const vtkIdType cells = input->GetNumberOfCells();
  if (cells == 0)
    throw Error("the input has no cells");
  vtkIdType tets = 0, triangles = 0;
  for (vtkIdType c = 0; c < cells; ++c) {
    const int type = input->GetCellType(c);
    tets += type == VTK_TETRA;
    triangles += type == VTK_TRIANGLE;
  }
  if (tets == 0 && triangles == 0)
    throw Error("the input has no triangle or tetrahedron cells (" +
                std::to_string(cells) +
                " cells of other types); triangulate it first (Tetrahedralize or "
                "Triangulate filter)");
  const int dimension = tets > 0 ? 3 : 2;
  const int wanted = tets > 0 ? VTK_TETRA : VTK_TRIANGLE;
  std::vector<SimplexId> connectivity;
  connectivity.reserve((tets > 0 ? tets : triangles) * (dimension + 1));
  vtkNew<vtkIdList> ids;
  for (vtkIdType c = 0; c < cells; ++c) {
    if (input->GetCellType(c) != wanted)
      continue;
    input->GetCellPoints(c, ids);
    for (vtkIdType k = 0; k < ids->GetNumberOfIds(); ++k)
      connectivity.push_back(ids->GetId(k));
  }
  TriangulationResult result;
  const vtkIdType skipped = cells - (tets > 0 ? tets : triangles);
  if (skipped > 0)
    result.note = std::to_string(skipped) + " of " + std::to_string(cells) +
                  " cells are not " + (tets > 0 ? "tetrahedra" : "triangles") +
                  " and were ignored";
  result.triangulation = std::make_shared<ExplicitTriangulation>(
      input->GetNumberOfPoints(), dimension, std::move(connectivity));
  return result;
}

} // namespace

TriangulationResult makeTriangulation(vtkDataSet* input) {
  if (input == nullptr || input->GetNumberOfPoints() == 0)
    throw Error("the input is empty (no points)");
  if (auto* image = vtkImageData::SafeDownCast(input)) {
    int dims[3];
    image->GetDimensions(dims);
    auto grid = std::make_shared<ImplicitTriangulation>(dims[0], dims[1], dims[2]);
    // A piece of a distributed image: a face made of ghost points is a cut between
    // pieces, not the domain's boundary (TTK's boundary rule reads it).
    if (vtkUnsignedCharArray* ghosts = image->GetPointData()->GetGhostArray()) {
      int faces = 0;
      for (int f = 0; f < 6; ++f) {
        int ijk[3] = {dims[0] / 2, dims[1] / 2, dims[2] / 2};
        ijk[f / 2] = f % 2 ? dims[f / 2] - 1 : 0;
        const vtkIdType v =
            ijk[0] + vtkIdType(dims[0]) * (ijk[1] + vtkIdType(dims[1]) * ijk[2]);
        if (!(ghosts->GetValue(v) & vtkDataSetAttributes::DUPLICATEPOINT))
          faces |= 1 << f;
      }
      grid->setBoundaryFaces(faces);
    }
    TriangulationResult result;
    result.triangulation = std::move(grid);
    return result;
  }
  if (vtkUnstructuredGrid::SafeDownCast(input) || vtkPolyData::SafeDownCast(input))
    return fromCells(input);
  throw Error(std::string("unsupported input type ") + input->GetClassName() +
              " (expected vtkImageData, vtkUnstructuredGrid or vtkPolyData)");
}

ScalarArrayView viewScalarArray(vtkDataArray* array, const std::string& name) {
  if (array == nullptr)
    throw Error("no point scalar array '" + name + "' on the input");
  if (array->GetNumberOfComponents() != 1)
    throw Error("array '" + name + "' has " +
                std::to_string(array->GetNumberOfComponents()) +
                " components; a scalar (1 component) array is needed");
  ScalarArrayView view;
  view.data = array->GetVoidPointer(0);
  view.size = array->GetNumberOfTuples();
  switch (array->GetDataType()) {
  case VTK_CHAR:
  case VTK_SIGNED_CHAR:
    view.type = ScalarType::Int8;
    break;
  case VTK_UNSIGNED_CHAR:
    view.type = ScalarType::UInt8;
    break;
  case VTK_SHORT:
    view.type = ScalarType::Int16;
    break;
  case VTK_UNSIGNED_SHORT:
    view.type = ScalarType::UInt16;
    break;
  case VTK_INT:
    view.type = ScalarType::Int32;
    break;
  case VTK_UNSIGNED_INT:
    view.type = ScalarType::UInt32;
    break;
  case VTK_LONG:
  case VTK_LONG_LONG:
  case VTK_ID_TYPE:
    view.type = sizeof(long) == 8 || array->GetDataType() != VTK_LONG ? ScalarType::Int64
                                                                      : ScalarType::Int32;
    break;
  case VTK_UNSIGNED_LONG:
  case VTK_UNSIGNED_LONG_LONG:
    view.type = sizeof(unsigned long) == 8 || array->GetDataType() != VTK_UNSIGNED_LONG
                    ? ScalarType::UInt64
                    : ScalarType::UInt32;
    break;
  case VTK_FLOAT:
    view.type = ScalarType::Float32;
    break;
  case VTK_DOUBLE:
    view.type = ScalarType::Float64;
    break;
  default:
    throw Error("array '" + name + "' has the non-numeric type " +
                std::string(array->GetDataTypeAsString()));
  }
  return view;
}

} // namespace topogpu::vtk
