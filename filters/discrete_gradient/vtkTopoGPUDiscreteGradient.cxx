#include "vtkTopoGPUDiscreteGradient.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUFilterRun.h"

#include "base/Timer.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/discrete_gradient/SimplicialGradient.h"

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkFieldData.h>
#include <vtkIdTypeArray.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSignedCharArray.h>
#include <vtkSmartPointer.h>

#include <array>
#include <initializer_list>
#include <memory>
#include <variant>

vtkStandardNewMacro(vtkTopoGPUDiscreteGradient);

using topogpu::vtk::labelArray;
using topogpu::vtk::namedArray;

namespace {

// Port 0 of both complexes: one vertex per critical cell with its point arrays (the
// first, CellDimension, active) and the counts per index as field data.
void writeCriticalCells(topogpu::vtk::FilterRun& run, vtkPoints* points,
                        std::initializer_list<vtkDataArray*> arrays,
                        const std::array<topogpu::SimplexId, 4>& counts) {
  const vtkIdType n = points->GetNumberOfPoints();
  auto verts = vtkSmartPointer<vtkCellArray>::New();
  verts->AllocateExact(n, n);
  for (vtkIdType v = 0; v < n; ++v)
    verts->InsertNextCell(1, &v);
  vtkPolyData* output = vtkPolyData::GetData(run.outputVector, 0);
  output->SetPoints(points);
  output->SetVerts(verts);
  vtkPointData* pd = output->GetPointData();
  for (vtkDataArray* array : arrays)
    pd->AddArray(array);
  pd->SetActiveScalars("CellDimension");
  auto countArray = namedArray<vtkIdTypeArray>("CriticalCellCounts", 4);
  for (int k = 0; k < 4; ++k)
    countArray->SetValue(k, vtkIdType(counts[std::size_t(k)]));
  output->GetFieldData()->AddArray(countArray);
}

} // namespace

vtkTopoGPUDiscreteGradient::vtkTopoGPUDiscreteGradient() {
  this->Label = "TopoGPU Discrete Gradient";
  topogpu::vtk::registerCategoricalColours("CellDimension", "Critical cell dimension",
                                           topogpu::vtk::criticalIndexCategories());
}

vtkTopoGPUDiscreteGradient::~vtkTopoGPUDiscreteGradient() = default;

void vtkTopoGPUDiscreteGradient::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Complex: " << (this->Complex ? "Simplicial" : "Cubical") << "\n";
  os << indent << "Triangulation: " << this->Triangulation << "\n";
}

int vtkTopoGPUDiscreteGradient::FillOutputPortInformation(int port,
                                                          vtkInformation* info) {
  if (port != 0)
    return 0;
  info->Set(vtkDataObject::DATA_TYPE_NAME(), "vtkPolyData");
  return 1;
}

void vtkTopoGPUDiscreteGradient::Compute(topogpu::vtk::FilterRun& run) {
  namespace dg = topogpu::discrete_gradient;
  namespace cubical = topogpu::cubical;
  // The cubical complex needs the implicit grid (meshes and images stored as meshes
  // take the simplicial path).
  if (this->Complex == COMPLEX_SIMPLICIAL ||
      !std::holds_alternative<std::shared_ptr<topogpu::ImplicitTriangulation>>(
          *run.triangulation)) {
    this->ComputeSimplicial(run);
    return;
  }
  dg::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  dg::Output result;
  run.visit([&](auto& triangulation) {
    dg::execute(triangulation, run.values, parameters, run.monitor, result);
  });
  run.report = result.report;

  const topogpu::Timer outputTimer;
  vtkIdType n = 0;
  for (int k = 0; k < 4; ++k)
    n += vtkIdType(result.criticalCells[k].size());
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  auto dimension = labelArray<vtkSignedCharArray>("CellDimension", n);
  auto cellIds = labelArray<vtkIdTypeArray>("CellId", n);
  auto refinedIds = labelArray<vtkIdTypeArray>("RefinedCellId", n);
  const cubical::Grid& g = result.grid;
  vtkDataSet* input = run.input;
  vtkIdType i = 0;
  for (int k = 0; k < 4; ++k) {
    for (std::size_t j = 0; j < result.criticalCells[k].size(); ++j, ++i) {
      const topogpu::SimplexId cell = result.criticalCells[k][j];
      topogpu::SimplexId c[3];
      cubical::cellCoords(g, cell, c);
      // The centre of a cell is the midpoint of its lowest and highest corners (the
      // squeezed grid's vertex ids are the image's point ids).
      topogpu::SimplexId lowest[3], highest[3];
      for (int a = 0; a < 3; ++a) {
        lowest[a] = c[a] / 2;
        highest[a] = (c[a] + 1) / 2;
      }
      const topogpu::SimplexId low =
          lowest[0] + g.n[0] * (lowest[1] + g.n[1] * lowest[2]);
      const topogpu::SimplexId high =
          highest[0] + g.n[0] * (highest[1] + g.n[1] * highest[2]);
      double a[3], b[3];
      input->GetPoint(vtkIdType(low), a);
      input->GetPoint(vtkIdType(high), b);
      points->SetPoint(i, 0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2]));
      dimension->SetValue(i, static_cast<signed char>(k));
      cellIds->SetValue(i, vtkIdType(result.criticalCellIds[k][j]));
      refinedIds->SetValue(i, vtkIdType(cell));
    }
  }
  writeCriticalCells(run, points, {dimension, cellIds, refinedIds}, result.counts);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}

// Critical simplices at their barycentres (TTK places its critical points there too).
void vtkTopoGPUDiscreteGradient::ComputeSimplicial(topogpu::vtk::FilterRun& run) {
  namespace sg = topogpu::discrete_gradient::simplicial;
  sg::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  sg::Output result;
  vtkIdType n = 0;
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  vtkSmartPointer<vtkSignedCharArray> dimension;
  vtkSmartPointer<vtkIdTypeArray> cellIds, highest;
  vtkDataSet* input = run.input;
  topogpu::Timer outputTimer;
  run.visitWithGale([&](auto& tri) {
    sg::execute(tri, run.values, parameters, run.monitor, result);
    outputTimer.reset();
    for (int k = 0; k < 4; ++k)
      n += vtkIdType(result.criticalCells[k].size());
    points->SetNumberOfPoints(n);
    dimension = labelArray<vtkSignedCharArray>("CellDimension", n);
    cellIds = labelArray<vtkIdTypeArray>("CellId", n);
    highest = labelArray<vtkIdTypeArray>("HighestVertexId", n);
    vtkIdType i = 0;
    for (int k = 0; k < 4; ++k) {
      for (std::size_t j = 0; j < result.criticalCells[k].size(); ++j, ++i) {
        const topogpu::SimplexId id = result.criticalCells[k][j];
        double centre[3] = {0, 0, 0};
        for (int q = 0; q <= k; ++q) {
          const topogpu::SimplexId v = k == 0   ? id
                                       : k == 1 ? tri.getEdgeVertex(id, q)
                                       : k == 2 ? tri.getTriangleVertex(id, q)
                                                : tri.getCellVertex(id, q);
          double p[3];
          input->GetPoint(vtkIdType(v), p);
          for (int a = 0; a < 3; ++a)
            centre[a] += p[a] / (k + 1);
        }
        points->SetPoint(i, centre);
        dimension->SetValue(i, static_cast<signed char>(k));
        cellIds->SetValue(i, vtkIdType(id));
        highest->SetValue(i, vtkIdType(result.criticalVertices[k][j]));
      }
    }
  });
  run.report = result.report;
  writeCriticalCells(run, points, {dimension, cellIds, highest}, result.counts);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
