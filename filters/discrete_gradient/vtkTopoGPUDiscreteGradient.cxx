#include "vtkTopoGPUDiscreteGradient.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUFilterRun.h"

#include "base/Timer.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "core/discrete_gradient/GradientPairs.h"
#include "core/discrete_gradient/SimplicialGradient.h"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
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
#include <string>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUDiscreteGradient);

using topogpu::SimplexId;
using topogpu::vtk::labelArray;
using topogpu::vtk::namedArray;

namespace {

namespace cubical = topogpu::cubical;
namespace dg = topogpu::discrete_gradient;

// A line per pair costs some 70 bytes (two float points, their three arrays, the cell
// and its type): past this many pairs (about 2.3 GB) port 1 stays empty.
constexpr std::size_t kMaxGradientGlyphs = std::size_t(1) << 25;

// One critical cell of port 0.
struct CriticalCell {
  double p[3];
  signed char dimension;
  vtkIdType id;     // among the cells of its dimension
  vtkIdType vertex; // highest vertex in the vertex order (ttkVertexScalarField)
  bool onBoundary;  // of that vertex (TTK's IsOnBoundary)
  vtkIdType refined = -1;
};

// Port 0 of both complexes: one vertex per critical cell with TTK's point arrays (the
// first, CellDimension, active), the refined ids when given (cubical), the counts per
// index as field data.
void writeCriticalCells(topogpu::vtk::FilterRun& run,
                        const std::vector<CriticalCell>& rows, bool refined,
                        const std::array<SimplexId, 4>& counts) {
  const vtkIdType n = vtkIdType(rows.size());
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  auto dimension = labelArray<vtkSignedCharArray>("CellDimension", n);
  auto cellIds = labelArray<vtkIdTypeArray>("CellId", n);
  vtkSmartPointer<vtkDataArray> value;
  value.TakeReference(run.scalars->NewInstance());
  value->SetName(run.scalars->GetName() != nullptr ? run.scalars->GetName() : "Scalars");
  value->SetNumberOfComponents(1);
  value->SetNumberOfTuples(n);
  auto onBoundary = labelArray<vtkSignedCharArray>("IsOnBoundary", n);
  auto vertexIds = labelArray<vtkIdTypeArray>("ttkVertexScalarField", n);
  auto refinedIds = labelArray<vtkIdTypeArray>("RefinedCellId", refined ? n : 0);
  auto verts = vtkSmartPointer<vtkCellArray>::New();
  verts->AllocateExact(n, n);
  for (vtkIdType i = 0; i < n; ++i) {
    const CriticalCell& r = rows[std::size_t(i)];
    points->SetPoint(i, r.p);
    dimension->SetValue(i, r.dimension);
    cellIds->SetValue(i, r.id);
    value->SetTuple(i, r.vertex, run.scalars); // the exact value, in the input's type
    onBoundary->SetValue(i, static_cast<signed char>(r.onBoundary));
    vertexIds->SetValue(i, r.vertex);
    if (refined)
      refinedIds->SetValue(i, r.refined);
    verts->InsertNextCell(1, &i);
  }
  vtkPolyData* output = vtkPolyData::GetData(run.outputVector, 0);
  output->SetPoints(points);
  output->SetVerts(verts);
  vtkPointData* pd = output->GetPointData();
  for (vtkDataArray* array :
       {static_cast<vtkDataArray*>(dimension), static_cast<vtkDataArray*>(cellIds),
        value.Get(), static_cast<vtkDataArray*>(onBoundary),
        static_cast<vtkDataArray*>(vertexIds)})
    pd->AddArray(array);
  if (refined)
    pd->AddArray(refinedIds);
  pd->SetActiveScalars("CellDimension");
  auto countArray = namedArray<vtkIdTypeArray>("CriticalCellCounts", 4);
  for (int k = 0; k < 4; ++k)
    countArray->SetValue(k, vtkIdType(counts[std::size_t(k)]));
  output->GetFieldData()->AddArray(countArray);
}

// Port 1: TTK's gradient glyphs, a line per pair from the lower cell's centre to its
// coface's. centre(dimension, id, p) places a cell, cellId(dimension, id) names it.
template <typename Centre, typename CellIdOf>
void writeGradientGlyphs(topogpu::vtk::FilterRun& run, const dg::GradientPairs& pairs,
                         const Centre& centre, const CellIdOf& cellId) {
  const vtkIdType lines = vtkIdType(pairs.size());
  auto points = vtkSmartPointer<vtkPoints>::New(); // float, as TTK's
  points->SetNumberOfPoints(2 * lines);
  auto origin = labelArray<vtkSignedCharArray>("PairOrigin", 2 * lines);
  auto ids = labelArray<vtkIdTypeArray>("CellId", 2 * lines);
  auto dimension = labelArray<vtkSignedCharArray>("CellDimension", 2 * lines);
  auto type = labelArray<vtkSignedCharArray>("PairType", lines);
  auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
  offsets->SetNumberOfTuples(lines + 1);
  auto connectivity = vtkSmartPointer<vtkIdTypeArray>::New();
  connectivity->SetNumberOfTuples(2 * lines);
  vtkIdType line = 0;
  for (int k = 0; k < 3; ++k) {
    const auto& lower = pairs.lower[std::size_t(k)];
    const auto& upper = pairs.upper[std::size_t(k)];
    for (std::size_t i = 0; i < lower.size(); ++i, ++line) {
      for (int end = 0; end < 2; ++end) {
        const vtkIdType point = 2 * line + end;
        const int dim = k + end;
        const SimplexId cell = end == 0 ? lower[i] : upper[i];
        double p[3];
        centre(dim, cell, p);
        points->SetPoint(point, p);
        origin->SetValue(point, static_cast<signed char>(end));
        ids->SetValue(point, vtkIdType(cellId(dim, cell)));
        dimension->SetValue(point, static_cast<signed char>(dim));
        connectivity->SetValue(point, point);
      }
      offsets->SetValue(line, 2 * line);
      type->SetValue(line, static_cast<signed char>(k));
    }
  }
  offsets->SetValue(lines, 2 * lines);
  auto cells = vtkSmartPointer<vtkCellArray>::New();
  cells->SetData(offsets, connectivity);
  vtkPolyData* output = vtkPolyData::GetData(run.outputVector, 1);
  output->SetPoints(points);
  output->SetLines(cells);
  output->GetPointData()->AddArray(origin);
  output->GetPointData()->AddArray(ids);
  output->GetPointData()->AddArray(dimension);
  output->GetCellData()->SetScalars(type);
}

// Port 1 needs a line per pair: too many leave it empty (a valid empty vtkPolyData),
// said as the run's warnings are.
bool glyphsFit(vtkAlgorithm* filter, std::size_t pairs) {
  if (pairs <= kMaxGradientGlyphs)
    return true;
  vtkWarningWithObjectMacro(filter, << "the gradient has " << pairs
                                    << " pairs, more than the " << kMaxGradientGlyphs
                                    << " lines the gradient glyphs port draws: port 1 is "
                                       "left empty (turn ComputeGradientGlyphs off to "
                                       "skip it)");
  return false;
}

// The id of the grid vertex at plain coordinates v (x fastest, as the image's points).
SimplexId gridVertex(const cubical::Grid& g, const SimplexId v[3]) {
  return v[0] + g.n[0] * (v[1] + g.n[1] * v[2]);
}

// The highest corner of a cubical cell in the vertex order (value, then vertex id): the
// vertex whose lower star holds the cell.
SimplexId highestCorner(const topogpu::ScalarArrayView& values, const cubical::Grid& g,
                        const SimplexId c[3]) {
  SimplexId best = -1;
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    const auto* x = static_cast<const ValueT*>(values.data);
    for (int corner = 0; corner < 8; ++corner) {
      SimplexId v[3];
      for (int a = 0; a < 3; ++a)
        v[a] = (corner >> a & 1) ? (c[a] + 1) / 2 : c[a] / 2;
      const SimplexId id = gridVertex(g, v);
      if (best < 0 || x[id] > x[best] || (x[id] == x[best] && id > best))
        best = id;
    }
  });
  return best;
}

// A grid vertex on the box's boundary (axes of one vertex excepted: a 2D image).
bool onBoxBoundary(const cubical::Grid& g, SimplexId v) {
  SimplexId c[3];
  cubical::vertexCoords(g, v, c);
  for (int a = 0; a < 3; ++a)
    if (g.n[a] > 1 && (c[a] == 0 || c[a] == g.n[a] - 1))
      return true;
  return false;
}

// The centre of a cubical cell: the midpoint of its lowest and highest corners (the
// squeezed grid's vertex ids are the image's point ids).
void cubicalCentre(vtkDataSet* input, const cubical::Grid& g, SimplexId cell,
                   double p[3]) {
  SimplexId c[3];
  cubical::cellCoords(g, cell, c);
  SimplexId low[3], high[3];
  for (int a = 0; a < 3; ++a) {
    low[a] = c[a] / 2;
    high[a] = (c[a] + 1) / 2;
  }
  double a[3], b[3];
  input->GetPoint(vtkIdType(gridVertex(g, low)), a);
  input->GetPoint(vtkIdType(gridVertex(g, high)), b);
  for (int k = 0; k < 3; ++k)
    p[k] = 0.5 * (a[k] + b[k]);
}

// The barycentre of a simplex (TTK places its critical points and glyphs there).
template <typename Triangulation>
void barycentre(vtkDataSet* input, const Triangulation& tri, int dim, SimplexId id,
                double p[3]) {
  p[0] = p[1] = p[2] = 0;
  for (int q = 0; q <= dim; ++q) {
    const SimplexId v = dim == 0   ? id
                        : dim == 1 ? tri.getEdgeVertex(id, q)
                        : dim == 2 ? tri.getTriangleVertex(id, q)
                                   : tri.getCellVertex(id, q);
    double x[3];
    input->GetPoint(vtkIdType(v), x);
    for (int a = 0; a < 3; ++a)
      p[a] += x[a] / (dim + 1);
  }
}

} // namespace

vtkTopoGPUDiscreteGradient::vtkTopoGPUDiscreteGradient() {
  this->Label = "TopoGPU Discrete Gradient";
  this->SetNumberOfOutputPorts(2);
  topogpu::vtk::registerCategoricalColours("CellDimension", "Critical cell dimension",
                                           topogpu::vtk::criticalIndexCategories());
  topogpu::vtk::registerCategoricalColours("PairType", "Gradient pair type",
                                           topogpu::vtk::gradientPairTypeCategories());
}

vtkTopoGPUDiscreteGradient::~vtkTopoGPUDiscreteGradient() = default;

void vtkTopoGPUDiscreteGradient::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "ComputeGradientGlyphs: " << this->ComputeGradientGlyphs << "\n";
}

int vtkTopoGPUDiscreteGradient::FillOutputPortInformation(int port,
                                                          vtkInformation* info) {
  if (port != 0 && port != 1)
    return 0;
  info->Set(vtkDataObject::DATA_TYPE_NAME(), "vtkPolyData");
  return 1;
}

void vtkTopoGPUDiscreteGradient::Compute(topogpu::vtk::FilterRun& run) {
  if (!this->UsesCubicalComplex(run)) {
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
  const cubical::Grid& g = result.grid;
  vtkDataSet* input = run.input;
  std::vector<CriticalCell> rows;
  for (int k = 0; k < 4; ++k) {
    for (std::size_t j = 0; j < result.criticalCells[k].size(); ++j) {
      const SimplexId cell = result.criticalCells[k][j];
      SimplexId c[3];
      cubical::cellCoords(g, cell, c);
      CriticalCell r;
      cubicalCentre(input, g, cell, r.p);
      r.dimension = static_cast<signed char>(k);
      r.id = vtkIdType(result.criticalCellIds[k][j]);
      const SimplexId v = highestCorner(run.values, g, c);
      r.vertex = vtkIdType(v);
      r.onBoundary = onBoxBoundary(g, v);
      r.refined = vtkIdType(cell);
      rows.push_back(r);
    }
  }
  writeCriticalCells(run, rows, true, result.counts);
  if (this->ComputeGradientGlyphs &&
      glyphsFit(this, dg::cubical_pairs::countPairs(result))) {
    dg::GradientPairs pairs;
    dg::cubical_pairs::collectPairs(result, pairs);
    writeGradientGlyphs(
        run, pairs,
        [&](int, SimplexId cell, double p[3]) { cubicalCentre(input, g, cell, p); },
        [&](int, SimplexId cell) { return cubical::cellIdInDimension(g, cell); });
  }
  run.report.timings.emplace_back("output", outputTimer.seconds());
}

// Critical simplices at their barycentres (TTK places its critical points there too).
void vtkTopoGPUDiscreteGradient::ComputeSimplicial(topogpu::vtk::FilterRun& run) {
  namespace sg = topogpu::discrete_gradient::simplicial;
  sg::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  parameters.memoryBudget = this->MemoryBudgetBytes();
  sg::Output result;
  std::vector<CriticalCell> rows;
  vtkDataSet* input = run.input;
  topogpu::Timer outputTimer;
  run.visitWithGale([&](auto& tri) {
    sg::execute(tri, run.values, parameters, run.monitor, result);
    run.report = result.report;
    outputTimer.reset();
    for (int k = 0; k < 4; ++k) {
      for (std::size_t j = 0; j < result.criticalCells[k].size(); ++j) {
        CriticalCell r;
        barycentre(input, tri, k, result.criticalCells[k][j], r.p);
        r.dimension = static_cast<signed char>(k);
        r.id = vtkIdType(result.criticalCells[k][j]);
        r.vertex = vtkIdType(result.criticalVertices[k][j]);
        r.onBoundary = tri.isVertexOnBoundary(result.criticalVertices[k][j]);
        rows.push_back(r);
      }
    }
    if (this->ComputeGradientGlyphs && glyphsFit(this, sg::countPairs(result))) {
      tri.precondition(sg::kPairFaceRelations);
      dg::GradientPairs pairs;
      sg::collectPairs(tri, result, pairs);
      writeGradientGlyphs(
          run, pairs,
          [&](int dim, SimplexId id, double p[3]) { barycentre(input, tri, dim, id, p); },
          [](int, SimplexId id) { return id; });
    }
  });
  writeCriticalCells(run, rows, false, result.counts);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
