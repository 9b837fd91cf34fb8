#include "TopoGPUGatherToRoot.h"

#include <vtkDataObject.h>
#include <vtkFieldData.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkIntArray.h>
#include <vtkMultiProcessController.h>
#include <vtkPolyData.h>

namespace topogpu::vtk {

std::vector<vtkSmartPointer<vtkDataObject>>
gatherToRoot(vtkMultiProcessController* controller, vtkDataObject* piece) {
  vtkSmartPointer<vtkDataObject> sent = piece;
  if (sent == nullptr)
    sent = vtkSmartPointer<vtkPolyData>::New();
  std::vector<vtkSmartPointer<vtkDataObject>> pieces;
  controller->Gather(sent, pieces, kResultRank);
  return pieces;
}

vtkSmartPointer<vtkInformationVector> inputVectorOf(vtkDataObject* data) {
  auto info = vtkSmartPointer<vtkInformation>::New();
  info->Set(vtkDataObject::DATA_OBJECT(), data);
  auto vector = vtkSmartPointer<vtkInformationVector>::New();
  vector->Append(info);
  return vector;
}

void addResultRank(vtkDataObject* output) {
  auto rank = vtkSmartPointer<vtkIntArray>::New();
  rank->SetName("TopoGPUResultRank");
  rank->InsertNextValue(kResultRank);
  output->GetFieldData()->AddArray(rank);
}

void addResultRank(vtkInformationVector* outputVector) {
  for (int i = 0; i < outputVector->GetNumberOfInformationObjects(); ++i) {
    if (vtkDataObject* output = vtkDataObject::GetData(outputVector, i))
      addResultRank(output);
  }
}

} // namespace topogpu::vtk
