#include "vtkTopoGPURipsPersistenceDiagram.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUDiagramLayout.h"
#include "TopoGPUDistributedPiece.h"
#include "TopoGPUFilterRun.h"
#include "TopoGPUGatherToRoot.h"
#include "TopoGPUMemoryBudget.h"

#include "base/Timer.h"
#include "core/rips_persistence/RipsEstimate.h"
#include "core/rips_persistence/RipsPersistence.h"
#include "frontend/EnvironmentKnobs.h"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkIntArray.h>
#include <vtkMultiProcessController.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkPointSet.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStringArray.h>
#include <vtkTable.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

vtkStandardNewMacro(vtkTopoGPURipsPersistenceDiagram);

namespace {

namespace rp = topogpu::rips_persistence;
using topogpu::Error;
using topogpu::vtk::namedArray;

using topogpu::vtk::kResultRank;
constexpr int kPorts = 3;

// The largest run the default threshold allows: at most this many simplices of
// dimension MaxDimension + 1 under the threshold (the coboundary the top dimension's
// columns enumerate). At the CPU backend's rate on two cores (docs/filters/
// rips-persistence.md) such a run takes seconds, where the enclosing radius of a few
// thousand points takes minutes.
constexpr double kInteractiveWork = 5e8;
// The share of the progress bar the estimate takes.
constexpr double kEstimateShare = 0.05;

std::string columnName(vtkAbstractArray* array, vtkIdType c) {
  return array->GetName() ? "'" + std::string(array->GetName()) + "'"
                          : "column " + std::to_string(c);
}

// The table's numeric columns, every component a coordinate; Error naming a column
// that is not numeric. Returns the row-major values and sets `width`.
std::vector<double> tableValues(vtkTable* table, int& width) {
  const vtkIdType rows = table->GetNumberOfRows();
  const vtkIdType columns = table->GetNumberOfColumns();
  if (rows == 0 || columns == 0)
    throw Error("the input table is empty (" + std::to_string(rows) + " rows, " +
                std::to_string(columns) + " columns)");
  std::vector<vtkDataArray*> arrays;
  width = 0;
  for (vtkIdType c = 0; c < columns; ++c) {
    vtkAbstractArray* column = table->GetColumn(c);
    auto* data = vtkDataArray::SafeDownCast(column);
    if (data == nullptr)
      throw Error("column " + columnName(column, c) + " is not numeric (" +
                  column->GetClassName() +
                  "): every column of the table must be a coordinate or a distance");
    arrays.push_back(data);
    width += data->GetNumberOfComponents();
  }
  std::vector<double> values(std::size_t(rows) * std::size_t(width));
  std::size_t offset = 0;
  for (vtkDataArray* data : arrays) {
    const int components = data->GetNumberOfComponents();
    for (vtkIdType r = 0; r < rows; ++r) {
      for (int k = 0; k < components; ++k)
        values[std::size_t(r) * std::size_t(width) + offset + std::size_t(k)] =
            data->GetComponent(r, k);
    }
    offset += std::size_t(components);
  }
  return values;
}

// A square table as the strict lower triangle; Error when it is not a finite,
// non-negative, symmetric matrix (the same rule as `topogpu rips --format distance`).
std::vector<double> lowerTriangle(const std::vector<double>& m, vtkIdType n, int width) {
  if (vtkIdType(width) != n)
    throw Error("the distance matrix is not square: " + std::to_string(n) + " rows and " +
                std::to_string(width) + " columns");
  std::vector<double> lower(std::size_t(n) * std::size_t(n - 1) / 2);
  const auto at = [&](vtkIdType i, vtkIdType j) {
    return m[std::size_t(i) * std::size_t(n) + std::size_t(j)];
  };
  for (vtkIdType i = 0; i < n; ++i) {
    for (vtkIdType j = 0; j <= i; ++j) {
      const double a = at(i, j), b = at(j, i);
      for (const double d : {a, b}) {
        if (!std::isfinite(d) || d < 0)
          throw Error("the distance matrix has " +
                      (std::isnan(d) ? std::string("a NaN") : std::to_string(d)) +
                      " at (" + std::to_string(i) + "," + std::to_string(j) +
                      "): distances must be finite and >= 0");
      }
      if (j == i)
        continue;
      if (std::fabs(a - b) > 1e-6 * std::max({1.0, std::fabs(a), std::fabs(b)}))
        throw Error("the distance matrix is not symmetric: entry (" + std::to_string(i) +
                    "," + std::to_string(j) + ") is " + std::to_string(a) + " but (" +
                    std::to_string(j) + "," + std::to_string(i) + ") is " +
                    std::to_string(b));
      lower[std::size_t(i * (i - 1) / 2 + j)] = a;
    }
  }
  return lower;
}

// The input as Rips input, with the positions output 2 draws the cocycles at (the
// cloud's points, its first three coordinates, or the unit circle for a matrix) and
// their ids in the input.
struct Cloud {
  rp::RipsInput input;
  vtkSmartPointer<vtkPoints> positions;
  std::vector<vtkIdType> ids;
};

Cloud readCloud(vtkDataObject* object, int mode) {
  Cloud cloud;
  cloud.positions = vtkSmartPointer<vtkPoints>::New();
  cloud.positions->SetDataTypeToDouble();
  if (auto* set = vtkPointSet::SafeDownCast(object)) {
    if (mode == vtkTopoGPURipsPersistenceDiagram::INPUT_DISTANCE_MATRIX)
      throw Error("Input Mode is Distance Matrix but the input is a " +
                  std::string(set->GetClassName()) +
                  ": a distance matrix comes as a vtkTable (use Point Cloud for points)");
    vtkUnsignedCharArray* ghosts = set->GetPointData()->GetGhostArray();
    std::vector<double> points;
    for (vtkIdType p = 0; p < set->GetNumberOfPoints(); ++p) {
      if (topogpu::vtk::isGhostPoint(ghosts, p))
        continue;
      double x[3];
      set->GetPoint(p, x);
      points.insert(points.end(), x, x + 3);
      cloud.positions->InsertNextPoint(x);
      cloud.ids.push_back(p);
    }
    if (points.empty())
      throw Error("the input is empty (no points)");
    cloud.input = rp::fromPoints(std::move(points), 3);
    return cloud;
  }
  auto* table = vtkTable::SafeDownCast(object);
  if (table == nullptr)
    throw Error(object == nullptr
                    ? std::string("no input")
                    : std::string("unsupported input type ") + object->GetClassName() +
                          " (a vtkTable or a point set is needed)");
  int width = 0;
  std::vector<double> values = tableValues(table, width);
  const vtkIdType n = table->GetNumberOfRows();
  for (vtkIdType r = 0; r < n; ++r)
    cloud.ids.push_back(r);
  if (mode == vtkTopoGPURipsPersistenceDiagram::INPUT_DISTANCE_MATRIX) {
    const std::vector<double> lower = lowerTriangle(values, n, width);
    if (n < 2)
      throw Error("the distance matrix has a single point: Rips persistence needs at "
                  "least 2");
    cloud.input = rp::fromDoubleLowerDistances(lower);
    // No coordinates: the points of output 2 go round the unit circle in row order.
    for (vtkIdType r = 0; r < n; ++r) {
      const double angle = 2.0 * M_PI * double(r) / double(n);
      cloud.positions->InsertNextPoint(std::cos(angle), std::sin(angle), 0.0);
    }
    return cloud;
  }
  for (vtkIdType r = 0; r < n; ++r) {
    double x[3] = {0, 0, 0};
    for (int k = 0; k < std::min(width, 3); ++k)
      x[k] = values[std::size_t(r) * std::size_t(width) + std::size_t(k)];
    cloud.positions->InsertNextPoint(x);
  }
  cloud.input = rp::fromPoints(std::move(values), width);
  return cloud;
}

// The value an essential bar's death is drawn at: a tenth above every finite value of
// the diagram (births, finite deaths), so that the essential bars stand out and the
// finite ones fill the plot. Not the threshold (TTK's Rips diagram) nor the enclosing
// radius: those may lie far above every finite death, leaving the finite pairs in a
// corner.
double infiniteDeathValue(const rp::Result& result) {
  double top = 0;
  for (const auto& bars : result.intervals) {
    for (const auto& bar : bars) {
      top = std::max(top, bar.birth);
      if (std::isfinite(bar.death))
        top = std::max(top, bar.death);
    }
  }
  if (top > 0)
    return 1.1 * top;
  // Every bar born at 0 and essential (points at distance 0, or a threshold below
  // every distance): a unit above, or the threshold when it is lower.
  return std::isfinite(result.threshold) && result.threshold > 0
             ? std::min(1.0, result.threshold)
             : 1.0;
}

template <typename T> void addValue(vtkFieldData* fd, const char* name, T value) {
  auto array = vtkSmartPointer<vtkDoubleArray>::New();
  array->SetName(name);
  array->InsertNextValue(double(value));
  fd->AddArray(array);
}

// Distributed runs: the pieces as one input, tables by rows (the same columns on every
// piece), point sets by their non-ghost points welded (DistributedPiece::weldPoints).
vtkSmartPointer<vtkDataObject>
mergePieces(const std::vector<vtkSmartPointer<vtkDataObject>>& pieces) {
  std::vector<vtkTable*> tables;
  std::vector<vtkPointSet*> sets;
  for (const auto& piece : pieces) {
    if (auto* table = vtkTable::SafeDownCast(piece)) {
      if (table->GetNumberOfRows() > 0)
        tables.push_back(table);
    } else if (auto* set = vtkPointSet::SafeDownCast(piece)) {
      if (set->GetNumberOfPoints() > 0)
        sets.push_back(set);
    }
  }
  if (!tables.empty() && !sets.empty())
    throw Error("the gathered pieces mix tables and point sets");
  if (!tables.empty()) {
    auto merged = vtkSmartPointer<vtkTable>::New();
    vtkTable* first = tables.front();
    for (vtkIdType c = 0; c < first->GetNumberOfColumns(); ++c) {
      vtkAbstractArray* column = first->GetColumn(c);
      vtkSmartPointer<vtkAbstractArray> all;
      all.TakeReference(column->NewInstance());
      all->SetName(column->GetName());
      all->SetNumberOfComponents(column->GetNumberOfComponents());
      for (vtkTable* table : tables) {
        vtkAbstractArray* piece =
            column->GetName() ? table->GetColumnByName(column->GetName()) : nullptr;
        if (piece == nullptr ||
            table->GetNumberOfColumns() != first->GetNumberOfColumns())
          throw Error("the gathered table pieces do not have the same columns");
        all->InsertTuples(all->GetNumberOfTuples(), piece->GetNumberOfTuples(), 0, piece);
      }
      merged->AddColumn(all);
    }
    return merged;
  }
  // A split copies its border points to several pieces: one point each.
  return topogpu::vtk::DistributedPiece::weldPoints(sets);
}

} // namespace

vtkTopoGPURipsPersistenceDiagram::vtkTopoGPURipsPersistenceDiagram() {
  this->Label = "TopoGPU Rips Persistence Diagram";
  // The diagram's legend: one colour per homology dimension (TTK's PairType), the
  // diagonal grey.
  topogpu::vtk::registerCategoricalColours("PairType", "Pair type (dimension)",
                                           topogpu::vtk::pairTypeCategories());
  this->NeedsInputScalars = false;
  this->NeedsTriangulation = false;
  // The whole cloud is gathered to rank 0 (RequestGatheredData).
  this->GathersOwnInput = true;
  this->SetNumberOfOutputPorts(kPorts);
}

vtkTopoGPURipsPersistenceDiagram::~vtkTopoGPURipsPersistenceDiagram() = default;

void vtkTopoGPURipsPersistenceDiagram::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "InputMode: " << this->InputMode << "\n";
  os << indent << "MaxDimension: " << this->MaxDimension << "\n";
  os << indent << "Threshold: " << this->Threshold << "\n";
  os << indent << "SparseMode: " << this->SparseMode << "\n";
  os << indent << "Threads: " << this->Threads << "\n";
  os << indent << "MemoryBudget: " << this->MemoryBudget << "\n";
  os << indent << "ComputeCocycles: " << this->ComputeCocycles << "\n";
}

int vtkTopoGPURipsPersistenceDiagram::FillInputPortInformation(int port,
                                                               vtkInformation* info) {
  if (port != 0)
    return 0;
  info->Remove(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE());
  info->Append(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkTable");
  info->Append(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkPointSet");
  return 1;
}

int vtkTopoGPURipsPersistenceDiagram::FillOutputPortInformation(int port,
                                                                vtkInformation* info) {
  static const char* const types[kPorts] = {"vtkUnstructuredGrid", "vtkTable",
                                            "vtkPolyData"};
  if (port < 0 || port >= kPorts)
    return 0;
  info->Set(vtkDataObject::DATA_TYPE_NAME(), types[port]);
  return 1;
}

int vtkTopoGPURipsPersistenceDiagram::RequestGatheredData(
    vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) {
  vtkMultiProcessController* controller =
      vtkMultiProcessController::GetGlobalController();
  for (int port = 0; port < kPorts; ++port) {
    if (vtkDataObject* output = vtkDataObject::GetData(outputVector, port))
      output->Initialize();
  }
  const std::vector<vtkSmartPointer<vtkDataObject>> pieces =
      topogpu::vtk::gatherToRoot(controller, vtkDataObject::GetData(inputVector[0], 0));
  if (controller->GetLocalProcessId() == kResultRank) {
    vtkSmartPointer<vtkDataObject> merged;
    try {
      merged = mergePieces(pieces);
    } catch (const std::exception& e) {
      vtkErrorMacro(<< this->Label << ": " << e.what());
    }
    if (merged) {
      const auto vector = topogpu::vtk::inputVectorOf(merged);
      vtkInformationVector* gathered[1] = {vector};
      this->RequestData(request, gathered, outputVector);
    }
  }
  topogpu::vtk::addResultRank(outputVector);
  return 1;
}

namespace {

// Outputs 0 and 1: the diagram in TTK's layout (its points, pairs and diagonal, and the
// run's field data) and the bars as a table. firstId[dim]: the PairIdentifier of the
// first bar of dimension dim (bars in dimension order).
void writeDiagram(const rp::Result& result, double infiniteDeath,
                  const std::vector<vtkIdType>& firstId,
                  vtkInformationVector* outputVector) {
  const vtkIdType pairs = firstId.back();

  // Output 0: the diagram, TTK's layout (TopoGPUDiagramLayout.h).
  std::vector<topogpu::vtk::DiagramRow> rows(static_cast<std::size_t>(pairs));
  // Output 1: the bars as a table.
  auto tableId = namedArray<vtkIntArray>("PairIdentifier", pairs);
  auto tableDimension = namedArray<vtkIntArray>("Dimension", pairs);
  auto tableBirth = namedArray<vtkDoubleArray>("Birth", pairs);
  auto tableDeath = namedArray<vtkDoubleArray>("Death", pairs);

  double lowest = std::numeric_limits<double>::infinity(), longest = 0;
  for (std::size_t dim = 0; dim < result.intervals.size(); ++dim) {
    const int k = int(dim);
    for (std::size_t b = 0; b < result.intervals[dim].size(); ++b) {
      const rp::Interval& bar = result.intervals[dim][b];
      const vtkIdType id = firstId[dim] + vtkIdType(b);
      const bool finite = std::isfinite(bar.death);
      const double drawn = finite ? bar.death : infiniteDeath;
      topogpu::vtk::DiagramRow& row = rows[std::size_t(id)];
      row.pairType = k;
      row.isFinite = finite;
      row.birth = bar.birth;
      row.death = drawn;
      row.birthType = std::min(k, 3);
      row.deathType = std::min(k + 1, 3);
      tableId->SetValue(id, int(id));
      tableDimension->SetValue(id, k);
      tableBirth->SetValue(id, bar.birth);
      tableDeath->SetValue(id, bar.death);
      lowest = std::min(lowest, bar.birth);
      longest = std::max(longest, drawn - bar.birth);
    }
  }
  // The diagonal, as TTK's last cell (PairIdentifier and PairType -1, Birth 0,
  // Persistence twice the largest), but on two points of its own spanning every drawn
  // pair: TTK's runs to the highest birth only, a point in a Rips diagram (every
  // dimension-0 bar is born at 0). It starts a twentieth of the range below the lowest
  // birth, so that the data's bounds (and the axes grid on them) leave a margin: the
  // dimension-0 bars, all born at 0, are not drawn under the grid's edge.
  if (!std::isfinite(lowest))
    lowest = 0;
  const double margin = (infiniteDeath - lowest) / 20;
  auto* diagram = vtkUnstructuredGrid::GetData(outputVector, 0);
  topogpu::vtk::writeDiagramLayout(diagram, rows,
                                   {lowest - margin, infiniteDeath, 2 * longest});

  vtkFieldData* fd = diagram->GetFieldData();
  addValue(fd, "RipsEnclosingRadius", result.enclosingRadius);
  addValue(fd, "RipsThreshold", result.threshold);
  addValue(fd, "RipsInfiniteDeathValue", infiniteDeath);
  addValue(fd, "RipsSparse", result.sparse ? 1 : 0);
  addValue(fd, "RipsNumberOfPoints", result.numberOfPoints);
  addValue(fd, "RipsEdges", result.edges);
  auto apparent = vtkSmartPointer<vtkDoubleArray>::New();
  apparent->SetName("RipsApparentPairsPercent"); // per dimension
  auto pairCount = vtkSmartPointer<vtkIdTypeArray>::New();
  pairCount->SetName("RipsPairs"); // per dimension, zero-length ones included
  for (const auto& stats : result.stats) {
    apparent->InsertNextValue(stats.apparentPercent());
    pairCount->InsertNextValue(vtkIdType(stats.pairs));
  }
  fd->AddArray(apparent);
  fd->AddArray(pairCount);

  auto* table = vtkTable::GetData(outputVector, 1);
  table->AddColumn(tableId);
  table->AddColumn(tableDimension);
  table->AddColumn(tableBirth);
  table->AddColumn(tableDeath);
}

// Output 2: the edges carrying each finite dimension-1 bar's cocycle.
void writeCocycles(const rp::Result& result, const Cloud& cloud,
                   const std::vector<vtkIdType>& firstId,
                   vtkInformationVector* outputVector) {
  auto* edges = vtkPolyData::GetData(outputVector, 2);
  auto lines = vtkSmartPointer<vtkCellArray>::New();
  auto barId = namedArray<vtkIntArray>("BarId", 0);
  auto edgeBirth = namedArray<vtkDoubleArray>("Birth", 0);
  auto edgeDeath = namedArray<vtkDoubleArray>("Death", 0);
  auto edgePersistence = namedArray<vtkDoubleArray>("Persistence", 0);
  auto diameter = namedArray<vtkDoubleArray>("Diameter", 0);
  for (const rp::Representative& r : result.representatives) {
    if (r.dimension != 1)
      continue;
    const rp::Interval& bar = result.intervals[1][r.interval];
    for (std::size_t s = 0; s + 1 < r.simplices.size(); s += 2) {
      const vtkIdType line[2] = {vtkIdType(r.simplices[s]),
                                 vtkIdType(r.simplices[s + 1])};
      lines->InsertNextCell(2, line);
      barId->InsertNextValue(int(firstId[1] + vtkIdType(r.interval)));
      edgeBirth->InsertNextValue(bar.birth);
      edgeDeath->InsertNextValue(bar.death);
      edgePersistence->InsertNextValue(bar.death - bar.birth);
      diameter->InsertNextValue(rp::inputDistance(cloud.input, line[0], line[1]));
    }
  }
  auto inputId = namedArray<vtkIdTypeArray>("InputPointId", vtkIdType(cloud.ids.size()));
  std::copy(cloud.ids.begin(), cloud.ids.end(), inputId->GetPointer(0));
  edges->SetPoints(cloud.positions);
  edges->SetLines(lines);
  edges->GetPointData()->AddArray(inputId);
  for (vtkAbstractArray* array :
       {static_cast<vtkAbstractArray*>(barId), static_cast<vtkAbstractArray*>(edgeBirth),
        static_cast<vtkAbstractArray*>(edgeDeath),
        static_cast<vtkAbstractArray*>(edgePersistence),
        static_cast<vtkAbstractArray*>(diameter)})
    edges->GetCellData()->AddArray(array);
  edges->GetCellData()->SetActiveScalars("BarId");
}

} // namespace

void vtkTopoGPURipsPersistenceDiagram::Compute(topogpu::vtk::FilterRun& run) {
  // The properties against the CLI's ranges, before any work.
  const auto outside = [](const char* property, const std::string& range, double value) {
    std::ostringstream text;
    text << property << " must be " << range << ", got " << value;
    return Error(text.str());
  };
  if (this->InputMode != INPUT_POINT_CLOUD && this->InputMode != INPUT_DISTANCE_MATRIX)
    throw outside("Input Mode", "0 (Point Cloud) or 1 (Distance Matrix)",
                  this->InputMode);
  if (this->MaxDimension < 0 || this->MaxDimension > rp::kMaxDimensionLimit)
    throw outside("Max Dimension",
                  "between 0 and " + std::to_string(rp::kMaxDimensionLimit),
                  this->MaxDimension);
  if (std::isnan(this->Threshold) || this->Threshold == 0)
    throw outside("Threshold", "> 0, or negative for the automatic threshold",
                  this->Threshold);
  if (this->SparseMode < SPARSE_AUTO || this->SparseMode > SPARSE_SPARSE)
    throw outside("Sparse Mode", "0 (Auto), 1 (Dense) or 2 (Sparse)", this->SparseMode);
  if (this->Threads < 0 || this->Threads > rp::kMaxThreads)
    throw outside("Threads",
                  "between 0 (all cores) and " + std::to_string(rp::kMaxThreads),
                  this->Threads);
  const double memoryBudget = topogpu::vtk::memoryBudgetBytes(this->MemoryBudget);
  topogpu::Timer inputTimer;
  const Cloud cloud = readCloud(run.inputObject, this->InputMode);
  run.report.timings.emplace_back("input", inputTimer.seconds());

  rp::Parameters parameters;
  parameters.maxDimension = this->MaxDimension;
  if (this->Threshold > 0)
    parameters.threshold = this->Threshold;
  parameters.sparse = this->SparseMode == SPARSE_DENSE    ? rp::SparseMode::Dense
                      : this->SparseMode == SPARSE_SPARSE ? rp::SparseMode::Sparse
                                                          : rp::SparseMode::Auto;
  parameters.threads = this->Threads;
  parameters.backend = run.backend;
  parameters.cocycles = this->ComputeCocycles;
  parameters.boundEveryColumn = topogpu::frontend::ripsBoundEveryColumnFromEnvironment();
  parameters.memoryBudget = memoryBudget;
  // The run's size before it starts: a default threshold whose run would not stay
  // interactive is lowered; an explicit one is kept, with a warning.
  // The bounds only (a pass over the distances): the triangles counted exactly would
  // cost more than the decision is worth.
  const rp::Estimate size =
      rp::estimate(cloud.input, parameters, run.monitor.stage(0, kEstimateShare), false);
  const int top = parameters.maxDimension + 1;
  if (size.simplices[std::size_t(top)] > kInteractiveWork) {
    const std::string cost = "this run would enumerate " + rp::simplexCount(size, top) +
                             " (the coboundary " + "of its dimension-" +
                             std::to_string(top - 1) + " columns) and may take minutes";
    if (this->Threshold < 0) {
      const double lowered = rp::largestThreshold(
          cloud.input, parameters, size, parameters.memoryBudget, kInteractiveWork,
          run.monitor.stage(0, kEstimateShare), false);
      if (lowered > 0) {
        parameters.threshold = lowered;
        vtkWarningMacro(
            << this->Label << ": at the enclosing radius " << size.enclosingRadius << " "
            << cost << "; Threshold -1 (automatic) lowered it to " << lowered
            << " to stay interactive (bars alive there are drawn as essential, "
               "IsFinite 0). Set Threshold (e.g. to "
            << size.enclosingRadius << ") for the whole filtration.");
      }
    } else {
      vtkWarningMacro(<< this->Label << ": at Threshold " << size.threshold << " " << cost
                      << "; a lower Threshold or Max Dimension shortens it (the progress "
                         "bar's abort stops it).");
    }
  }
  rp::Result result;
  rp::execute(cloud.input, parameters, run.monitor.stage(kEstimateShare, 1), result,
              run.report);

  const topogpu::Timer outputTimer;
  const double infiniteDeath = infiniteDeathValue(result);
  // Bars in dimension order; a bar's PairIdentifier is its rank here.
  std::vector<vtkIdType> firstId(result.intervals.size() + 1, 0);
  for (std::size_t dim = 0; dim < result.intervals.size(); ++dim)
    firstId[dim + 1] = firstId[dim] + vtkIdType(result.intervals[dim].size());

  writeDiagram(result, infiniteDeath, firstId, run.outputVector);
  if (this->ComputeCocycles)
    writeCocycles(result, cloud, firstId, run.outputVector);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
