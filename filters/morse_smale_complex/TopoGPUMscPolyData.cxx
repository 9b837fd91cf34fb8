#include "TopoGPUMscPolyData.h"

#include "TopoGPUArrays.h"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkIdTypeArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSignedCharArray.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace topogpu::vtk {

namespace msc = morse_smale_complex;

namespace {

// A copy of a record column: ArrayT of the column's values, labelled (ids, types) or not.
template <typename ArrayT, typename T>
vtkSmartPointer<ArrayT> column(const char* name, const std::vector<T>& values,
                               bool label = true) {
  auto array = label ? labelArray<ArrayT>(name, vtkIdType(values.size()))
                     : namedArray<ArrayT>(name, vtkIdType(values.size()));
  std::copy(values.begin(), values.end(), array->GetPointer(0));
  return array;
}

// A record column moved out, so that the statement copying it frees it: the separatrix
// ports can hold tens of millions of cells, and each column is then held twice only
// while it is copied, not the whole port.
template <typename T> std::vector<T> taken(std::vector<T>& values) {
  return std::move(values);
}

vtkSmartPointer<vtkPoints> pointsOf(const std::vector<double>& xyz) {
  auto coordinates = vtkSmartPointer<vtkDoubleArray>::New();
  coordinates->SetNumberOfComponents(3);
  coordinates->SetNumberOfTuples(vtkIdType(xyz.size() / 3));
  std::copy(xyz.begin(), xyz.end(), coordinates->GetPointer(0));
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetData(coordinates);
  return points;
}

vtkSmartPointer<vtkIdTypeArray> idsOf(const std::vector<SimplexId>& ids) {
  auto array = vtkSmartPointer<vtkIdTypeArray>::New();
  array->SetNumberOfTuples(vtkIdType(ids.size()));
  std::copy(ids.begin(), ids.end(), array->GetPointer(0));
  return array;
}

vtkSmartPointer<vtkCellArray> cellsOf(const std::vector<SimplexId>& offsets,
                                      const std::vector<SimplexId>& connectivity) {
  auto cells = vtkSmartPointer<vtkCellArray>::New();
  cells->SetData(idsOf(offsets), idsOf(connectivity));
  return cells;
}

// The function range of each separatrix (double, as TTK 1.2's).
void addFunctionRange(vtkCellData* cd, const std::vector<double>& maximum,
                      const std::vector<double>& minimum) {
  std::vector<double> difference(maximum.size());
  for (std::size_t i = 0; i < maximum.size(); ++i)
    difference[i] = maximum[i] - minimum[i];
  cd->AddArray(column<vtkDoubleArray>("SeparatrixFunctionMaximum", maximum, false));
  cd->AddArray(column<vtkDoubleArray>("SeparatrixFunctionMinimum", minimum, false));
  cd->AddArray(column<vtkDoubleArray>("SeparatrixFunctionDifference", difference, false));
}

} // namespace

void writeCriticalPoints(vtkPolyData* output, const msc::CriticalPointRecords& records,
                         vtkDataArray* scalars) {
  const vtkIdType n = vtkIdType(records.size());
  std::vector<SimplexId> offsets(static_cast<std::size_t>(n) + 1);
  std::vector<SimplexId> connectivity(static_cast<std::size_t>(n));
  for (vtkIdType i = 0; i <= n; ++i)
    offsets[std::size_t(i)] = i;
  std::copy(offsets.begin(), offsets.end() - 1, connectivity.begin());
  output->SetPoints(pointsOf(records.points));
  output->SetVerts(cellsOf(offsets, connectivity));
  vtkPointData* pd = output->GetPointData();
  pd->AddArray(column<vtkSignedCharArray>("CellDimension", records.cellDimension));
  pd->AddArray(column<vtkIdTypeArray>("CellId", records.cellId));
  // The value: the input scalar's type and name, as TTK's.
  vtkSmartPointer<vtkDataArray> value;
  value.TakeReference(scalars->NewInstance());
  value->SetNumberOfComponents(1);
  value->SetName(scalars->GetName() != nullptr ? scalars->GetName() : "Scalars");
  value->SetNumberOfTuples(n);
  for (vtkIdType i = 0; i < n; ++i)
    value->SetTuple1(i, records.value[std::size_t(i)]);
  pd->AddArray(value);
  pd->AddArray(column<vtkSignedCharArray>("IsOnBoundary", records.isOnBoundary));
  pd->AddArray(column<vtkIdTypeArray>("ttkVertexScalarField", records.vertexId));
  pd->AddArray(column<vtkIdTypeArray>("ManifoldSize", records.manifoldSize));
  pd->AddArray(
      column<vtkSignedCharArray>("IsBoundaryMaximum", records.isBoundaryMaximum));
  pd->SetActiveScalars("CellDimension");
}

namespace {

// The cell data both separatrix ports have (TTK 1.2's), from either record kind.
template <typename Records>
void addSeparatrixCellData(vtkCellData* cd, Records& records) {
  cd->AddArray(column<vtkIdTypeArray>("SourceId", taken(records.sourceId)));
  cd->AddArray(column<vtkIdTypeArray>("SeparatrixId", taken(records.separatrixId)));
  cd->AddArray(
      column<vtkSignedCharArray>("SeparatrixType", taken(records.separatrixType)));
  addFunctionRange(cd, taken(records.functionMaximum), taken(records.functionMinimum));
  cd->AddArray(column<vtkSignedCharArray>("NumberOfCriticalPointsOnBoundary",
                                          taken(records.onBoundary)));
  cd->SetActiveScalars("SeparatrixType");
}

} // namespace

void writeSeparatrices1(vtkPolyData* output, msc::Separatrix1Records&& records) {
  output->SetPoints(pointsOf(taken(records.points)));
  auto lines = vtkSmartPointer<vtkCellArray>::New();
  lines->SetData(2,
                 idsOf(taken(records.connectivity))); // TTK's line cells: two points each
  output->SetLines(lines);
  vtkPointData* pd = output->GetPointData();
  pd->AddArray(column<vtkSignedCharArray>("ttkMaskScalarField", taken(records.mask)));
  pd->AddArray(column<vtkSignedCharArray>("CellDimension", taken(records.cellDimension)));
  pd->AddArray(column<vtkIdTypeArray>("CellId", taken(records.cellId)));
  vtkCellData* cd = output->GetCellData();
  addSeparatrixCellData(cd, records);
  cd->AddArray(column<vtkIdTypeArray>("DestinationId", taken(records.destinationId)));
  cd->AddArray(column<vtkIdTypeArray>("Multiplicity", taken(records.multiplicity)));
}

void writeSeparatrices2(vtkPolyData* output, msc::Separatrix2Records&& records) {
  output->SetPoints(pointsOf(taken(records.points)));
  output->SetPolys(cellsOf(taken(records.offsets), taken(records.connectivity)));
  addSeparatrixCellData(output->GetCellData(), records);
}

} // namespace topogpu::vtk
