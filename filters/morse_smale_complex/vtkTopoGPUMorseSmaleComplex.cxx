#include "vtkTopoGPUMorseSmaleComplex.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUFilterRun.h"

#include "core/common/Timer.h"
#include "core/common/VertexOrder.h"
#include "core/morse_smale_complex/GradientForest.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/Separatrices2.h"

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
#include <cstdlib>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUMorseSmaleComplex);

namespace {

using topogpu::SimplexId;
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

// The 1-separatrices port, filled one V-path at a time.
class Separatrices {
public:
  Separatrices(const cubical::Grid& g, const CellGeometry& geometry, vtkDataArray* like)
      : g_(g), geometry_(geometry), like_(like) {
    points_->SetDataTypeToDouble();
  }

  // One polyline: the saddle, then the path's cells to the extremum (path.back()).
  void add(SimplexId saddle, const std::vector<SimplexId>& path, SimplexId separatrixId,
           int type, vtkIdType multiplicity) {
    std::vector<vtkIdType> ids;
    ids.reserve(path.size() + 1);
    double lowest = geometry_.value(saddle), highest = lowest;
    auto addPoint = [&](SimplexId cell) {
      double p[3];
      geometry_.centre(cell, p);
      ids.push_back(points_->InsertNextPoint(p));
      dimension_.push_back(static_cast<signed char>(cubical::cellDimension(g_, cell)));
      cellId_.push_back(vtkIdType(cubical::cellIdInDimension(g_, cell)));
      const double x = geometry_.value(cell);
      lowest = std::min(lowest, x);
      highest = std::max(highest, x);
    };
    addPoint(saddle);
    for (const SimplexId cell : path)
      addPoint(cell);
    lines_->InsertNextCell(vtkIdType(ids.size()), ids.data());
    const SimplexId extremum = path.back();
    source_.push_back(vtkIdType(cubical::cellIdInDimension(g_, saddle)));
    destination_.push_back(vtkIdType(cubical::cellIdInDimension(g_, extremum)));
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
    auto dimension = namedArray<vtkSignedCharArray>("CellDimension", np);
    auto cellId = namedArray<vtkIdTypeArray>("CellId", np);
    for (vtkIdType i = 0; i < np; ++i) {
      dimension->SetValue(i, dimension_[i]);
      cellId->SetValue(i, cellId_[i]);
    }
    output->GetPointData()->AddArray(dimension);
    output->GetPointData()->AddArray(cellId);
    auto source = namedArray<vtkIdTypeArray>("SourceId", n);
    auto destination = namedArray<vtkIdTypeArray>("DestinationId", n);
    auto separatrixId = namedArray<vtkIdTypeArray>("SeparatrixId", n);
    auto type = namedArray<vtkSignedCharArray>("SeparatrixType", n);
    auto multiplicity = namedArray<vtkIdTypeArray>("Multiplicity", n);
    auto onBoundary =
        namedArray<vtkSignedCharArray>("NumberOfCriticalPointsOnBoundary", n);
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
  const cubical::Grid& g_;
  const CellGeometry& geometry_;
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
    auto source = namedArray<vtkIdTypeArray>("SourceId", n);
    auto separatrixId = namedArray<vtkIdTypeArray>("SeparatrixId", n);
    auto type = namedArray<vtkSignedCharArray>("SeparatrixType", n);
    auto maximum = namedArray<vtkDoubleArray>("SeparatrixFunctionMaximum", n);
    auto minimum = namedArray<vtkDoubleArray>("SeparatrixFunctionMinimum", n);
    auto difference = namedArray<vtkDoubleArray>("SeparatrixFunctionDifference", n);
    auto onBoundary =
        namedArray<vtkSignedCharArray>("NumberOfCriticalPointsOnBoundary", n);
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

} // namespace

vtkTopoGPUMorseSmaleComplex::vtkTopoGPUMorseSmaleComplex() {
  this->Label = "TopoGPU Morse-Smale Complex";
  this->SetNumberOfOutputPorts(4);
  topogpu::vtk::registerCategoricalColours("CellDimension", "Critical cell dimension",
                                           topogpu::vtk::criticalIndexCategories());
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

void vtkTopoGPUMorseSmaleComplex::Compute(topogpu::vtk::FilterRun& run) {
  namespace msc = topogpu::morse_smale_complex;
  msc::Parameters parameters;
  parameters.backend = run.backend;
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
  const SimplexId nVertices = SimplexId(result.ascendingManifold.size());
  const std::vector<SimplexId>& minima = dg.criticalCells[0];

  // ---- port 0: critical cells, then the boundary maxima --------------------------
  if (this->ComputeCriticalPoints) {
    std::vector<vtkIdType> minimumSize(minima.size(), 0),
        maximumSize(result.maxima.size(), 0);
    for (SimplexId v = 0; v < nVertices; ++v) {
      if (result.ascendingManifold[v] >= 0)
        ++minimumSize[std::size_t(result.ascendingManifold[v])];
      if (result.descendingManifold[v] >= 0)
        ++maximumSize[std::size_t(result.descendingManifold[v])];
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
    const vtkIdType n = vtkIdType(cells.size());
    auto points = vtkSmartPointer<vtkPoints>::New();
    points->SetDataTypeToDouble();
    points->SetNumberOfPoints(n);
    auto dimension = namedArray<vtkSignedCharArray>("CellDimension", n);
    auto cellId = namedArray<vtkIdTypeArray>("CellId", n);
    const char* scalarName =
        run.scalars->GetName() != nullptr ? run.scalars->GetName() : "Scalars";
    auto value = valueArray(run.scalars, scalarName, n);
    auto onBoundary = namedArray<vtkSignedCharArray>("IsOnBoundary", n);
    auto manifoldSize = namedArray<vtkIdTypeArray>("ManifoldSize", n);
    auto boundaryMaximum = namedArray<vtkSignedCharArray>("IsBoundaryMaximum", n);
    auto verts = vtkSmartPointer<vtkCellArray>::New();
    verts->AllocateExact(n, n);
    for (vtkIdType i = 0; i < n; ++i) {
      const SimplexId cell = cells[std::size_t(i)];
      double p[3];
      geometry.centre(cell, p);
      points->SetPoint(i, p);
      dimension->SetValue(i, static_cast<signed char>(cubical::cellDimension(g, cell)));
      cellId->SetValue(i, vtkIdType(cubical::cellIdInDimension(g, cell)));
      value->SetTuple1(i, geometry.value(cell));
      onBoundary->SetValue(i, static_cast<signed char>(geometry.onBoundary(cell)));
      manifoldSize->SetValue(i, sizes[std::size_t(i)]);
      boundaryMaximum->SetValue(i, static_cast<signed char>(std::size_t(i) >= interior));
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

  // ---- port 1: 1-separatrices along the V-paths ------------------------------------
  Separatrices separatrices(g, geometry, run.scalars);
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
    std::vector<SimplexId> rank(static_cast<std::size_t>(nVertices));
    topogpu::computeVertexOrderCpu(run.values, rank.data());
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
        std::vector<SimplexId> path = msc::ascendingPath(dg, rank.data(), t);
        // A boundary path whose root facet bounds a critical maximum ends there.
        const SimplexId label = result.cellDescendingManifold[std::size_t(t)];
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
    // Tests force a small limit; a bad value is ignored (the default stays).
    if (const char* limit = std::getenv("TOPOGPU_SEPARATRICES2_MAX_CELLS")) {
      char* end = nullptr;
      const unsigned long long value = std::strtoull(limit, &end, 10);
      if (end != limit && *end == '\0' && value > 0)
        wallParameters.maxCells = std::size_t(value);
    }
    s2::Output wallsOut;
    try {
      s2::compute(dg, wallParameters, run.monitor.stage(0.85, 1), wallsOut, run.report);
    } catch (const topogpu::Error& e) {
      // Too large to draw: the rest of the complex is still worth having.
      run.report.warnings.push_back(std::string(e.what()) + "; port 2 is left empty");
      wallsOut.clear();
    }
    Separatrices2Port port(g, geometry);
    SimplexId wallId = 0;
    port.add(wallsOut.descending, 2, wallId);
    port.add(wallsOut.ascending, 1, wallId);
    port.write(vtkPolyData::GetData(run.outputVector, 2));
  }

  // ---- port 3: the segmentation --------------------------------------------------
  vtkDataSet* segmentation = vtkDataSet::GetData(run.outputVector, 3);
  segmentation->ShallowCopy(input);
  auto labels = [](const char* name, const auto& values) {
    auto array = namedArray<vtkIdTypeArray>(name, vtkIdType(values.size()));
    std::copy(values.begin(), values.end(), array->GetPointer(0));
    return array;
  };
  if (this->ComputeAscendingSegmentation)
    segmentation->GetPointData()->AddArray(
        labels("AscendingManifold", result.ascendingManifold));
  if (this->ComputeDescendingSegmentation) {
    segmentation->GetPointData()->AddArray(
        labels("DescendingManifold", result.descendingManifold));
    if (vtkIdType(result.cellDescendingManifold.size()) == input->GetNumberOfCells())
      segmentation->GetCellData()->AddArray(
          labels("DescendingManifold", result.cellDescendingManifold));
  }
  if (this->ComputeFinalSegmentation) {
    // One id per (ascending, descending) pair present, in the pairs' order.
    const SimplexId nMax = SimplexId(result.maxima.size()) + 1;
    std::vector<SimplexId> keys(static_cast<std::size_t>(nVertices));
    for (SimplexId v = 0; v < nVertices; ++v)
      keys[v] = result.ascendingManifold[v] < 0 || result.descendingManifold[v] < 0
                    ? -1
                    : SimplexId(result.ascendingManifold[v]) * nMax +
                          result.descendingManifold[v];
    std::vector<SimplexId> pairs = keys;
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    pairs.erase(std::remove(pairs.begin(), pairs.end(), SimplexId(-1)), pairs.end());
    for (SimplexId& k : keys)
      k = k < 0 ? -1
                : SimplexId(std::lower_bound(pairs.begin(), pairs.end(), k) -
                            pairs.begin());
    segmentation->GetPointData()->AddArray(labels("MorseSmaleManifold", keys));
  }

  // ---- field data: what was found ------------------------------------------------
  auto counts = namedArray<vtkIdTypeArray>("CriticalCellCounts", 4);
  for (int k = 0; k < 4; ++k)
    counts->SetValue(k, vtkIdType(dg.counts[k]));
  auto boundaryMaxima = namedArray<vtkIdTypeArray>("BoundaryMaximumCount", 1);
  boundaryMaxima->SetValue(0, vtkIdType(result.boundaryMaxima));
  // saddle1_minimum, saddle_maximum, saddle1_saddle2.
  auto arcs = namedArray<vtkIdTypeArray>("ArcCounts", 3);
  auto multiplicities = namedArray<vtkIdTypeArray>("ArcMultiplicitySums", 3);
  const std::vector<msc::Arc>* kinds[2] = {&result.saddle1Minimum, &result.saddleMaximum};
  for (int k = 0; k < 2; ++k) {
    vtkIdType sum = 0;
    for (const msc::Arc& arc : *kinds[k])
      sum += arc.multiplicity;
    arcs->SetValue(k, vtkIdType(kinds[k]->size()));
    multiplicities->SetValue(k, sum);
  }
  // saddle1-saddle2: -1 when not computed (switched off, or a 2D grid has none).
  const bool computed = this->ComputeSaddleConnectors && d == 3;
  arcs->SetValue(2, computed ? vtkIdType(result.saddleConnections.arcs.size()) : -1);
  multiplicities->SetValue(
      2, computed ? vtkIdType(std::min<std::uint64_t>(
                        result.saddleConnections.multiplicitySum,
                        std::uint64_t(std::numeric_limits<vtkIdType>::max())))
                  : -1);
  auto unlabelled = namedArray<vtkIdTypeArray>("UnlabelledVertices", 2);
  unlabelled->SetValue(0, vtkIdType(result.unlabelledAscending));
  unlabelled->SetValue(1, vtkIdType(result.unlabelledDescending));
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
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
