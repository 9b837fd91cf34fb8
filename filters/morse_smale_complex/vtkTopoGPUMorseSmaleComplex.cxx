// size: the cubical and simplicial outputs are written here side by side until the filter
// is rewritten over one output assembly shared with the CLI (a later issue), which splits
// it; splitting it now would only move code that is about to be replaced.
#include "vtkTopoGPUMorseSmaleComplex.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUFilterRun.h"

#include "base/Timer.h"
#include "core/common/VertexOrder.h"
#include "core/morse_smale_complex/GradientForest.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/Separatrices2.h"
#include "core/morse_smale_complex/SimplicialMorseSmaleComplex.h"
#include "frontend/EnvironmentKnobs.h"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkDoubleArray.h>
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
#include <vtkStringArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUMorseSmaleComplex);

namespace {

using topogpu::SimplexId;
using topogpu::vtk::labelArray;
using topogpu::vtk::namedArray;
namespace cubical = topogpu::cubical;

// An array of the input scalar's type (TTK's choice for the value arrays).
vtkSmartPointer<vtkDataArray> valueArray(vtkDataArray* like, const char* name,
                                         vtkIdType n) {
  vtkSmartPointer<vtkDataArray> array;
  array.TakeReference(like->NewInstance());
  array->SetNumberOfComponents(1);
  array->SetName(name);
  array->SetNumberOfTuples(n);
  return array;
}

// Geometry and values of cubical cells (refined ids) on the input image, whose point
// ids are the squeezed grid's vertex ids.
class CellGeometry {
public:
  CellGeometry(const cubical::Grid& g, vtkDataSet* input, vtkDataArray* scalars)
      : g_(g), input_(input), scalars_(scalars) {}

  void centre(SimplexId cell, double p[3]) const {
    SimplexId c[3], low[3], high[3];
    cubical::cellCoords(g_, cell, c);
    for (int a = 0; a < 3; ++a) {
      low[a] = c[a] / 2;
      high[a] = (c[a] + 1) / 2;
    }
    double a[3], b[3];
    input_->GetPoint(vertex(low), a);
    input_->GetPoint(vertex(high), b);
    for (int k = 0; k < 3; ++k)
      p[k] = 0.5 * (a[k] + b[k]);
  }

  // The lower-star value of a cell: the largest of its vertices'.
  double value(SimplexId cell) const {
    SimplexId c[3];
    cubical::cellCoords(g_, cell, c);
    double best = 0;
    bool first = true;
    for (int corner = 0; corner < 8; ++corner) {
      SimplexId v[3];
      for (int a = 0; a < 3; ++a)
        v[a] = (corner >> a & 1) ? (c[a] + 1) / 2 : c[a] / 2;
      const double x = scalars_->GetTuple1(vertex(v));
      best = first ? x : std::max(best, x);
      first = false;
    }
    return best;
  }

  int dimension(SimplexId cell) const { return cubical::cellDimension(g_, cell); }
  SimplexId id(SimplexId cell) const { return cubical::cellIdInDimension(g_, cell); }

  // A cell lies on the box's boundary when it sits on an extreme plane of an axis it
  // does not span (axes of one vertex excepted: a 2D image is all boundary otherwise).
  bool onBoundary(SimplexId cell) const {
    SimplexId c[3];
    cubical::cellCoords(g_, cell, c);
    for (int a = 0; a < 3; ++a)
      if (g_.n[a] > 1 && (c[a] & 1) == 0 &&
          (c[a] == 0 || c[a] == cubical::refinedSize(g_, a) - 1))
        return true;
    return false;
  }

private:
  vtkIdType vertex(const SimplexId v[3]) const {
    const SimplexId id = v[0] + g_.n[0] * (v[1] + g_.n[1] * v[2]);
    return static_cast<vtkIdType>(id);
  }

  const cubical::Grid& g_;
  vtkDataSet* input_;
  vtkDataArray* scalars_;
};

// Geometry and values of simplices (a V-path's cells, dimension + id) on the input.
template <typename Triangulation> class SimplexGeometry {
public:
  using Cell = topogpu::discrete_gradient::simplicial::Cell;
  SimplexGeometry(const Triangulation& tri, vtkDataSet* input, vtkDataArray* scalars)
      : tri_(tri), input_(input), scalars_(scalars), top_(tri.getDimension()) {}

  SimplexId vertex(const Cell& c, int k) const {
    return c.dimension == 0   ? c.id
           : c.dimension == 1 ? tri_.getEdgeVertex(c.id, k)
           : c.dimension == 2 ? tri_.getTriangleVertex(c.id, k)
                              : tri_.getCellVertex(c.id, k);
  }
  // The barycentre (TTK places its critical points there too).
  void centre(const Cell& c, double p[3]) const {
    p[0] = p[1] = p[2] = 0;
    for (int k = 0; k <= c.dimension; ++k) {
      double x[3];
      input_->GetPoint(vtkIdType(vertex(c, k)), x);
      for (int a = 0; a < 3; ++a)
        p[a] += x[a] / (c.dimension + 1);
    }
  }
  // The lower-star value: the largest of its vertices'.
  double value(const Cell& c) const {
    double best = scalars_->GetTuple1(vtkIdType(vertex(c, 0)));
    for (int k = 1; k <= c.dimension; ++k)
      best = std::max(best, scalars_->GetTuple1(vtkIdType(vertex(c, k))));
    return best;
  }
  // On the mesh's boundary: the backend's flags; a top cell when one of its facets is,
  // a triangle of a 2D mesh when one of its edges is.
  bool onBoundary(const Cell& c) const {
    switch (c.dimension) {
    case 0:
      return tri_.isVertexOnBoundary(c.id);
    case 1:
      return tri_.isEdgeOnBoundary(c.id);
    case 2:
      if (top_ == 3)
        return tri_.isTriangleOnBoundary(c.id);
      for (int k = 0; k < 3; ++k)
        if (tri_.isEdgeOnBoundary(tri_.getTriangleEdge(c.id, k)))
          return true;
      return false;
    default:
      for (int k = 0; k < 4; ++k)
        if (tri_.isTriangleOnBoundary(tri_.getTetTriangle(c.id, k)))
          return true;
      return false;
    }
  }
  int dimension(const Cell& c) const { return c.dimension; }
  SimplexId id(const Cell& c) const { return c.id; }

private:
  const Triangulation& tri_;
  vtkDataSet* input_;
  vtkDataArray* scalars_;
  int top_;
};

// The 1-separatrices port, filled one V-path at a time; Geometry: CellGeometry (cells
// are refined ids) or SimplexGeometry (cells are simplices).
template <typename Geometry> class Separatrices {
public:
  Separatrices(const Geometry& geometry, vtkDataArray* like)
      : geometry_(geometry), like_(like) {
    points_->SetDataTypeToDouble();
  }

  // One polyline: the saddle, then the path's cells to the extremum (path.back()).
  template <typename Cell>
  void add(const Cell& saddle, const std::vector<Cell>& path, SimplexId separatrixId,
           int type, vtkIdType multiplicity) {
    std::vector<vtkIdType> ids;
    ids.reserve(path.size() + 1);
    double lowest = geometry_.value(saddle), highest = lowest;
    auto addPoint = [&](const Cell& cell) {
      double p[3];
      geometry_.centre(cell, p);
      ids.push_back(points_->InsertNextPoint(p));
      dimension_.push_back(static_cast<signed char>(geometry_.dimension(cell)));
      cellId_.push_back(vtkIdType(geometry_.id(cell)));
      const double x = geometry_.value(cell);
      lowest = std::min(lowest, x);
      highest = std::max(highest, x);
    };
    addPoint(saddle);
    for (const Cell& cell : path)
      addPoint(cell);
    lines_->InsertNextCell(vtkIdType(ids.size()), ids.data());
    const Cell& extremum = path.back();
    source_.push_back(vtkIdType(geometry_.id(saddle)));
    destination_.push_back(vtkIdType(geometry_.id(extremum)));
    separatrixId_.push_back(vtkIdType(separatrixId));
    type_.push_back(static_cast<signed char>(type));
    multiplicity_.push_back(vtkIdType(multiplicity));
    onBoundary_.push_back(static_cast<signed char>(int(geometry_.onBoundary(saddle)) +
                                                   int(geometry_.onBoundary(extremum))));
    minimum_.push_back(lowest);
    maximum_.push_back(highest);
  }

  void write(vtkUnstructuredGrid* output) const {
    const vtkIdType n = vtkIdType(source_.size());
    const vtkIdType np = points_->GetNumberOfPoints();
    output->SetPoints(points_);
    output->SetCells(VTK_POLY_LINE, lines_);
    auto dimension = labelArray<vtkSignedCharArray>("CellDimension", np);
    auto cellId = labelArray<vtkIdTypeArray>("CellId", np);
    for (vtkIdType i = 0; i < np; ++i) {
      dimension->SetValue(i, dimension_[i]);
      cellId->SetValue(i, cellId_[i]);
    }
    output->GetPointData()->AddArray(dimension);
    output->GetPointData()->AddArray(cellId);
    auto source = labelArray<vtkIdTypeArray>("SourceId", n);
    auto destination = labelArray<vtkIdTypeArray>("DestinationId", n);
    auto separatrixId = labelArray<vtkIdTypeArray>("SeparatrixId", n);
    auto type = labelArray<vtkSignedCharArray>("SeparatrixType", n);
    auto multiplicity = labelArray<vtkIdTypeArray>("Multiplicity", n);
    auto onBoundary =
        labelArray<vtkSignedCharArray>("NumberOfCriticalPointsOnBoundary", n);
    auto maximum = valueArray(like_, "SeparatrixFunctionMaximum", n);
    auto minimum = valueArray(like_, "SeparatrixFunctionMinimum", n);
    auto difference = valueArray(like_, "SeparatrixFunctionDifference", n);
    for (vtkIdType i = 0; i < n; ++i) {
      source->SetValue(i, source_[i]);
      destination->SetValue(i, destination_[i]);
      separatrixId->SetValue(i, separatrixId_[i]);
      type->SetValue(i, type_[i]);
      multiplicity->SetValue(i, multiplicity_[i]);
      onBoundary->SetValue(i, onBoundary_[i]);
      maximum->SetTuple1(i, maximum_[i]);
      minimum->SetTuple1(i, minimum_[i]);
      difference->SetTuple1(i, maximum_[i] - minimum_[i]);
    }
    vtkCellData* cd = output->GetCellData();
    for (vtkDataArray* array :
         {static_cast<vtkDataArray*>(source), static_cast<vtkDataArray*>(destination),
          static_cast<vtkDataArray*>(separatrixId), static_cast<vtkDataArray*>(type),
          maximum.Get(), minimum.Get(), difference.Get(),
          static_cast<vtkDataArray*>(multiplicity),
          static_cast<vtkDataArray*>(onBoundary)})
      cd->AddArray(array);
    cd->SetActiveScalars("SeparatrixType");
  }

private:
  const Geometry& geometry_;
  vtkDataArray* like_;
  vtkSmartPointer<vtkPoints> points_ = vtkSmartPointer<vtkPoints>::New();
  vtkSmartPointer<vtkCellArray> lines_ = vtkSmartPointer<vtkCellArray>::New();
  std::vector<signed char> dimension_, type_, onBoundary_;
  std::vector<vtkIdType> cellId_, source_, destination_, separatrixId_, multiplicity_;
  std::vector<double> minimum_, maximum_;
};

// The 2-separatrices port (TTK 1.2's vtkPolyData): one polygon per wall cell
// (separatrices2::polygonCorners: a quad's 4 grid points, an edge's dual quad at voxel
// centres), corners shared by refined id; cell data as TTK's, per wall.
class Separatrices2Port {
public:
  Separatrices2Port(const cubical::Grid& g, const CellGeometry& geometry)
      : g_(g), geometry_(geometry) {}

  // Every wall of `walls`, SeparatrixType `type` (2 descending, 1 ascending, as TTK),
  // numbered on from separatrixId.
  void add(const topogpu::separatrices2::Walls& walls, int type,
           SimplexId& separatrixId) {
    for (std::size_t i = 0; i < walls.size(); ++i, ++separatrixId) {
      const SimplexId saddle = walls.saddles[i];
      // The function range over the wall's cells and the saddles on its border (TTK's
      // separatricesSaddles), with our lower-star cell values as port 1's.
      double lowest = geometry_.value(saddle), highest = lowest;
      int onBoundary = int(geometry_.onBoundary(saddle));
      for (std::size_t k = walls.reachedOffsets[i]; k < walls.reachedOffsets[i + 1];
           ++k) {
        const double x = geometry_.value(walls.reached[k]);
        lowest = std::min(lowest, x);
        highest = std::max(highest, x);
        onBoundary += int(geometry_.onBoundary(walls.reached[k]));
      }
      for (std::size_t k = walls.offsets[i]; k < walls.offsets[i + 1]; ++k) {
        const SimplexId cell = walls.cells[k];
        const double x = geometry_.value(cell);
        lowest = std::min(lowest, x);
        highest = std::max(highest, x);
        cells_.push_back(cell);
        wall_.push_back(vtkIdType(maximum_.size()));
      }
      source_.push_back(vtkIdType(cubical::cellIdInDimension(g_, saddle)));
      separatrixId_.push_back(vtkIdType(separatrixId));
      type_.push_back(static_cast<signed char>(type));
      onBoundary_.push_back(static_cast<signed char>(std::min(onBoundary, 127)));
      minimum_.push_back(lowest);
      maximum_.push_back(highest);
    }
  }

  void write(vtkPolyData* output) const {
    // Corners are grid vertices (quads), voxel centres (edges) or, where an edge's dual
    // quad is clipped by the box, boundary cells: dense maps for the first two, so the
    // points are shared in one pass without sorting the corners.
    std::vector<vtkIdType> vertexPoint, voxelPoint;
    std::unordered_map<SimplexId, vtkIdType> otherPoint;
    auto points = vtkSmartPointer<vtkPoints>::New();
    points->SetDataTypeToDouble();
    const vtkIdType n = vtkIdType(cells_.size());
    auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
    auto connectivity = vtkSmartPointer<vtkIdTypeArray>::New();
    offsets->SetNumberOfTuples(n + 1);
    connectivity->SetNumberOfTuples(4 * n);
    for (vtkIdType c = 0; c < n; ++c) {
      SimplexId corners[4];
      topogpu::separatrices2::polygonCorners(g_, cells_[std::size_t(c)], corners);
      for (int k = 0; k < 4; ++k) {
        SimplexId x[3];
        cubical::cellCoords(g_, corners[k], x);
        const int dimension = cubical::cellDimension(g_, corners[k]);
        vtkIdType* slot = nullptr;
        if (dimension == 0 || dimension == 3) {
          std::vector<vtkIdType>& map = dimension == 0 ? vertexPoint : voxelPoint;
          if (map.empty())
            map.assign(std::size_t(dimension == 0 ? g_.n[0] * g_.n[1] * g_.n[2]
                                                  : cubical::topCellCount(g_)),
                       -1);
          slot = &map[std::size_t(dimension == 0 ? cubical::vertexOfCell(g_, corners[k])
                                                 : cubical::topIndexAt(g_, x))];
        } else {
          slot = &otherPoint.emplace(corners[k], -1).first->second;
        }
        if (*slot < 0) {
          double p[3];
          geometry_.centre(corners[k], p);
          *slot = points->InsertNextPoint(p);
        }
        connectivity->SetValue(4 * c + k, *slot);
      }
    }
    for (vtkIdType c = 0; c <= n; ++c)
      offsets->SetValue(c, 4 * c);
    auto polygons = vtkSmartPointer<vtkCellArray>::New();
    polygons->SetData(offsets, connectivity);
    output->SetPoints(points);
    output->SetPolys(polygons);
    auto source = labelArray<vtkIdTypeArray>("SourceId", n);
    auto separatrixId = labelArray<vtkIdTypeArray>("SeparatrixId", n);
    auto type = labelArray<vtkSignedCharArray>("SeparatrixType", n);
    auto maximum = namedArray<vtkDoubleArray>("SeparatrixFunctionMaximum", n);
    auto minimum = namedArray<vtkDoubleArray>("SeparatrixFunctionMinimum", n);
    auto difference = namedArray<vtkDoubleArray>("SeparatrixFunctionDifference", n);
    auto onBoundary =
        labelArray<vtkSignedCharArray>("NumberOfCriticalPointsOnBoundary", n);
    for (vtkIdType c = 0; c < n; ++c) {
      const std::size_t w = std::size_t(wall_[std::size_t(c)]);
      source->SetValue(c, source_[w]);
      separatrixId->SetValue(c, separatrixId_[w]);
      type->SetValue(c, type_[w]);
      maximum->SetValue(c, maximum_[w]);
      minimum->SetValue(c, minimum_[w]);
      difference->SetValue(c, maximum_[w] - minimum_[w]);
      onBoundary->SetValue(c, onBoundary_[w]);
    }
    vtkCellData* cd = output->GetCellData();
    for (vtkDataArray* array :
         {static_cast<vtkDataArray*>(source), static_cast<vtkDataArray*>(separatrixId),
          static_cast<vtkDataArray*>(type), static_cast<vtkDataArray*>(maximum),
          static_cast<vtkDataArray*>(minimum), static_cast<vtkDataArray*>(difference),
          static_cast<vtkDataArray*>(onBoundary)})
      cd->AddArray(array);
    cd->SetActiveScalars("SeparatrixType");
  }

private:
  const cubical::Grid& g_;
  const CellGeometry& geometry_;
  std::vector<SimplexId> cells_; // per polygon: the wall cell it draws (refined id)
  std::vector<vtkIdType> wall_;  // per polygon: its wall's index below
  std::vector<signed char> type_, onBoundary_;
  std::vector<vtkIdType> source_, separatrixId_;
  std::vector<double> minimum_, maximum_;
};

// One point of port 0.
struct CriticalPoint {
  double p[3];
  signed char dimension;
  vtkIdType id;
  double value;
  bool onBoundary;
  vtkIdType manifoldSize;
  bool boundaryMaximum;
};

// Port 0: the critical points (TTK's arrays, plus IsBoundaryMaximum).
void writeCriticalPoints(topogpu::vtk::FilterRun& run,
                         const std::vector<CriticalPoint>& rows) {
  const vtkIdType n = vtkIdType(rows.size());
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  auto dimension = labelArray<vtkSignedCharArray>("CellDimension", n);
  auto cellId = labelArray<vtkIdTypeArray>("CellId", n);
  const char* scalarName =
      run.scalars->GetName() != nullptr ? run.scalars->GetName() : "Scalars";
  auto value = valueArray(run.scalars, scalarName, n);
  auto onBoundary = labelArray<vtkSignedCharArray>("IsOnBoundary", n);
  auto manifoldSize = labelArray<vtkIdTypeArray>("ManifoldSize", n);
  auto boundaryMaximum = labelArray<vtkSignedCharArray>("IsBoundaryMaximum", n);
  auto verts = vtkSmartPointer<vtkCellArray>::New();
  verts->AllocateExact(n, n);
  for (vtkIdType i = 0; i < n; ++i) {
    const CriticalPoint& r = rows[std::size_t(i)];
    points->SetPoint(i, r.p);
    dimension->SetValue(i, r.dimension);
    cellId->SetValue(i, r.id);
    value->SetTuple1(i, r.value);
    onBoundary->SetValue(i, static_cast<signed char>(r.onBoundary));
    manifoldSize->SetValue(i, r.manifoldSize);
    boundaryMaximum->SetValue(i, static_cast<signed char>(r.boundaryMaximum));
    verts->InsertNextCell(1, &i);
  }
  vtkUnstructuredGrid* output = vtkUnstructuredGrid::GetData(run.outputVector, 0);
  output->SetPoints(points);
  output->SetCells(VTK_VERTEX, verts);
  vtkPointData* pd = output->GetPointData();
  pd->AddArray(dimension);
  pd->AddArray(cellId);
  pd->AddArray(value);
  pd->AddArray(onBoundary);
  pd->AddArray(manifoldSize);
  pd->AddArray(boundaryMaximum);
  pd->SetActiveScalars("CellDimension");
}

// Vertices per label (ManifoldSize of the extrema).
std::vector<vtkIdType>
labelSizes(const std::vector<topogpu::morse_smale_complex::ManifoldLabel>& labels,
           std::size_t count) {
  std::vector<vtkIdType> sizes(count, 0);
  for (const auto l : labels)
    if (l >= 0 && std::size_t(l) < count)
      ++sizes[std::size_t(l)];
  return sizes;
}

// What the segmentation port holds (the three switches).
struct SegmentationSwitches {
  bool ascending, descending, final;
};

// Port 3: the input with the labels (TTK's: AscendingManifold by maxima,
// DescendingManifold by minima; the cell array only when the input's cells are the
// labelled top cells).
void writeSegmentation(
    topogpu::vtk::FilterRun& run, const SegmentationSwitches& on,
    const std::vector<topogpu::morse_smale_complex::ManifoldLabel>& ascending,
    const std::vector<topogpu::morse_smale_complex::ManifoldLabel>& descending,
    const std::vector<topogpu::morse_smale_complex::ManifoldLabel>& cellAscending) {
  vtkDataSet* segmentation = vtkDataSet::GetData(run.outputVector, 3);
  segmentation->ShallowCopy(run.input);
  auto labels = [](const char* name, const auto& values) {
    auto array = labelArray<vtkIdTypeArray>(name, vtkIdType(values.size()));
    std::copy(values.begin(), values.end(), array->GetPointer(0));
    return array;
  };
  if (on.ascending) {
    segmentation->GetPointData()->AddArray(labels("AscendingManifold", ascending));
    if (vtkIdType(cellAscending.size()) == run.input->GetNumberOfCells())
      segmentation->GetCellData()->AddArray(labels("AscendingManifold", cellAscending));
  }
  if (on.descending)
    segmentation->GetPointData()->AddArray(labels("DescendingManifold", descending));
  if (on.final)
    segmentation->GetPointData()->AddArray(labels(
        "MorseSmaleManifold", topogpu::morse_smale_complex::simplicial::morseSmaleLabels(
                                  descending, ascending)));
}

// Field data on every port: what was found.
struct Found {
  std::array<SimplexId, 4> counts;
  SimplexId boundaryMaxima;
  vtkIdType arcs[3], multiplicities[3]; // saddle1-minimum, saddle-maximum, saddle-saddle
  SimplexId unlabelledAscending, unlabelledDescending;
};

void writeFieldData(topogpu::vtk::FilterRun& run, const Found& found) {
  auto counts = namedArray<vtkIdTypeArray>("CriticalCellCounts", 4);
  for (int k = 0; k < 4; ++k)
    counts->SetValue(k, vtkIdType(found.counts[k]));
  auto boundaryMaxima = namedArray<vtkIdTypeArray>("BoundaryMaximumCount", 1);
  boundaryMaxima->SetValue(0, vtkIdType(found.boundaryMaxima));
  auto arcs = namedArray<vtkIdTypeArray>("ArcCounts", 3);
  auto multiplicities = namedArray<vtkIdTypeArray>("ArcMultiplicitySums", 3);
  for (int k = 0; k < 3; ++k) {
    arcs->SetValue(k, found.arcs[k]);
    multiplicities->SetValue(k, found.multiplicities[k]);
  }
  auto unlabelled = namedArray<vtkIdTypeArray>("UnlabelledVertices", 2);
  unlabelled->SetValue(0, vtkIdType(found.unlabelledAscending));
  unlabelled->SetValue(1, vtkIdType(found.unlabelledDescending));
  for (int port = 0; port < 4; ++port) {
    if (vtkDataObject* output = vtkDataObject::GetData(run.outputVector, port)) {
      vtkFieldData* fd = output->GetFieldData();
      for (vtkDataArray* array :
           {static_cast<vtkDataArray*>(counts),
            static_cast<vtkDataArray*>(boundaryMaxima), static_cast<vtkDataArray*>(arcs),
            static_cast<vtkDataArray*>(multiplicities),
            static_cast<vtkDataArray*>(unlabelled)})
        fd->AddArray(array);
    }
  }
}

template <typename Arcs> vtkIdType multiplicitySum(const Arcs& arcs) {
  vtkIdType sum = 0;
  for (const auto& arc : arcs)
    sum += vtkIdType(arc.multiplicity);
  return sum;
}

} // namespace

vtkTopoGPUMorseSmaleComplex::vtkTopoGPUMorseSmaleComplex() {
  this->Label = "TopoGPU Morse-Smale Complex";
  this->SetNumberOfOutputPorts(4);
  topogpu::vtk::registerCategoricalColours("CellDimension", "Critical cell dimension",
                                           topogpu::vtk::criticalIndexCategories());
  topogpu::vtk::registerCategoricalColours("SeparatrixType", "Separatrix type",
                                           topogpu::vtk::separatrixTypeCategories());
  // Tests force a small wall limit; a bad value is ignored (the default stays).
  if (const auto cells = topogpu::frontend::separatrices2MaxCellsFromEnvironment())
    this->Separatrices2MaxCells = *cells;
}

vtkTopoGPUMorseSmaleComplex::~vtkTopoGPUMorseSmaleComplex() = default;

void vtkTopoGPUMorseSmaleComplex::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "ComputeCriticalPoints: " << this->ComputeCriticalPoints << "\n";
  os << indent << "ComputeAscendingSeparatrices1: " << this->ComputeAscendingSeparatrices1
     << "\n";
  os << indent
     << "ComputeDescendingSeparatrices1: " << this->ComputeDescendingSeparatrices1
     << "\n";
  os << indent << "ComputeSaddleConnectors: " << this->ComputeSaddleConnectors << "\n";
  os << indent << "ComputeAscendingSeparatrices2: " << this->ComputeAscendingSeparatrices2
     << "\n";
  os << indent
     << "ComputeDescendingSeparatrices2: " << this->ComputeDescendingSeparatrices2
     << "\n";
  os << indent << "ComputeAscendingSegmentation: " << this->ComputeAscendingSegmentation
     << "\n";
  os << indent << "ComputeDescendingSegmentation: " << this->ComputeDescendingSegmentation
     << "\n";
  os << indent << "ComputeFinalSegmentation: " << this->ComputeFinalSegmentation << "\n";
  os << indent << "Complex: " << (this->Complex ? "Simplicial" : "Cubical") << "\n";
  os << indent << "Triangulation: " << this->Triangulation << "\n";
}

int vtkTopoGPUMorseSmaleComplex::FillOutputPortInformation(int port,
                                                           vtkInformation* info) {
  if (port < 0 || port > 3)
    return 0;
  // Port 3 is the input image with the labels ("vtkDataSet": the input's type); port 2
  // holds polygons (vtkPolyData, as TTK 1.2's).
  info->Set(vtkDataObject::DATA_TYPE_NAME(),
            port == 3 ? "vtkDataSet"
                      : (port == 2 ? "vtkPolyData" : "vtkUnstructuredGrid"));
  return 1;
}

// size: the cubical path's output assembly, left whole until the filter's rewrite (see
// the top of the file).
void vtkTopoGPUMorseSmaleComplex::Compute(topogpu::vtk::FilterRun& run) {
  namespace msc = topogpu::morse_smale_complex;
  // The cubical complex needs the implicit grid: meshes, images stored as meshes and
  // Complex = Simplicial take the simplicial path.
  if (this->Complex == COMPLEX_SIMPLICIAL ||
      !std::holds_alternative<std::shared_ptr<topogpu::ImplicitTriangulation>>(
          *run.triangulation)) {
    this->ComputeSimplicial(run);
    return;
  }
  msc::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  // Stage 3 is the expensive one: computed only when its arcs are asked for.
  parameters.computeSaddleConnections = this->ComputeSaddleConnectors;
  msc::Output result;
  const bool walls =
      this->ComputeAscendingSeparatrices2 || this->ComputeDescendingSeparatrices2;
  run.visit([&](auto& triangulation) {
    msc::execute(triangulation, run.values, parameters,
                 walls ? run.monitor.stage(0, 0.85) : run.monitor, result);
  });
  run.report = result.report;

  const topogpu::Timer outputTimer;
  const topogpu::discrete_gradient::Output& dg = result.gradient;
  const cubical::Grid& g = dg.grid;
  const int d = g.dimension;
  vtkDataSet* input = run.input;
  const CellGeometry geometry(g, input, run.scalars);
  const SimplexId nVertices = SimplexId(result.descendingManifold.size());
  const std::vector<SimplexId>& minima = dg.criticalCells[0];

  // ---- port 0: critical cells, then the boundary maxima --------------------------
  if (this->ComputeCriticalPoints) {
    std::vector<vtkIdType> minimumSize(minima.size(), 0),
        maximumSize(result.maxima.size(), 0);
    for (SimplexId v = 0; v < nVertices; ++v) {
      if (result.descendingManifold[v] >= 0)
        ++minimumSize[std::size_t(result.descendingManifold[v])];
      if (result.ascendingManifold[v] >= 0)
        ++maximumSize[std::size_t(result.ascendingManifold[v])];
    }
    std::vector<SimplexId> cells;
    std::vector<vtkIdType> sizes;
    for (int k = 0; k <= d; ++k) {
      for (std::size_t j = 0; j < dg.criticalCells[k].size(); ++j) {
        cells.push_back(dg.criticalCells[k][j]);
        sizes.push_back(k == 0 ? minimumSize[j] : (k == d ? maximumSize[j] : 0));
      }
    }
    const std::size_t interior = cells.size();
    for (std::size_t j = dg.criticalCells[d].size(); j < result.maxima.size(); ++j) {
      cells.push_back(result.maxima[j]);
      sizes.push_back(maximumSize[j]);
    }
    std::vector<CriticalPoint> rows(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const SimplexId cell = cells[i];
      CriticalPoint& r = rows[i];
      geometry.centre(cell, r.p);
      r.dimension = static_cast<signed char>(cubical::cellDimension(g, cell));
      r.id = vtkIdType(cubical::cellIdInDimension(g, cell));
      r.value = geometry.value(cell);
      r.onBoundary = geometry.onBoundary(cell);
      r.manifoldSize = sizes[i];
      r.boundaryMaximum = i >= interior;
    }
    writeCriticalPoints(run, rows);
  }

  // ---- port 1: 1-separatrices along the V-paths ------------------------------------
  Separatrices<CellGeometry> separatrices(geometry, run.scalars);
  SimplexId separatrixId = 0;
  // Both V-paths of a saddle, or its only one: arcs numbered as the core's (saddles in
  // order, the lower extremum id first; one arc of multiplicity 2 for a double path).
  auto addSaddle = [&](SimplexId saddle, std::vector<std::vector<SimplexId>>& paths,
                       int type) {
    std::sort(paths.begin(), paths.end(),
              [](const auto& a, const auto& b) { return a.back() < b.back(); });
    const bool twice = paths.size() == 2 && paths[0].back() == paths[1].back();
    for (std::size_t k = 0; k < paths.size(); ++k) {
      if (k > 0 && !twice)
        ++separatrixId;
      separatrices.add(saddle, paths[k], separatrixId, type, twice ? 2 : 1);
    }
    ++separatrixId;
  };
  if (this->ComputeDescendingSeparatrices1) {
    for (const SimplexId e : dg.criticalCells[1]) {
      SimplexId c[3];
      cubical::cellCoords(g, e, c);
      const SimplexId step = cubical::refinedStride(g, c[0] & 1 ? 0 : (c[1] & 1 ? 1 : 2));
      std::vector<std::vector<SimplexId>> paths{
          msc::descendingPath(dg, cubical::vertexOfCell(g, e - step)),
          msc::descendingPath(dg, cubical::vertexOfCell(g, e + step))};
      addSaddle(e, paths, 0);
    }
  }
  if (this->ComputeAscendingSeparatrices1) {
    // The boundary part of an ascending path follows the vertex order.
    bool reused = false;
    const topogpu::SharedVertexOrder order =
        run.vertexOrder(run.values, topogpu::Monitor{}, reused);
    const SimplexId* rank = order->data();
    for (const SimplexId s : dg.criticalCells[d - 1]) {
      SimplexId c[3];
      cubical::cellCoords(g, s, c);
      const int a = cubical::unspannedAxis(g, c);
      std::vector<std::vector<SimplexId>> paths;
      for (int k = 0; k < 2; ++k) {
        SimplexId p[3] = {c[0], c[1], c[2]};
        p[a] += k ? 1 : -1;
        if (p[a] < 0 || p[a] >= cubical::refinedSize(g, a))
          continue; // a boundary saddle: one coface, one path
        const SimplexId t = cubical::topIndexAt(g, p);
        std::vector<SimplexId> path = msc::ascendingPath(dg, rank, t);
        // A boundary path whose root facet bounds a critical maximum ends there.
        const SimplexId label = result.cellAscendingManifold[std::size_t(t)];
        if (label >= 0 && path.back() != result.maxima[std::size_t(label)])
          path.push_back(result.maxima[std::size_t(label)]);
        paths.push_back(std::move(path));
      }
      addSaddle(s, paths, d - 1);
    }
  }
  // Saddle-saddle arcs (SeparatrixType 1, 3D): one polyline per connected pair along one
  // of its V-paths, from the 2-saddle down to the 1-saddle; Multiplicity counts them all.
  const bool connectors = this->ComputeSaddleConnectors && d == 3;
  if (connectors) {
    for (const topogpu::saddle_connections::Arc& arc : result.saddleConnections.arcs) {
      const std::vector<SimplexId> path = topogpu::saddle_connections::tracePath(dg, arc);
      if (path.size() < 2)
        continue; // the core found paths, so a trace exists; never draw a broken one
      separatrices.add(
          path.front(), {path.begin() + 1, path.end()}, separatrixId++, 1,
          vtkIdType(std::min<std::uint64_t>(
              arc.multiplicity, std::uint64_t(std::numeric_limits<vtkIdType>::max()))));
    }
  }
  if (this->ComputeDescendingSeparatrices1 || this->ComputeAscendingSeparatrices1 ||
      connectors)
    separatrices.write(vtkUnstructuredGrid::GetData(run.outputVector, 1));

  // ---- port 2: 2-separatrices (3D) -----------------------------------------------
  if (walls && d == 3) {
    namespace s2 = topogpu::separatrices2;
    s2::Parameters wallParameters;
    wallParameters.ascending = this->ComputeAscendingSeparatrices2;
    wallParameters.descending = this->ComputeDescendingSeparatrices2;
    if (this->Separatrices2MaxCells > 0)
      wallParameters.maxCells = std::size_t(this->Separatrices2MaxCells);
    s2::Output wallsOut;
    try {
      s2::compute(dg, wallParameters, run.monitor.stage(0.85, 1), wallsOut, run.report);
    } catch (const topogpu::Error& e) {
      // Too large to draw: the rest of the complex is still worth having.
      run.report.warnings.push_back({topogpu::WarningCode::Separatrices2TooLarge,
                                     std::string(e.what()) + "; port 2 is left empty"});
      wallsOut.clear();
    }
    Separatrices2Port port(g, geometry);
    SimplexId wallId = 0;
    port.add(wallsOut.descending, 2, wallId);
    port.add(wallsOut.ascending, 1, wallId);
    port.write(vtkPolyData::GetData(run.outputVector, 2));
  }

  // ---- port 3: the segmentation, field data --------------------------------------
  writeSegmentation(run,
                    {this->ComputeAscendingSegmentation,
                     this->ComputeDescendingSegmentation, this->ComputeFinalSegmentation},
                    result.ascendingManifold, result.descendingManifold,
                    result.cellAscendingManifold);
  // saddle1-saddle2: -1 when not computed (switched off, or a 2D grid has none).
  const bool computed = this->ComputeSaddleConnectors && d == 3;
  writeFieldData(
      run,
      {dg.counts,
       result.boundaryMaxima,
       {vtkIdType(result.saddle1Minimum.size()), vtkIdType(result.saddleMaximum.size()),
        computed ? vtkIdType(result.saddleConnections.arcs.size()) : -1},
       {multiplicitySum(result.saddle1Minimum), multiplicitySum(result.saddleMaximum),
        computed ? vtkIdType(std::min<std::uint64_t>(
                       result.saddleConnections.multiplicitySum,
                       std::uint64_t(std::numeric_limits<vtkIdType>::max())))
                 : -1},
       result.unlabelledAscending,
       result.unlabelledDescending});
  run.report.timings.emplace_back("output", outputTimer.seconds());
}

// The simplicial complex (meshes, or images with Complex = Simplicial / a stored
// triangulation): the same ports and arrays, simplices in place of refined cells.
void vtkTopoGPUMorseSmaleComplex::ComputeSimplicial(topogpu::vtk::FilterRun& run) {
  namespace smsc = topogpu::morse_smale_complex::simplicial;
  namespace sg = topogpu::discrete_gradient::simplicial;
  using Cell = sg::Cell;
  smsc::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  parameters.computeSaddleConnections = this->ComputeSaddleConnectors;
  parameters.keepConnectionPaths = this->ComputeSaddleConnectors;
  if (this->ComputeAscendingSeparatrices2 || this->ComputeDescendingSeparatrices2)
    run.report.warnings.push_back(
        {topogpu::WarningCode::Separatrices2Unsupported,
         "2-separatrices are not computed on the simplicial complex; port 2 is empty"});
  std::vector<topogpu::Warning> warnings = run.report.warnings;
  smsc::Output result;
  topogpu::Timer outputTimer;
  run.visitWithGale([&](auto& tri) {
    smsc::execute(tri, run.values, parameters, run.monitor, result);
    outputTimer.reset();
    tri.precondition(smsc::kRequiredRelations | topogpu::Boundary);
    const sg::Output& g = result.gradient;
    const int d = g.dimension;
    const SimplexGeometry<std::decay_t<decltype(tri)>> geometry(tri, run.input,
                                                                run.scalars);

    // ---- port 0: critical simplices, then the boundary maxima ----------------------
    if (this->ComputeCriticalPoints) {
      const auto minimumSize =
          labelSizes(result.descendingManifold, g.criticalCells[0].size());
      const auto maximumSize = labelSizes(result.ascendingManifold, result.maxima.size());
      std::vector<CriticalPoint> rows;
      auto add = [&](const Cell& cell, vtkIdType size, bool boundaryMaximum) {
        CriticalPoint r;
        geometry.centre(cell, r.p);
        r.dimension = static_cast<signed char>(cell.dimension);
        r.id = vtkIdType(cell.id);
        r.value = geometry.value(cell);
        r.onBoundary = geometry.onBoundary(cell);
        r.manifoldSize = size;
        r.boundaryMaximum = boundaryMaximum;
        rows.push_back(r);
      };
      for (int k = 0; k <= d; ++k)
        for (std::size_t j = 0; j < g.criticalCells[k].size(); ++j)
          add({k, g.criticalCells[k][j]},
              k == 0 ? minimumSize[j] : (k == d ? maximumSize[j] : 0), false);
      for (std::size_t j = g.criticalCells[d].size(); j < result.maxima.size(); ++j)
        add({result.maxima[j].dimension, result.maxima[j].id}, maximumSize[j], true);
      writeCriticalPoints(run, rows);
    }

    // ---- port 1: 1-separatrices through the barycentres ----------------------------
    Separatrices<SimplexGeometry<std::decay_t<decltype(tri)>>> separatrices(geometry,
                                                                            run.scalars);
    SimplexId separatrixId = 0;
    // Both paths of a saddle as the grid's: sorted by extremum, one separatrix id (and
    // multiplicity 2) when they reach the same one.
    auto addSaddle = [&](const Cell& saddle, std::vector<std::vector<Cell>>& paths,
                         int type) {
      auto end = [&](const std::vector<Cell>& p) {
        return std::make_pair(p.back().dimension, p.back().id);
      };
      std::sort(paths.begin(), paths.end(),
                [&](const auto& a, const auto& b) { return end(a) < end(b); });
      for (std::size_t k = 0; k < paths.size(); ++k) {
        std::size_t same = 0;
        for (const auto& q : paths)
          same += end(q) == end(paths[k]);
        if (k > 0 && end(paths[k]) != end(paths[k - 1]))
          ++separatrixId;
        separatrices.add(saddle, paths[k], separatrixId, type, vtkIdType(same));
      }
      ++separatrixId;
    };
    if (this->ComputeDescendingSeparatrices1) {
      for (const SimplexId e : g.criticalCells[1]) {
        std::vector<std::vector<Cell>> paths(2);
        for (int k = 0; k < 2; ++k)
          smsc::descendingPath(tri, result, tri.getEdgeVertex(e, k), paths[k]);
        addSaddle({1, e}, paths, 0);
      }
    }
    if (this->ComputeAscendingSeparatrices1) {
      for (const SimplexId s : g.criticalCells[d - 1]) {
        const int n = sg::getFacetStarNumber(tri, d, s);
        std::vector<std::vector<Cell>> paths(static_cast<std::size_t>(n));
        for (int k = 0; k < n; ++k)
          smsc::ascendingPath(tri, result, sg::getFacetStar(tri, d, s, k), paths[k]);
        addSaddle({d - 1, s}, paths, d - 1);
      }
    }
    const bool connectors = this->ComputeSaddleConnectors && d == 3;
    if (connectors) {
      for (std::size_t i = 0; i < result.connections.size(); ++i) {
        const std::vector<Cell>& path = result.connectionPaths[i];
        separatrices.add(path.front(), std::vector<Cell>(path.begin() + 1, path.end()),
                         separatrixId++, 1,
                         vtkIdType(std::min<std::uint64_t>(
                             result.connections[i].multiplicity,
                             std::uint64_t(std::numeric_limits<vtkIdType>::max()))));
      }
    }
    if (this->ComputeDescendingSeparatrices1 || this->ComputeAscendingSeparatrices1 ||
        connectors)
      separatrices.write(vtkUnstructuredGrid::GetData(run.outputVector, 1));
  });
  run.report = result.report;
  for (const topogpu::Warning& w : warnings)
    run.report.warnings.push_back(w);
  // A GALE producer that failed during the run (CPU producers took over).
  if (auto* gale =
          std::get_if<std::shared_ptr<topogpu::GaleTriangulation>>(run.triangulation))
    for (topogpu::Warning& warning : (*gale)->warnings())
      if (warning.code != topogpu::WarningCode::GaleNoGpuProducer) // said when built
        run.report.warnings.push_back(std::move(warning));

  // ---- port 3: the segmentation, field data ----------------------------------------
  writeSegmentation(run,
                    {this->ComputeAscendingSegmentation,
                     this->ComputeDescendingSegmentation, this->ComputeFinalSegmentation},
                    result.ascendingManifold, result.descendingManifold,
                    result.cellAscendingManifold);
  const bool computed = result.connectionsComputed;
  writeFieldData(
      run,
      {result.gradient.counts,
       result.boundaryMaxima,
       {vtkIdType(result.saddle1Minimum.size()), vtkIdType(result.saddleMaximum.size()),
        computed ? vtkIdType(result.connections.size()) : -1},
       {multiplicitySum(result.saddle1Minimum), multiplicitySum(result.saddleMaximum),
        computed ? vtkIdType(std::min<std::uint64_t>(
                       result.connectionMultiplicitySum,
                       std::uint64_t(std::numeric_limits<vtkIdType>::max())))
                 : -1},
       result.unlabelledAscending,
       result.unlabelledDescending});
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
