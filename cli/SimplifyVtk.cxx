// `topogpu simplify`'s VTK files: constraint points from a TTK-layout diagram and the
// simplified field written into the input's own data set (SimplifyFiles.h).
#include "SimplifyFiles.h"

#include "Arguments.h"
#include "VtkRead.h"
#include "base/TopoGPUDiagramLayout.h"

#include <vtkAOSDataArrayTemplate.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkIdTypeArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLDataSetWriter.h>

#include <cstring>

namespace topogpu::cli {

std::vector<topological_simplification::Constraint>
readConstraintsVtk(const std::string& path) {
  return vtk::diagramConstraints(readDataSet(path), "'" + path + "'");
}

void writeSimplifiedFieldVtk(const std::string& path, const SimplifiedField& field) {
  vtkSmartPointer<vtkDataSet> data;
  if (field.rawVolume) {
    auto image = vtkSmartPointer<vtkImageData>::New();
    image->SetDimensions(int(field.dims[0]), int(field.dims[1]), int(field.dims[2]));
    data = image;
  } else if (field.input != nullptr) {
    // A copy that shares the input's arrays: the input's own point data stays as read.
    data.TakeReference(field.input->NewInstance());
    data->ShallowCopy(field.input);
  }
  const char* expected = data == nullptr                           ? nullptr
                         : vtkImageData::SafeDownCast(data)        ? ".vti"
                         : vtkPolyData::SafeDownCast(data)         ? ".vtp"
                         : vtkUnstructuredGrid::SafeDownCast(data) ? ".vtu"
                                                                   : nullptr;
  if (expected == nullptr || !endsWith(path, expected))
    throw Error("'" + path + "': this input's simplified field is written as " +
                std::string(expected ? expected : ".raw"));
  vtkSmartPointer<vtkDataArray> values;
  TOPOGPU_DISPATCH_SCALAR(field.values.type, {
    values = vtkSmartPointer<vtkAOSDataArrayTemplate<ValueT>>::New();
  });
  values->SetName(field.arrayName.c_str());
  values->SetNumberOfTuples(field.values.size);
  std::memcpy(values->GetVoidPointer(0), field.values.data,
              std::size_t(field.values.size) * scalarTypeSize(field.values.type));
  vtkNew<vtkIdTypeArray> order;
  order->SetName((field.arrayName + "_Order").c_str());
  order->SetNumberOfTuples(field.values.size);
  for (SimplexId v = 0; v < field.values.size; ++v)
    order->SetValue(v, vtkIdType((*field.order)[std::size_t(v)]));
  data->GetPointData()->RemoveArray(field.arrayName.c_str());
  data->GetPointData()->AddArray(values);
  data->GetPointData()->AddArray(order);
  data->GetPointData()->SetActiveScalars(field.arrayName.c_str());
  vtkNew<vtkXMLDataSetWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputData(data);
  if (writer->Write() != 1)
    throw Error("cannot write the simplified field to '" + path + "'");
}

} // namespace topogpu::cli
