#include "vtkTopoGPUPersistenceDiagram.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUDataSetPoints.h"
#include "TopoGPUDiagramLayout.h"
#include "TopoGPUFilterRun.h"

#include "base/Timer.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/persistence_diagram/CubicalPersistence.h"
#include "core/persistence_diagram/SimplicialPersistence.h"

#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkIdTypeArray.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkTable.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUPersistenceDiagram);

namespace {

namespace pd = topogpu::persistence_diagram;
using topogpu::vtk::namedArray;

// Port 1: TTK's four persistence curves on one Persistence column (the union of their
// values), each curve's count read as the step function it is.
void writeCurves(vtkTable* table, const pd::Diagram& diagram) {
  const auto curves = pd::persistenceCurves(diagram);
  std::vector<double> values;
  for (const auto& curve : curves)
    for (const pd::CurvePoint& point : curve)
      values.push_back(point.persistence);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  const vtkIdType n = vtkIdType(values.size());
  auto persistence = namedArray<vtkDoubleArray>("Persistence", n);
  std::copy(values.begin(), values.end(), persistence->GetPointer(0));
  table->AddColumn(persistence);
  // TTK's PersistenceCurve outputs; PairType 1 is the saddle-maximum one in 2D.
  const bool surface = diagram.dimension == 2;
  const std::array<std::pair<const char*, int>, 4> outputs = {
      {{"minimum-saddle pairs", 0},
       {"saddle-saddle pairs", surface ? -1 : 1},
       {"saddle-maximum pairs", surface ? 1 : 2},
       {"all pairs", 3}}};
  for (const auto& [label, index] : outputs) {
    auto count = namedArray<vtkIdTypeArray>(
        (std::string("Number Of Pairs (") + label + ")").c_str(), n);
    const std::vector<pd::CurvePoint> none;
    const auto& curve = index < 0 ? none : curves[std::size_t(index)];
    std::size_t next = 0; // the first point of the curve at or above values[i]
    for (vtkIdType i = 0; i < n; ++i) {
      while (next < curve.size() && curve[next].persistence < values[std::size_t(i)])
        ++next;
      count->SetValue(i, next < curve.size() ? vtkIdType(curve[next].pairs) : 0);
    }
    table->AddColumn(count);
  }
}

// Field data of port 0: what was found (per dimension, per PairType).
void writeCounts(vtkUnstructuredGrid* grid, const pd::Diagram& diagram) {
  const std::pair<const char*, const std::array<topogpu::SimplexId, 4>*> counts[] = {
      {"CriticalCellCounts", &diagram.criticalCells},
      {"FinitePairCounts", &diagram.finitePairs},
      {"EssentialPairCounts", &diagram.essentialPairs}};
  for (const auto& [name, values] : counts) {
    auto array = namedArray<vtkIdTypeArray>(name, 4);
    for (int k = 0; k < 4; ++k)
      array->SetValue(k, vtkIdType((*values)[std::size_t(k)]));
    grid->GetFieldData()->AddArray(array);
  }
}

} // namespace

vtkTopoGPUPersistenceDiagram::vtkTopoGPUPersistenceDiagram() {
  this->Label = "TopoGPU Persistence Diagram";
  this->TriangulationRandomAccess = true; // the Morse-Smale complex's V-paths
  this->SetNumberOfOutputPorts(2);
  topogpu::vtk::registerCategoricalColours("PairType", "Pair type (dimension)",
                                           topogpu::vtk::pairTypeCategories());
}

vtkTopoGPUPersistenceDiagram::~vtkTopoGPUPersistenceDiagram() = default;

int vtkTopoGPUPersistenceDiagram::FillOutputPortInformation(int port,
                                                            vtkInformation* info) {
  if (port < 0 || port > 1)
    return 0;
  info->Set(vtkDataObject::DATA_TYPE_NAME(),
            port == 0 ? "vtkUnstructuredGrid" : "vtkTable");
  return 1;
}

void vtkTopoGPUPersistenceDiagram::Compute(topogpu::vtk::FilterRun& run) {
  pd::Diagram diagram;
  std::vector<topogpu::Warning> warnings = run.report.warnings;
  if (this->UsesCubicalComplex(run)) {
    namespace msc = topogpu::morse_smale_complex;
    msc::Parameters parameters;
    parameters.backend = run.backend;
    parameters.vertexOrder = run.vertexOrder;
    parameters.keepVertexOrder = true;
    msc::Output complex;
    run.visit([&](auto& triangulation) {
      msc::execute(triangulation, run.values, parameters, run.monitor.stage(0, 0.9),
                   complex);
    });
    pd::diagramOfCubicalComplex(complex, run.values, complex.rank.data(),
                                run.monitor.stage(0.9, 1), diagram);
    topogpu::RunReport report = complex.report;
    for (const auto& t : diagram.report.timings)
      report.timings.push_back(t);
    diagram.report = report;
  } else {
    pd::Parameters parameters;
    parameters.backend = run.backend;
    parameters.vertexOrder = run.vertexOrder;
    parameters.memoryBudget = this->MemoryBudgetBytes();
    run.visitWithGale([&](auto& triangulation) {
      pd::execute(triangulation, run.values, parameters, run.monitor, diagram);
    });
  }
  run.report = diagram.report;
  for (const topogpu::Warning& w : warnings)
    run.report.warnings.push_back(w);
  run.addGaleRunWarnings();

  const topogpu::Timer outputTimer;
  const topogpu::vtk::DataSetPoints points(run.input);
  auto* grid = vtkUnstructuredGrid::GetData(run.outputVector, 0);
  topogpu::vtk::writeScalarFieldDiagram(grid, diagram, &points);
  writeCounts(grid, diagram);
  writeCurves(vtkTable::GetData(run.outputVector, 1), diagram);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
