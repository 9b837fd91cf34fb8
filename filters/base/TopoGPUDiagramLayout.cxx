#include "TopoGPUDiagramLayout.h"

#include "TopoGPUArrays.h"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataSet.h>
#include <vtkDoubleArray.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkIntArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>

namespace topogpu::vtk {

void writeDiagramLayout(vtkUnstructuredGrid* grid, const std::vector<DiagramRow>& rows,
                        const DiagramDiagonal& diagonal, bool withPositions) {
  const vtkIdType pairs = vtkIdType(rows.size());
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble(); // the input's units may pass single precision
  points->SetNumberOfPoints(2 * pairs + 2);
  auto vertexId = namedArray<vtkIntArray>("ttkVertexScalarField", 2 * pairs + 2);
  auto criticalType = namedArray<vtkIntArray>("CriticalType", 2 * pairs + 2);
  auto coordinates = namedArray<vtkFloatArray>("Coordinates", 0);
  coordinates->SetNumberOfComponents(3);
  coordinates->SetNumberOfTuples(2 * pairs + 2);
  auto pairId = namedArray<vtkIntArray>("PairIdentifier", pairs + 1);
  auto pairType = namedArray<vtkIntArray>("PairType", pairs + 1);
  auto persistence = namedArray<vtkDoubleArray>("Persistence", pairs + 1);
  auto birth = namedArray<vtkDoubleArray>("Birth", pairs + 1);
  auto death = namedArray<vtkDoubleArray>("Death", pairs + 1);
  auto isFinite = namedArray<vtkUnsignedCharArray>("IsFinite", pairs + 1);
  auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
  offsets->SetNumberOfTuples(pairs + 2);
  auto connectivity = vtkSmartPointer<vtkIdTypeArray>::New();
  connectivity->SetNumberOfTuples(2 * pairs + 2);
  // Filled through the arrays' own memory: a diagram can have millions of pairs.
  double* xyz = vtkDoubleArray::SafeDownCast(points->GetData())->GetPointer(0);
  float* position = coordinates->GetPointer(0);
  int* vertexIds = vertexId->GetPointer(0);
  int* types = criticalType->GetPointer(0);
  const auto setPoint = [&](vtkIdType p, double x, double y, vtkIdType vertex, int type,
                            const std::array<double, 3>* at = nullptr) {
    xyz[3 * p] = x;
    xyz[3 * p + 1] = y;
    xyz[3 * p + 2] = 0.0;
    for (int k = 0; k < 3; ++k)
      position[3 * p + k] = float(at ? (*at)[std::size_t(k)] : xyz[3 * p + k]);
    vertexIds[p] = int(vertex);
    types[p] = type;
  };
  const auto setCell = [&](vtkIdType id, int type, double persistenceValue,
                           double birthValue, double deathValue, bool finite) {
    offsets->SetValue(id, 2 * id);
    connectivity->SetValue(2 * id, 2 * id);
    connectivity->SetValue(2 * id + 1, 2 * id + 1);
    pairId->SetValue(id, id < pairs ? int(id) : -1);
    pairType->SetValue(id, type);
    persistence->SetValue(id, persistenceValue);
    birth->SetValue(id, birthValue);
    death->SetValue(id, deathValue);
    isFinite->SetValue(id, finite ? 1 : 0);
  };
  for (vtkIdType id = 0; id < pairs; ++id) {
    const DiagramRow& row = rows[std::size_t(id)];
    setPoint(2 * id, row.birth, row.birth, row.birthVertex, row.birthType,
             withPositions ? &row.birthPosition : nullptr);
    setPoint(2 * id + 1, row.birth, row.death, row.deathVertex, row.deathType,
             withPositions ? &row.deathPosition : nullptr);
    setCell(id, row.pairType, row.death - row.birth, row.birth, row.death, row.isFinite);
  }
  setPoint(2 * pairs, diagonal.low, diagonal.low, -1, -1);
  setPoint(2 * pairs + 1, diagonal.high, diagonal.high, -1, -1);
  setCell(pairs, -1, diagonal.persistence, 0, 0, false);
  offsets->SetValue(pairs + 1, 2 * pairs + 2);
  auto cells = vtkSmartPointer<vtkCellArray>::New();
  cells->SetData(offsets, connectivity);

  grid->SetPoints(points);
  grid->SetCells(VTK_LINE, cells);
  for (vtkAbstractArray* array : {static_cast<vtkAbstractArray*>(vertexId),
                                  static_cast<vtkAbstractArray*>(criticalType),
                                  static_cast<vtkAbstractArray*>(coordinates)})
    grid->GetPointData()->AddArray(array);
  for (vtkAbstractArray* array :
       {static_cast<vtkAbstractArray*>(pairId), static_cast<vtkAbstractArray*>(pairType),
        static_cast<vtkAbstractArray*>(persistence),
        static_cast<vtkAbstractArray*>(birth), static_cast<vtkAbstractArray*>(death),
        static_cast<vtkAbstractArray*>(isFinite)})
    grid->GetCellData()->AddArray(array);
  grid->GetCellData()->SetActiveScalars("PairType");
}

void writeScalarFieldDiagram(vtkUnstructuredGrid* grid,
                             const persistence_diagram::Diagram& diagram,
                             const morse_smale_complex::PointGeometry* points) {
  std::vector<DiagramRow> rows(diagram.pairs.size());
  DiagramDiagonal diagonal;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const persistence_diagram::DiagramPair& p = diagram.pairs[i];
    DiagramRow& row = rows[i];
    row = {p.type,        p.isFinite,    p.birth,     p.death,
           p.birthVertex, p.deathVertex, p.birthType, p.deathType};
    if (points) {
      points->position(p.birthVertex, row.birthPosition.data());
      points->position(p.deathVertex, row.deathPosition.data());
    }
    diagonal.low = i ? std::min(diagonal.low, p.birth) : p.birth;
    diagonal.high = i ? std::max(diagonal.high, p.birth) : p.birth;
    diagonal.persistence = std::max(diagonal.persistence, 2 * p.persistence());
  }
  writeDiagramLayout(grid, rows, diagonal, points != nullptr);
}

std::vector<topological_simplification::Constraint>
diagramConstraints(vtkDataSet* points, const std::string& source) {
  vtkPointData* pd = points->GetPointData();
  vtkDataArray* ids = pd->GetArray("ttkVertexScalarField");
  if (ids == nullptr || ids->GetNumberOfComponents() != 1)
    throw Error(source + " has no one-component point array ttkVertexScalarField (the "
                         "vertex id of each constraint point, as a persistence diagram "
                         "has)");
  vtkDataArray* types = pd->GetArray("CriticalType");
  std::vector<topological_simplification::Constraint> constraints;
  for (vtkIdType i = 0; i < points->GetNumberOfPoints(); ++i) {
    const auto vertex = SimplexId(ids->GetComponent(i, 0));
    if (vertex < 0)
      continue; // the diagram's diagonal (TTK's layout: no vertex)
    constraints.push_back(
        {vertex, types != nullptr ? int(types->GetComponent(i, 0)) : -1});
  }
  return constraints;
}

} // namespace topogpu::vtk
