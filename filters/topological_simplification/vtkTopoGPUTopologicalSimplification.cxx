#include "vtkTopoGPUTopologicalSimplification.h"

#include "TopoGPUArrays.h"
#include "TopoGPUDataSetAdaptor.h"
#include "TopoGPUDiagramLayout.h"
#include "TopoGPUFilterRun.h"
#include "TopoGPUMemoryBudget.h"

#include "base/Timer.h"
#include "core/topological_simplification/TopologicalSimplification.h"

#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkFieldData.h>
#include <vtkIdTypeArray.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUTopologicalSimplification);

namespace {

namespace ts = topogpu::topological_simplification;
using topogpu::vtk::namedArray;

// TTK's constraint points (port 1), which must not be empty.
std::vector<ts::Constraint> constraintsOf(vtkDataSet* points) {
  if (points == nullptr || points->GetNumberOfPoints() == 0)
    throw topogpu::Error(
        "the Constraints input has no points: connect a point set with the extrema to "
        "keep (e.g. a thresholded persistence diagram with at least one pair), or "
        "disconnect it to simplify by Persistence Threshold");
  return topogpu::vtk::diagramConstraints(points, "the Constraints input");
}

// Per PairType (0..3) the number of pairs.
vtkSmartPointer<vtkIdTypeArray>
pairCounts(const char* name, const std::vector<ts::pd::DiagramPair>& pairs) {
  auto array = namedArray<vtkIdTypeArray>(name, 4);
  std::array<vtkIdType, 4> counts{};
  for (const auto& p : pairs)
    if (p.type >= 0 && p.type < 4)
      ++counts[std::size_t(p.type)];
  for (int k = 0; k < 4; ++k)
    array->SetValue(k, counts[std::size_t(k)]);
  return array;
}

} // namespace

vtkTopoGPUTopologicalSimplification::vtkTopoGPUTopologicalSimplification() {
  this->Label = "TopoGPU Topological Simplification";
  this->TriangulationRandomAccess = true; // the input diagram's V-paths
  this->MaximumIterations = ts::kDefaultMaximumIterations;
  this->SetNumberOfInputPorts(2);
}

vtkTopoGPUTopologicalSimplification::~vtkTopoGPUTopologicalSimplification() = default;

void vtkTopoGPUTopologicalSimplification::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "PersistenceThreshold: " << this->PersistenceThreshold << "\n";
  os << indent << "ThresholdIsAbsolute: " << this->ThresholdIsAbsolute << "\n";
  os << indent << "MaximumIterations: " << this->MaximumIterations << "\n";
  os << indent << "MemoryBudget: " << this->MemoryBudget << "\n";
}

int vtkTopoGPUTopologicalSimplification::FillInputPortInformation(int port,
                                                                  vtkInformation* info) {
  if (port == 0)
    return this->Superclass::FillInputPortInformation(port, info);
  if (port == 1) {
    info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkDataSet");
    info->Set(vtkAlgorithm::INPUT_IS_OPTIONAL(), 1);
    return 1;
  }
  return 0;
}

int vtkTopoGPUTopologicalSimplification::FillOutputPortInformation(int port,
                                                                   vtkInformation* info) {
  if (port != 0)
    return 0;
  // "vtkDataSet": the base class creates an output of the input's type.
  info->Set(vtkDataObject::DATA_TYPE_NAME(), "vtkDataSet");
  return 1;
}

void vtkTopoGPUTopologicalSimplification::Compute(topogpu::vtk::FilterRun& run) {
  ts::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  parameters.persistenceThreshold = this->PersistenceThreshold;
  parameters.thresholdIsRelative = !this->ThresholdIsAbsolute;
  parameters.maximumIterations = this->MaximumIterations;
  parameters.memoryBudget = topogpu::vtk::memoryBudgetBytes(this->MemoryBudget);
  if (this->GetNumberOfInputConnections(1) > 0) {
    parameters.useConstraints = true;
    parameters.constraints = constraintsOf(vtkDataSet::GetData(run.inputVector[1], 0));
  }
  ts::Output simplified;
  const std::vector<topogpu::Warning> warnings = run.report.warnings;
  run.visit([&](auto& triangulation) {
    ts::execute(triangulation, run.values, parameters, run.monitor, simplified);
  });
  run.report = simplified.report;
  run.report.warnings.insert(run.report.warnings.begin(), warnings.begin(),
                             warnings.end());

  const topogpu::Timer outputTimer;
  const vtkIdType n = run.values.size;
  vtkSmartPointer<vtkDataArray> values;
  values.TakeReference(vtkDataArray::CreateDataArray(run.scalars->GetDataType()));
  values->SetName(run.scalars->GetName());
  values->SetNumberOfComponents(1);
  values->SetNumberOfTuples(n);
  if (!simplified.values.empty())
    std::memcpy(values->GetVoidPointer(0), simplified.values.data(),
                simplified.values.size());
  const std::string name =
      run.scalars->GetName() != nullptr ? run.scalars->GetName() : "";
  auto order = topogpu::vtk::labelArray<vtkIdTypeArray>(
      topogpu::vtk::orderArrayName(name).c_str(), n);
  std::copy(simplified.order.begin(), simplified.order.end(), order->GetPointer(0));

  // As TTK: the input passed through, its array replaced (same name: AddArray replaces
  // it in place, so it stays the active scalars when it was), the order array added.
  vtkDataSet* output = vtkDataSet::GetData(run.outputVector, 0);
  output->ShallowCopy(run.input);
  if (!name.empty())
    output->GetPointData()->AddArray(values);
  else // an unnamed input can only have been the active scalars
    output->GetPointData()->SetScalars(values);
  output->GetPointData()->AddArray(order);
  vtkFieldData* fd = output->GetFieldData();
  fd->AddArray(pairCounts("KeptPairCounts", simplified.keptPairs));
  fd->AddArray(pairCounts("RemovedPairCounts", simplified.removedPairs));
  auto iterations = namedArray<vtkIdTypeArray>("SimplificationIterations", 1);
  iterations->SetValue(0, simplified.iterations);
  fd->AddArray(iterations);
  auto changed = namedArray<vtkIdTypeArray>("ChangedVertexCount", 1);
  changed->SetValue(0, vtkIdType(simplified.changedVertices));
  fd->AddArray(changed);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
