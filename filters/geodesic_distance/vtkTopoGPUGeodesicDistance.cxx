#include "vtkTopoGPUGeodesicDistance.h"

#include "TopoGPUArrays.h"
#include "TopoGPUDataSetAdaptor.h"
#include "TopoGPUFilterRun.h"
#include "TopoGPUGatherToRoot.h"

#include "base/ParallelCopy.h"
#include "base/Timer.h"
#include "core/common/DeviceWarmUp.h"
#include "core/eikonal/Eikonal.h"
#include "core/eikonal/Preparation.h"
#include "frontend/EnvironmentKnobs.h"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkDemandDrivenPipeline.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkIdList.h>
#include <vtkIdTypeArray.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkIntArray.h>
#include <vtkLongLongArray.h>
#include <vtkMath.h>
#include <vtkMultiProcessController.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkPointLocator.h>
#include <vtkPointSet.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStaticPointLocator.h>
#include <vtkStringArray.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUGeodesicDistance);

namespace {

namespace ek = topogpu::eikonal;
using topogpu::Error;

// The Solver property's values (plugin.xml's EnumerationDomain, same numbers) and the
// names eikonal::parseSolver takes: a new solver is one row here and one Entry there.
struct SolverRow {
  int value;
  const char* name;
};
constexpr SolverRow kSolverTable[] = {
    {0, "fmm"}, {1, "fim"}, {2, "fim-mt"}, {3, "gpu"}, {4, "auto"},
};

// The name of a Solver value, or null outside the table.
const char* solverNameOrNull(int value) {
  for (const SolverRow& row : kSolverTable) {
    if (row.value == value)
      return row.name;
  }
  return nullptr;
}

const char* solverName(int value) {
  if (const char* name = solverNameOrNull(value))
    return name;
  std::string known;
  for (const SolverRow& row : kSolverTable)
    known +=
        (known.empty() ? "" : ", ") + std::to_string(row.value) + " (" + row.name + ")";
  throw Error("unknown Solver value " + std::to_string(value) + " (expected " + known +
              ")");
}

// The clamp ranges of the header's setters are the core's (and the CLI's).
static_assert(ek::kMinPatchSize == 4 && ek::kMaxPatchSize == 512 &&
                  ek::kMaxInternalIterations == 1000,
              "update vtkTopoGPUGeodesicDistance.h's clamps and plugin.xml's domains");

using topogpu::vtk::kResultRank;
// Distributed runs: relative distance under which the pieces' points are one point.
constexpr double kMergeTolerance = 1e-9;

// Distributed runs: how the gathered surface numbers its points, so that Seed Ids keep
// their serial meaning.
enum class Numbering {
  Piece,       // one rank holds every point: its piece's ids, nothing merged
  GlobalIds,   // the pieces' global point ids, in increasing order
  Coordinates, // points at one place merged, in rank order: not the serial ids
};

struct GatheredSurface {
  vtkSmartPointer<vtkDataSet> surface;
  Numbering numbering = Numbering::Piece;
  std::vector<vtkIdType> globalIds; // GlobalIds: vertex v's global id (increasing)
  int pieces = 0;                   // the non-empty pieces
};

// The bounding box of the pieces together (bounds: xmin, xmax, ymin, ...), and its
// diagonal.
double unionBounds(const std::vector<vtkDataSet*>& sets, double bounds[6]) {
  const double empty[6] = {VTK_DOUBLE_MAX, VTK_DOUBLE_MIN, VTK_DOUBLE_MAX,
                           VTK_DOUBLE_MIN, VTK_DOUBLE_MAX, VTK_DOUBLE_MIN};
  std::copy(empty, empty + 6, bounds);
  for (vtkDataSet* set : sets) {
    double b[6];
    set->GetBounds(b);
    for (std::size_t a = 0; a < 3; ++a) {
      bounds[2 * a] = std::min(bounds[2 * a], b[2 * a]);
      bounds[2 * a + 1] = std::max(bounds[2 * a + 1], b[2 * a + 1]);
    }
  }
  return std::sqrt((bounds[1] - bounds[0]) * (bounds[1] - bounds[0]) +
                   (bounds[3] - bounds[2]) * (bounds[3] - bounds[2]) +
                   (bounds[5] - bounds[4]) * (bounds[5] - bounds[4]));
}

// Distributed runs: the pieces' triangles on one surface, ghost cells left out, point
// and cell arrays common to every piece kept. Points: one non-empty piece keeps its own;
// pieces that all have global point ids (GlobalPointIds) get one point per global id,
// in increasing id order (the serial run's numbering when the ids are its point ids);
// otherwise points at the same place (within kMergeTolerance) are one point, in rank
// order. Throws Error for a cell that is not a triangle or a global id naming two
// places. The result has the type of the pieces (poly data or unstructured grid).
GatheredSurface mergePieces(const std::vector<vtkSmartPointer<vtkDataObject>>& pieces) {
  std::vector<vtkDataSet*> sets;
  bool poly = true, globalIds = true;
  for (const auto& piece : pieces) {
    auto* set = vtkDataSet::SafeDownCast(piece);
    if (set != nullptr && set->GetNumberOfPoints() > 0) {
      sets.push_back(set);
      poly = poly && vtkPolyData::SafeDownCast(set) != nullptr;
      if (!poly && vtkUnstructuredGrid::SafeDownCast(set) == nullptr)
        throw Error(std::string("unsupported input piece type ") + set->GetClassName());
      vtkDataArray* ids = set->GetPointData()->GetGlobalIds();
      globalIds = globalIds && ids != nullptr && ids->GetNumberOfComponents() == 1;
    }
  }
  GatheredSurface gathered;
  gathered.pieces = int(sets.size());
  if (poly)
    gathered.surface = vtkSmartPointer<vtkPolyData>::New();
  else
    gathered.surface = vtkSmartPointer<vtkUnstructuredGrid>::New();
  if (sets.empty())
    return gathered;
  vtkDataSet* merged = gathered.surface;
  const int count = int(sets.size());
  gathered.numbering = count == 1  ? Numbering::Piece
                       : globalIds ? Numbering::GlobalIds
                                   : Numbering::Coordinates;
  vtkDataSetAttributes::FieldList pointFields(count), cellFields(count);
  vtkIdType totalPoints = 0, totalCells = 0;
  for (int i = 0; i < count; ++i) {
    if (i == 0) {
      pointFields.InitializeFieldList(sets[i]->GetPointData());
      cellFields.InitializeFieldList(sets[i]->GetCellData());
    } else {
      pointFields.IntersectFieldList(sets[i]->GetPointData());
      cellFields.IntersectFieldList(sets[i]->GetCellData());
    }
    totalPoints += sets[i]->GetNumberOfPoints();
    totalCells += sets[i]->GetNumberOfCells();
  }
  vtkPointData* pd = merged->GetPointData();
  vtkCellData* cd = merged->GetCellData();
  pd->CopyAllocate(pointFields, totalPoints);
  cd->CopyAllocate(cellFields, totalCells);
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  auto triangles = vtkSmartPointer<vtkCellArray>::New();
  // Pieces may compute a shared border point with different roundings (a sphere
  // source's pieces do): points closer than kMergeTolerance times the bounding box's
  // diagonal are one point, the first piece's.
  double bounds[6];
  const double diagonal = unionBounds(sets, bounds);
  auto locator = vtkSmartPointer<vtkPointLocator>::New();
  if (gathered.numbering == Numbering::Coordinates) {
    locator->SetTolerance(kMergeTolerance * diagonal);
    locator->InitPointInsertion(points, bounds, totalPoints);
  } else if (gathered.numbering == Numbering::GlobalIds) {
    for (vtkDataSet* set : sets) {
      vtkDataArray* ids = set->GetPointData()->GetGlobalIds();
      for (vtkIdType p = 0; p < set->GetNumberOfPoints(); ++p)
        gathered.globalIds.push_back(vtkIdType(ids->GetComponent(p, 0)));
    }
    std::sort(gathered.globalIds.begin(), gathered.globalIds.end());
    gathered.globalIds.erase(
        std::unique(gathered.globalIds.begin(), gathered.globalIds.end()),
        gathered.globalIds.end());
    points->SetNumberOfPoints(vtkIdType(gathered.globalIds.size()));
  }
  std::vector<std::uint8_t> placed(gathered.globalIds.size(), 0);
  std::vector<vtkIdType> local;
  auto ids = vtkSmartPointer<vtkIdList>::New();
  vtkIdType cellOffset = 0;
  for (int i = 0; i < count; ++i) {
    vtkDataSet* set = sets[i];
    local.assign(std::size_t(set->GetNumberOfPoints()), -1);
    vtkDataArray* globals = set->GetPointData()->GetGlobalIds();
    for (vtkIdType p = 0; p < set->GetNumberOfPoints(); ++p) {
      double x[3];
      set->GetPoint(p, x);
      vtkIdType id = -1;
      bool fresh = true;
      if (gathered.numbering == Numbering::Piece) {
        id = points->InsertNextPoint(x);
      } else if (gathered.numbering == Numbering::Coordinates) {
        fresh = locator->InsertUniquePoint(x, id) == 1;
      } else {
        const auto g = vtkIdType(globals->GetComponent(p, 0));
        id = vtkIdType(
            std::lower_bound(gathered.globalIds.begin(), gathered.globalIds.end(), g) -
            gathered.globalIds.begin());
        fresh = placed[std::size_t(id)] == 0;
        if (fresh) {
          placed[std::size_t(id)] = 1;
          points->SetPoint(id, x);
        } else {
          double y[3];
          points->GetPoint(id, y);
          if (std::sqrt(vtkMath::Distance2BetweenPoints(x, y)) >
              kMergeTolerance * diagonal)
            throw Error("global point id " + std::to_string(g) +
                        " names two different points (in two pieces); the input's "
                        "GlobalPointIds must be one id per point");
        }
      }
      if (fresh)
        pd->CopyData(pointFields, set->GetPointData(), i, p, id);
      local[std::size_t(p)] = id;
    }
    vtkUnsignedCharArray* ghosts = set->GetCellData()->GetGhostArray();
    for (vtkIdType c = 0; c < set->GetNumberOfCells(); ++c) {
      if (ghosts != nullptr &&
          (ghosts->GetValue(c) & vtkDataSetAttributes::DUPLICATECELL))
        continue;
      const int type = set->GetCellType(c);
      if (type != VTK_TRIANGLE)
        throw Error("cell " + std::to_string(cellOffset + c) +
                    " of the gathered pieces is a " +
                    topogpu::vtk::vtkCellTypeName(type) +
                    "; a triangle surface is needed: triangulate it first (ParaView: "
                    "Extract Surface, then Triangulate)");
      set->GetCellPoints(c, ids);
      const vtkIdType triangle[3] = {local[std::size_t(ids->GetId(0))],
                                     local[std::size_t(ids->GetId(1))],
                                     local[std::size_t(ids->GetId(2))]};
      const vtkIdType to = triangles->InsertNextCell(3, triangle);
      cd->CopyData(cellFields, set->GetCellData(), i, c, to);
    }
    cellOffset += set->GetNumberOfCells();
  }
  pd->RemoveArray(vtkDataSetAttributes::GhostArrayName());
  cd->RemoveArray(vtkDataSetAttributes::GhostArrayName());
  if (auto* polyData = vtkPolyData::SafeDownCast(merged)) {
    polyData->SetPoints(points);
    polyData->SetPolys(triangles);
  } else {
    auto* grid = vtkUnstructuredGrid::SafeDownCast(merged);
    grid->SetPoints(points);
    grid->SetCells(VTK_TRIANGLE, triangles);
  }
  return gathered;
}

// Distributed runs: Seed Ids as vertex ids of the gathered surface, with the serial
// meaning: one piece's own ids, or global point ids; refused when the pieces carry no
// global ids (their points were merged by position, in rank order).
std::vector<vtkIdType> seedsOnGathered(const std::vector<vtkIdType>& seedIds,
                                       const GatheredSurface& gathered) {
  if (gathered.numbering == Numbering::Piece)
    return seedIds;
  if (gathered.numbering == Numbering::Coordinates)
    throw Error(
        "Seed Mode is Point Ids, but the input is split over " +
        std::to_string(gathered.pieces) +
        " ranks without global point ids (a GlobalPointIds array), so its point "
        "ids are not those of a serial run. Generate Global Ids on the whole input "
        "before it is split (e.g. right after its reader, before Redistribute "
        "DataSet), or use Seed Mode Mask Array or Seed Points");
  const std::vector<vtkIdType>& globals = gathered.globalIds;
  std::vector<vtkIdType> seeds;
  for (vtkIdType id : seedIds) {
    const auto at = std::lower_bound(globals.begin(), globals.end(), id);
    if (at == globals.end() || *at != id)
      throw Error("seed id " + std::to_string(id) +
                  " is not a global point id of the input (its " +
                  std::to_string(globals.size()) + " GlobalPointIds run from " +
                  std::to_string(globals.front()) + " to " +
                  std::to_string(globals.back()) + ")");
    seeds.push_back(vtkIdType(at - globals.begin()));
  }
  return seeds;
}

// The seed points of every piece, as one point set.
vtkSmartPointer<vtkPolyData>
mergeSeedPoints(const std::vector<vtkSmartPointer<vtkDataObject>>& pieces) {
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  for (const auto& piece : pieces) {
    if (auto* set = vtkDataSet::SafeDownCast(piece)) {
      for (vtkIdType p = 0; p < set->GetNumberOfPoints(); ++p)
        points->InsertNextPoint(set->GetPoint(p));
    }
  }
  auto seeds = vtkSmartPointer<vtkPolyData>::New();
  seeds->SetPoints(points);
  return seeds;
}

std::string arrayName(vtkAbstractArray* array) {
  return array->GetName() ? array->GetName() : "(unnamed)";
}

// A field data array of one value.
template <typename ArrayT, typename Value>
void addValue(vtkFieldData* fd, const char* name, Value value) {
  auto array = topogpu::vtk::namedArray<ArrayT>(name, 1);
  array->SetValue(0, value);
  fd->AddArray(array);
}

} // namespace

struct vtkTopoGPUGeodesicDistance::PreparedSurface {
  ek::Preparation preparation;
};

vtkTopoGPUGeodesicDistance::vtkTopoGPUGeodesicDistance() {
  this->Label = "TopoGPU Geodesic Distance";
  this->NeedsInputScalars = false;
  // Both inputs are gathered to rank 0 (RequestGatheredData).
  this->GathersOwnInput = true;
  this->SetNumberOfInputPorts(2);
  // Input array 1: the seed mask (points); 2: the speed (points or cells).
  this->SetInputArrayToProcess(1, 0, 0, vtkDataObject::FIELD_ASSOCIATION_POINTS,
                               vtkDataSetAttributes::SCALARS);
  this->SetInputArrayToProcess(2, 0, 0, vtkDataObject::FIELD_ASSOCIATION_POINTS,
                               vtkDataSetAttributes::SCALARS);
}

vtkTopoGPUGeodesicDistance::~vtkTopoGPUGeodesicDistance() = default;

void vtkTopoGPUGeodesicDistance::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "SeedMode: " << this->SeedMode << "\n";
  os << indent << "SeedIds:";
  for (vtkIdType id : this->SeedIds)
    os << " " << id;
  os << "\n";
  os << indent << "SpeedMode: " << this->SpeedMode << "\n";
  os << indent << "Speed: " << this->Speed << "\n";
  os << indent << "UseStopDistance: " << this->UseStopDistance << "\n";
  os << indent << "StopDistance: " << this->StopDistance << "\n";
  os << indent << "Solver: " << this->Solver << "\n";
  os << indent << "DoublePrecision: " << this->DoublePrecision << "\n";
  os << indent << "PatchSize: " << this->PatchSize << "\n";
  os << indent << "InternalIterations: " << this->InternalIterations << "\n";
  os << indent << "BandWidth: " << this->BandWidth << "\n";
  os << indent << "Partition: " << this->Partition << "\n";
  os << indent << "ExactStartRadius: " << this->ExactStartRadius << "\n";
}

void vtkTopoGPUGeodesicDistance::AddSeedId(vtkIdType id) {
  this->SeedIds.push_back(id);
  this->Modified();
}

void vtkTopoGPUGeodesicDistance::RemoveAllSeedIds() {
  if (!this->SeedIds.empty()) {
    this->SeedIds.clear();
    this->Modified();
  }
}

int vtkTopoGPUGeodesicDistance::FillInputPortInformation(int port, vtkInformation* info) {
  if (port == 0) {
    info->Remove(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE());
    info->Append(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkPolyData");
    info->Append(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkUnstructuredGrid");
    return 1;
  }
  if (port == 1) {
    info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkDataSet");
    info->Set(vtkAlgorithm::INPUT_IS_OPTIONAL(), 1);
    return 1;
  }
  return 0;
}

int vtkTopoGPUGeodesicDistance::FillOutputPortInformation(int port,
                                                          vtkInformation* info) {
  if (port != 0)
    return 0;
  // "vtkDataSet": the base class creates an output of the input's type.
  info->Set(vtkDataObject::DATA_TYPE_NAME(), "vtkDataSet");
  return 1;
}

int vtkTopoGPUGeodesicDistance::RequestInformation(vtkInformation* request,
                                                   vtkInformationVector** inputVector,
                                                   vtkInformationVector* outputVector) {
  // The device's start overlaps the upstream work and the triangulation of the first
  // update, on the rank that computes; its context then serves the whole session.
  const char* name = solverNameOrNull(this->Solver);
  const std::string solver = name ? name : "";
  vtkMultiProcessController* controller =
      vtkMultiProcessController::GetGlobalController();
  const bool computes =
      controller == nullptr || controller->GetLocalProcessId() == kResultRank;
  if ((solver == "gpu" || solver == "auto") && computes)
    topogpu::warmUpDevice();
  return this->Superclass::RequestInformation(request, inputVector, outputVector);
}

vtkTypeBool
vtkTopoGPUGeodesicDistance::ProcessRequest(vtkInformation* request,
                                           vtkInformationVector** inputVector,
                                           vtkInformationVector* outputVector) {
  // A distributed request goes to RequestGatheredData, whose merge refuses any cell that
  // is not a triangle.
  if (request->Has(vtkDemandDrivenPipeline::REQUEST_DATA()) &&
      !IsDistributedRequest(outputVector)) {
    // Checked before the base class builds a triangulation, which would skip the other
    // cells with a warning only.
    const std::string problem =
        topogpu::vtk::triangleSurfaceProblem(vtkDataSet::GetData(inputVector[0], 0));
    if (!problem.empty()) {
      vtkErrorMacro(<< this->Label << ": " << problem);
      ClearOutputs(outputVector);
      return 1;
    }
  }
  return this->Superclass::ProcessRequest(request, inputVector, outputVector);
}

int vtkTopoGPUGeodesicDistance::RequestGatheredData(vtkInformation* request,
                                                    vtkInformationVector** inputVector,
                                                    vtkInformationVector* outputVector) {
  vtkMultiProcessController* controller =
      vtkMultiProcessController::GetGlobalController();
  const int rank = controller->GetLocalProcessId();
  vtkDataObject* output = vtkDataObject::GetData(outputVector, 0);
  if (output != nullptr)
    output->Initialize();
  const std::vector<vtkSmartPointer<vtkDataObject>> pieces =
      topogpu::vtk::gatherToRoot(controller, vtkDataObject::GetData(inputVector[0], 0));
  // The same on every rank: the pipeline is the same.
  const bool hasSeeds = this->GetNumberOfInputConnections(1) > 0;
  std::vector<vtkSmartPointer<vtkDataObject>> seedPieces;
  if (hasSeeds)
    seedPieces =
        topogpu::vtk::gatherToRoot(controller, vtkDataObject::GetData(inputVector[1], 0));
  if (rank == kResultRank) {
    GatheredSurface gathered;
    try {
      const topogpu::Timer timer;
      gathered = mergePieces(pieces);
      vtkDebugMacro(<< "gathered " << gathered.surface->GetNumberOfPoints()
                    << " points in " << timer.seconds() << " s");
      if (this->SeedMode == SEED_POINT_IDS && !this->SeedIds.empty()) {
        this->DistributedSeedIds = seedsOnGathered(this->SeedIds, gathered);
        this->UseDistributedSeedIds = true;
      }
    } catch (const std::exception& e) {
      vtkErrorMacro(<< this->Label << ": " << e.what());
      gathered.surface = nullptr;
    }
    if (gathered.surface) {
      // The base class runs on the gathered surface as on a serial input.
      const auto surfaceVector = topogpu::vtk::inputVectorOf(gathered.surface);
      const auto seedVector =
          hasSeeds ? topogpu::vtk::inputVectorOf(mergeSeedPoints(seedPieces))
                   : vtkSmartPointer<vtkInformationVector>::New();
      vtkInformationVector* inputs[2] = {surfaceVector, seedVector};
      this->RequestData(request, inputs, outputVector);
      // SeedIdentifier names seeds by global id, as Seed Ids do.
      auto* out = vtkDataSet::GetData(outputVector, 0);
      auto* labels = out == nullptr
                         ? nullptr
                         : vtkIdTypeArray::SafeDownCast(
                               out->GetPointData()->GetArray("SeedIdentifier"));
      if (labels != nullptr && gathered.numbering == Numbering::GlobalIds) {
        for (vtkIdType v = 0; v < labels->GetNumberOfTuples(); ++v) {
          const vtkIdType label = labels->GetValue(v);
          if (label >= 0)
            labels->SetValue(v, gathered.globalIds[std::size_t(label)]);
        }
      }
    }
    this->UseDistributedSeedIds = false;
    this->DistributedSeedIds.clear();
  }
  output = vtkDataObject::GetData(outputVector, 0);
  if (output != nullptr)
    topogpu::vtk::addResultRank(output);
  return 1;
}

namespace {

// The coordinates as x y z doubles: read in place from a vtkDoubleArray, else
// converted from the raw array into `converted` (no virtual call per point).
const double* pointCoordinates(vtkDataSet* input, std::vector<double>& converted) {
  const vtkIdType n = input->GetNumberOfPoints();
  auto* pointSet = vtkPointSet::SafeDownCast(input);
  vtkDataArray* pointData =
      pointSet && pointSet->GetPoints() ? pointSet->GetPoints()->GetData() : nullptr;
  if (auto* doubles = vtkDoubleArray::SafeDownCast(pointData);
      doubles != nullptr && doubles->GetNumberOfComponents() == 3)
    return doubles->GetPointer(0);
  converted.resize(std::size_t(n) * 3);
  if (auto* floats = vtkFloatArray::SafeDownCast(pointData);
      floats != nullptr && floats->GetNumberOfComponents() == 3)
    std::copy(floats->GetPointer(0), floats->GetPointer(0) + 3 * n, converted.begin());
  else
    for (vtkIdType v = 0; v < n; ++v)
      input->GetPoint(v, converted.data() + 3 * v);
  return converted.data();
}

} // namespace

void vtkTopoGPUGeodesicDistance::Compute(topogpu::vtk::FilterRun& run) {
  auto* shared =
      std::get_if<std::shared_ptr<topogpu::ExplicitTriangulation>>(run.triangulation);
  if (shared == nullptr || !*shared)
    throw Error("geodesic distance needs a triangle surface (vtkPolyData or "
                "vtkUnstructuredGrid of triangles)");
  vtkDataSet* input = run.input;
  const vtkIdType n = input->GetNumberOfPoints();

  ek::Parameters parameters;
  parameters.solver = ek::parseSolver(solverName(this->Solver));
  parameters.patchSize = this->PatchSize;
  parameters.internalIterations = this->InternalIterations;
  parameters.bandWidth = this->BandWidth;
  parameters.useMetis = this->Partition == PARTITION_METIS;
  parameters.exactStartRadius = this->ExactStartRadius;
  // The launch knobs of the environment (benchmarks), at the filter boundary.
  parameters.patchFimLaunch = topogpu::frontend::patchFimLaunchFromEnvironment();
  if (this->UseStopDistance)
    parameters.stopDistance = this->StopDistance;

  // Seeds.
  if (this->SeedMode == SEED_POINT_IDS) {
    if (this->SeedIds.empty())
      throw Error("Seed Mode is Point Ids but Seed Ids is empty: give at least one "
                  "vertex id");
    const std::vector<vtkIdType>& ids =
        this->UseDistributedSeedIds ? this->DistributedSeedIds : this->SeedIds;
    parameters.seeds.assign(ids.begin(), ids.end());
  } else if (this->SeedMode == SEED_MASK_ARRAY) {
    int association = -1;
    vtkDataArray* mask = this->GetInputArrayToProcess(1, run.inputVector, association);
    if (mask == nullptr || association != vtkDataObject::FIELD_ASSOCIATION_POINTS)
      throw Error("Seed Mode is Mask Array but no point array of the input is selected "
                  "as Seed Mask Array");
    if (mask->GetNumberOfComponents() != 1 || mask->GetNumberOfTuples() != n)
      throw Error("the seed mask array '" + arrayName(mask) +
                  "' must be a one-component point array");
    for (vtkIdType v = 0; v < n; ++v) {
      const double m = mask->GetComponent(v, 0);
      if (m != 0 && !std::isnan(m))
        parameters.seeds.push_back(topogpu::SimplexId(v));
    }
    if (parameters.seeds.empty())
      throw Error("the seed mask array '" + arrayName(mask) +
                  "' has no non-zero value: no seed");
  } else {
    // Empty vector when nothing is connected: GetData gives null.
    vtkDataSet* seeds = vtkDataSet::GetData(run.inputVector[1], 0);
    if (seeds == nullptr)
      throw Error("Seed Mode is Seed Points but nothing is connected to the Seeds input");
    if (seeds->GetNumberOfPoints() == 0)
      throw Error("the Seeds input has no points: no seed");
    auto locator = vtkSmartPointer<vtkStaticPointLocator>::New();
    locator->SetDataSet(input);
    locator->BuildLocator();
    for (vtkIdType p = 0; p < seeds->GetNumberOfPoints(); ++p) {
      double x[3];
      seeds->GetPoint(p, x);
      if (!std::isfinite(x[0]) || !std::isfinite(x[1]) || !std::isfinite(x[2]))
        throw Error("seed point " + std::to_string(p) + " has a non-finite coordinate");
      parameters.seeds.push_back(topogpu::SimplexId(locator->FindClosestPoint(x)));
    }
  }

  // Speed.
  std::vector<double> speed;
  if (this->SpeedMode == SPEED_CONSTANT) {
    parameters.speedKind = ek::SpeedKind::Constant;
    parameters.speed = this->Speed;
  } else {
    int association = -1;
    vtkDataArray* array = this->GetInputArrayToProcess(2, run.inputVector, association);
    if (array == nullptr)
      throw Error("Speed Mode is Array but no point or cell array of the input is "
                  "selected as Speed Array");
    const bool perCell = association == vtkDataObject::FIELD_ASSOCIATION_CELLS;
    const vtkIdType expected = perCell ? input->GetNumberOfCells() : n;
    if (array->GetNumberOfComponents() != 1 || array->GetNumberOfTuples() != expected)
      throw Error("the speed array '" + arrayName(array) + "' must be a one-component " +
                  (perCell ? "cell" : "point") + " array");
    speed.resize(std::size_t(expected));
    for (vtkIdType i = 0; i < expected; ++i)
      speed[std::size_t(i)] = array->GetComponent(i, 0);
    parameters.speedKind =
        perCell ? ek::SpeedKind::PerTriangle : ek::SpeedKind::PerVertex;
    parameters.speedValues = speed.data();
  }

  const topogpu::Timer pointsTimer;
  std::vector<double> converted;
  const double* coordinates = pointCoordinates(input, converted);
  const double pointsSeconds = pointsTimer.seconds();

  if (!this->Prepared)
    this->Prepared = std::make_unique<PreparedSurface>();
  ek::Result result;
  ek::execute(**shared, coordinates, parameters, run.monitor, result, run.report,
              &this->Prepared->preparation);
  run.report.timings.insert(run.report.timings.begin(), {"points", pointsSeconds});

  const topogpu::Timer outputTimer;
  vtkSmartPointer<vtkDataArray> distance;
  if (this->DoublePrecision) {
    auto values = vtkSmartPointer<vtkDoubleArray>::New();
    values->SetNumberOfTuples(n);
    topogpu::parallelCopy(result.distance.data(), result.distance.size(),
                          values->GetPointer(0));
    distance = values;
  } else {
    // Straight into the output array; a distance float32 cannot hold is an error.
    auto values = vtkSmartPointer<vtkFloatArray>::New();
    values->SetNumberOfTuples(n);
    ek::toFloat32(result.distance.data(), result.distance.size(), values->GetPointer(0));
    distance = values;
  }
  distance->SetName("GeodesicDistance");
  auto seedIdentifier = vtkSmartPointer<vtkIdTypeArray>::New();
  seedIdentifier->SetName("SeedIdentifier");
  seedIdentifier->SetNumberOfTuples(n);
  topogpu::parallelCopy(result.seedIdentifier.data(), result.seedIdentifier.size(),
                        seedIdentifier->GetPointer(0));

  vtkDataSet* output = vtkDataSet::GetData(run.outputVector, 0);
  output->ShallowCopy(input);
  output->GetPointData()->AddArray(distance);
  output->GetPointData()->AddArray(seedIdentifier);
  // Flags only: SetScalars would drop the input's active scalars.
  output->GetPointData()->SetActiveScalars("GeodesicDistance");

  vtkFieldData* fd = output->GetFieldData();
  auto solver = vtkSmartPointer<vtkStringArray>::New();
  solver->SetName("GeodesicSolver");
  solver->InsertNextValue(ek::solverName(result.solver)); // the one that ran
  fd->AddArray(solver);
  addValue<vtkLongLongArray>(fd, "GeodesicIterations", result.iterations);
  addValue<vtkDoubleArray>(fd, "GeodesicLocalSolvesPerVertex",
                           result.localSolvesPerVertex);
  addValue<vtkIdTypeArray>(fd, "GeodesicUnreachedVertices", result.unreached);
  addValue<vtkIntArray>(fd, "GeodesicConverged", result.converged ? 1 : 0);
  addValue<vtkIdTypeArray>(fd, "GeodesicExactVertices", result.exactVertices);
  addValue<vtkDoubleArray>(fd, "GeodesicExactRadius", result.exactRadius);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
