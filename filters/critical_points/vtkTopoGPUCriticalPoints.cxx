#include "vtkTopoGPUCriticalPoints.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUFilterRun.h"

#include "core/common/Timer.h"
#include "core/critical_points/CriticalPoints.h"

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkIdList.h>
#include <vtkIdTypeArray.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkPointSet.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSignedCharArray.h>
#include <vtkSmartPointer.h>

vtkStandardNewMacro(vtkTopoGPUCriticalPoints);

using topogpu::vtk::labelArray;
using topogpu::vtk::namedArray;

vtkTopoGPUCriticalPoints::vtkTopoGPUCriticalPoints() {
  this->Label = "TopoGPU Critical Points";
  topogpu::vtk::registerCategoricalColours("CriticalType", "Critical type",
                                           topogpu::vtk::criticalTypeCategories());
}

vtkTopoGPUCriticalPoints::~vtkTopoGPUCriticalPoints() = default;

void vtkTopoGPUCriticalPoints::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Triangulation: " << this->Triangulation << "\n";
}

int vtkTopoGPUCriticalPoints::FillOutputPortInformation(int port, vtkInformation* info) {
  if (port != 0)
    return 0;
  info->Set(vtkDataObject::DATA_TYPE_NAME(), "vtkPolyData");
  return 1;
}

void vtkTopoGPUCriticalPoints::Compute(topogpu::vtk::FilterRun& run) {
  namespace cp = topogpu::critical_points;
  cp::Parameters parameters;
  parameters.backend = run.backend;
  cp::Output result;
  run.visitWithGale([&](auto& triangulation) {
    cp::execute(triangulation, run.values, parameters, run.monitor, result);
  });
  run.report = result.report;
  // A GALE producer that failed during the run (a GPU error, CPU producers took over).
  if (auto* gale =
          std::get_if<std::shared_ptr<topogpu::GaleTriangulation>>(run.triangulation))
    for (const std::string& warning : (*gale)->warnings())
      if (warning.rfind("GALE: no GPU producer", 0) != 0) // said once, when it was built
        run.report.warnings.push_back(warning);

  const topogpu::Timer outputTimer;
  // In a distributed run each point is output by exactly one piece.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < result.criticalVertices.size(); ++i) {
    if (!run.ownership->owns(result.criticalVertices[i]))
      continue;
    result.criticalVertices[kept] = result.criticalVertices[i];
    result.criticalOnBoundary[kept++] = result.criticalOnBoundary[i];
  }
  result.criticalVertices.resize(kept);
  result.criticalOnBoundary.resize(kept);

  vtkDataSet* input = run.input;
  const vtkIdType n = vtkIdType(kept);
  auto points = vtkSmartPointer<vtkPoints>::New();
  auto* pointSet = vtkPointSet::SafeDownCast(input);
  if (pointSet != nullptr && pointSet->GetPoints() != nullptr)
    points->SetDataType(pointSet->GetPoints()->GetDataType());
  else
    points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  auto ids = vtkSmartPointer<vtkIdList>::New();
  ids->SetNumberOfIds(n);
  auto types = labelArray<vtkSignedCharArray>("CriticalType", n);
  auto boundary = labelArray<vtkSignedCharArray>("IsOnBoundary", n);
  auto vertexIds = labelArray<vtkIdTypeArray>("ttkVertexScalarField", n);
  double x[3];
  for (vtkIdType i = 0; i < n; ++i) {
    const vtkIdType v = vtkIdType(result.criticalVertices[i]);
    input->GetPoint(v, x);
    points->SetPoint(i, x);
    ids->SetId(i, v);
    types->SetValue(i, static_cast<signed char>(result.vertexTypes[v]));
    boundary->SetValue(i, static_cast<signed char>(result.criticalOnBoundary[i] ? 1 : 0));
    vertexIds->SetValue(i, v);
  }
  auto verts = vtkSmartPointer<vtkCellArray>::New();
  verts->AllocateExact(n, n);
  for (vtkIdType i = 0; i < n; ++i)
    verts->InsertNextCell(1, &i);

  vtkSmartPointer<vtkDataArray> scalarCopy;
  scalarCopy.TakeReference(run.scalars->NewInstance());
  scalarCopy->SetName(run.scalars->GetName());
  scalarCopy->SetNumberOfComponents(1);
  scalarCopy->SetNumberOfTuples(n);
  run.scalars->GetTuples(ids, scalarCopy);

  vtkPolyData* output = vtkPolyData::GetData(run.outputVector, 0);
  output->SetPoints(points);
  output->SetVerts(verts);
  vtkPointData* pd = output->GetPointData();
  pd->AddArray(types);
  pd->AddArray(boundary);
  pd->AddArray(scalarCopy);
  pd->AddArray(vertexIds);
  pd->SetActiveScalars("CriticalType");
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
