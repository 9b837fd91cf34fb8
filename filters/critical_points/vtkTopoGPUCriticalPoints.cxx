#include "vtkTopoGPUCriticalPoints.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUDistributedPiece.h"
#include "TopoGPUFilterRun.h"

#include "base/Timer.h"
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

vtkTopoGPUCriticalPoints::vtkTopoGPUCriticalPoints() {
  this->Label = "TopoGPU Critical Points";
  // A vertex's type depends on its star and on whether its link's vertices lie on the
  // boundary, which their own stars tell: two ghost layers in a distributed mesh.
  this->LocalResult = true;
  this->LocalGhostLayers = 2;
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
  parameters.vertexOrder = run.vertexOrder;
  cp::Output result;
  run.visitWithGale([&](auto& triangulation) {
    cp::execute(triangulation, run.values, parameters, run.monitor, result);
  });
  run.report = result.report;
  run.addGaleRunWarnings();

  if (run.piece != nullptr && !run.piece->orderedByGlobalIds()) {
    // A distributed mesh without global point ids breaks ties in the coordinates' order
    // (the same on every rank), a serial run in the points' order: say where they may
    // differ.
    vtkIdType tied = 0;
    run.visitWithGale([&](auto& triangulation) {
      for (vtkIdType v = 0; v < run.input->GetNumberOfPoints(); ++v) {
        if (!run.piece->owns(v))
          continue;
        const double value = run.scalars->GetComponent(v, 0);
        const int degree = triangulation.getVertexNeighborNumber(v);
        for (int k = 0; k < degree; ++k) {
          if (run.scalars->GetComponent(triangulation.getVertexNeighbor(v, k), 0) ==
              value) {
            ++tied;
            break;
          }
        }
      }
    });
    if (tied > 0)
      run.report.warnings.push_back(
          {topogpu::WarningCode::TiesBrokenByCoordinates,
           std::to_string(tied) +
               " vertices of this piece have a neighbour of equal "
               "value; without point global ids a distributed run breaks such ties by "
               "point coordinates (the same on every rank), a serial run by point index, "
               "so the critical points there may differ from a serial run's. With point "
               "global ids (vtkGlobalIds) ties are broken by id; ids equal to the serial "
               "point indices give the serial result"});
  }

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
    // The point's id in this rank's input piece (a rebuilt piece numbers its own).
    vertexIds->SetValue(i, run.piece ? run.piece->inputPoint(v) : v);
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
