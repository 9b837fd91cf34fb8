#include "vtkTopoGPUScalarFieldSmoother.h"

#include "TopoGPUFilterRun.h"

#include "core/common/Timer.h"
#include "core/scalar_field_smoother/ScalarFieldSmoother.h"

#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkStreamingDemandDrivenPipeline.h>

#include <algorithm>
#include <string>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUScalarFieldSmoother);

vtkTopoGPUScalarFieldSmoother::vtkTopoGPUScalarFieldSmoother() {
  this->Label = "TopoGPU Scalar Field Smoother";
}

vtkTopoGPUScalarFieldSmoother::~vtkTopoGPUScalarFieldSmoother() = default;

void vtkTopoGPUScalarFieldSmoother::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "NumberOfIterations: " << this->NumberOfIterations << "\n";
  os << indent << "ForceInputMaskScalarField: " << this->ForceInputMaskScalarField
     << "\n";
}

int vtkTopoGPUScalarFieldSmoother::FillOutputPortInformation(int port,
                                                             vtkInformation* info) {
  if (port != 0)
    return 0;
  // "vtkDataSet": the base class creates an output of the input's type.
  info->Set(vtkDataObject::DATA_TYPE_NAME(), "vtkDataSet");
  return 1;
}

int vtkTopoGPUScalarFieldSmoother::RequestUpdateExtent(
    vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) {
  this->Superclass::RequestUpdateExtent(request, inputVector, outputVector);
  // Each pass reads one more ring of neighbours: as many ghost layers as passes keep
  // the owned points of a piece exact.
  // A count out of range asks for nothing: the run refuses it.
  const int passes = this->NumberOfIterations;
  vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
  if (inInfo != nullptr && passes <= topogpu::scalar_field_smoother::kMaxIterations) {
    const auto key = vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS();
    inInfo->Set(key, std::max(inInfo->Get(key), passes));
  }
  return 1;
}

namespace {

// Input array 1 as one byte per vertex (nonzero = smoothed).
std::vector<std::uint8_t> maskOf(vtkDataArray* array, vtkIdType n) {
  if (array == nullptr)
    throw topogpu::Error("ForceInputMaskScalarField is on but no mask array (input array "
                         "1) is selected or found on the input's points");
  if (array->GetNumberOfComponents() != 1 || array->GetNumberOfTuples() != n)
    throw topogpu::Error(std::string("mask array '") +
                         (array->GetName() ? array->GetName() : "(unnamed)") +
                         "' must be a one-component point array");
  std::vector<std::uint8_t> mask(n);
  for (vtkIdType v = 0; v < n; ++v)
    mask[v] = array->GetComponent(v, 0) != 0 ? 1 : 0;
  return mask;
}

} // namespace

void vtkTopoGPUScalarFieldSmoother::Compute(topogpu::vtk::FilterRun& run) {
  namespace sfs = topogpu::scalar_field_smoother;
  sfs::Parameters parameters;
  parameters.backend = run.backend;
  parameters.numberOfIterations = this->NumberOfIterations;
  std::vector<std::uint8_t> mask;
  if (this->ForceInputMaskScalarField) {
    mask = maskOf(this->GetInputArrayToProcess(1, run.inputVector),
                  run.input->GetNumberOfPoints());
    parameters.mask = mask.data();
  }
  // A plain (array-of-structs) array of the input's VTK type receives the result.
  vtkSmartPointer<vtkDataArray> smoothed;
  smoothed.TakeReference(vtkDataArray::CreateDataArray(run.scalars->GetDataType()));
  smoothed->SetName(run.scalars->GetName());
  smoothed->SetNumberOfComponents(1);
  smoothed->SetNumberOfTuples(run.values.size);
  run.visit([&](auto& triangulation) {
    sfs::execute(triangulation, run.values, parameters, run.monitor,
                 smoothed->GetVoidPointer(0), run.report);
  });

  const topogpu::Timer outputTimer;
  // As TTK: the input passed through, its array replaced (same name: AddArray replaces
  // it in place, so it stays the active scalars when it was).
  vtkDataSet* output = vtkDataSet::GetData(run.outputVector, 0);
  output->ShallowCopy(run.input);
  if (run.scalars->GetName() != nullptr)
    output->GetPointData()->AddArray(smoothed);
  else // an unnamed input can only have been the active scalars
    output->GetPointData()->SetScalars(smoothed);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
