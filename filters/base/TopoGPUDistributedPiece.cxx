#include "TopoGPUDistributedPiece.h"

#include "base/Types.h"

#include <vtkAppendFilter.h>
#include <vtkAppendPolyData.h>
#include <vtkCellData.h>
#include <vtkCommunicator.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkDataSetAttributes.h>
#include <vtkDoubleArray.h>
#include <vtkGhostCellsGenerator.h>
#include <vtkIdList.h>
#include <vtkIdTypeArray.h>
#include <vtkImageData.h>
#include <vtkIntArray.h>
#include <vtkMPICommunicator.h>
#include <vtkMPIController.h>
#include <vtkMultiProcessController.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPointSet.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkStaticPointLocator.h>
#include <vtkTypeInt64Array.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::vtk {

namespace {

// What each point carries through the ghost generator to the ranks it is sent to: the
// rank of the piece it comes from, its index among that piece's welded points and its
// coordinates there (the ranks' copies of a border point may differ in their last bits,
// so one copy is the key). A border point's data is its owner's (the generator gives
// it the owner's values); a point sent by a rank that does not own it (where three
// pieces meet) carries that rank's, and planExchange asks that rank for the owner.
constexpr const char* kOwnerRank = "__TopoGPUOwnerRank";
constexpr const char* kOwnerIndex = "__TopoGPUOwnerIndex";
constexpr const char* kOwnerPoint = "__TopoGPUOwnerPoint";
// The global ids, in an array of their own (the generator drops the GlobalIds attribute).
constexpr const char* kOwnerId = "__TopoGPUOwnerId";
// A piece's own cells keep their points in order through the generator (unlike their
// border points' data, which the owner's overwrites): their index finds where each
// welded point went.
constexpr const char* kCellIndex = "__TopoGPUCellIndex";
// D3 numbers the points itself under this name when its input has no global ids: an
// order of its own (it changes with the number of ranks), not the data's.
constexpr const char* kD3TemporaryIds = "___D3___GlobalNodeIds";
constexpr int kIndexTag = 0x7480;
constexpr int kValueTag = 0x7486;
// Points of different pieces closer than this many units in the last place of the
// largest coordinate are one point: pieces made apart round a shared point apart.
constexpr double kWeldUlps = 16.0;

// A vertex's place in the order every rank shares: its global id, or its coordinates
// as the piece it comes from has them.
struct PointKey {
  std::int64_t id = 0;
  double x[3] = {0, 0, 0};
};

struct KeyLess {
  bool byIds;
  bool operator()(const PointKey& a, const PointKey& b) const {
    if (byIds)
      return a.id < b.id;
    return std::lexicographical_compare(a.x, a.x + 3, b.x, b.x + 3);
  }
};

// The global ids a piece's points are matched and ordered by, or null.
vtkDataArray* usableGlobalIds(vtkDataSet* set) {
  vtkDataArray* ids = set->GetPointData()->GetGlobalIds();
  if (ids == nullptr || ids->GetNumberOfComponents() != 1)
    return nullptr;
  if (ids->GetName() != nullptr && std::strcmp(ids->GetName(), kD3TemporaryIds) == 0)
    return nullptr;
  return ids;
}

// Keys of set's points: ids, else the coordinates in `points` (3 components), else the
// points' own.
std::vector<PointKey> keysOf(vtkDataSet* set, vtkDataArray* ids, vtkDataArray* points) {
  std::vector<PointKey> keys(static_cast<std::size_t>(set->GetNumberOfPoints()));
  for (vtkIdType i = 0; i < set->GetNumberOfPoints(); ++i) {
    PointKey& k = keys[std::size_t(i)];
    if (ids != nullptr)
      k.id = static_cast<std::int64_t>(ids->GetComponent(i, 0));
    else if (points != nullptr)
      points->GetTuple(i, k.x);
    else
      set->GetPoint(i, k.x);
  }
  return keys;
}

bool isGhostCell(vtkUnsignedCharArray* ghosts, vtkIdType c) {
  return ghosts != nullptr &&
         (ghosts->GetValue(c) &
          (vtkDataSetAttributes::DUPLICATECELL | vtkDataSetAttributes::HIDDENCELL));
}

// A new data set of set's type holding the given points of set (in that order, with
// their point data) and cells made of the given cells' points renumbered by newId.
vtkSmartPointer<vtkDataSet> remeshed(vtkDataSet* set,
                                     const std::vector<vtkIdType>& points,
                                     const std::vector<vtkIdType>& cells,
                                     const std::vector<vtkIdType>& newId) {
  vtkSmartPointer<vtkDataSet> out;
  out.TakeReference(set->NewInstance());
  auto coordinates = vtkSmartPointer<vtkPoints>::New();
  if (auto* pointSet = vtkPointSet::SafeDownCast(set))
    if (pointSet->GetPoints() != nullptr)
      coordinates->SetDataType(pointSet->GetPoints()->GetDataType());
  coordinates->SetNumberOfPoints(vtkIdType(points.size()));
  vtkPointData* from = set->GetPointData();
  vtkPointData* to = out->GetPointData();
  to->CopyAllocate(from, vtkIdType(points.size()));
  double x[3];
  for (std::size_t v = 0; v < points.size(); ++v) {
    set->GetPoint(points[v], x);
    coordinates->SetPoint(vtkIdType(v), x);
    to->CopyData(from, points[v], vtkIdType(v));
  }
  vtkPointSet::SafeDownCast(out)->SetPoints(coordinates);
  auto ids = vtkSmartPointer<vtkIdList>::New();
  auto* grid = vtkUnstructuredGrid::SafeDownCast(out);
  auto* poly = vtkPolyData::SafeDownCast(out);
  if (grid != nullptr)
    grid->AllocateEstimate(vtkIdType(cells.size()), 4);
  else
    poly->AllocateEstimate(vtkIdType(cells.size()), 3);
  for (const vtkIdType c : cells) {
    set->GetCellPoints(c, ids);
    for (vtkIdType k = 0; k < ids->GetNumberOfIds(); ++k)
      ids->SetId(k, newId[std::size_t(ids->GetId(k))]);
    if (grid != nullptr)
      grid->InsertNextCell(set->GetCellType(c), ids);
    else
      poly->InsertNextCell(set->GetCellType(c), ids);
  }
  return out;
}

// Which input points are one point: equal global ids, else coordinates within
// tolerance. Returns a representative input point for each.
std::vector<vtkIdType> weldMap(vtkDataSet* input, vtkDataArray* ids, double tolerance) {
  const vtkIdType n = input->GetNumberOfPoints();
  std::vector<vtkIdType> map(static_cast<std::size_t>(n));
  if (ids != nullptr) {
    const std::vector<PointKey> keys = keysOf(input, ids, nullptr);
    std::vector<vtkIdType> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), vtkIdType(0));
    const KeyLess less{true};
    std::stable_sort(order.begin(), order.end(), [&](vtkIdType a, vtkIdType b) {
      return less(keys[std::size_t(a)], keys[std::size_t(b)]);
    });
    for (std::size_t k = 0; k < order.size(); ++k)
      map[std::size_t(order[k])] =
          k > 0 && !less(keys[std::size_t(order[k - 1])], keys[std::size_t(order[k])])
              ? map[std::size_t(order[k - 1])]
              : order[k];
    return map;
  }
  vtkNew<vtkStaticPointLocator> locator;
  locator->SetDataSet(input);
  locator->SetTraversalOrder(vtkStaticPointLocator::POINT_ORDER); // deterministic
  locator->BuildLocator();
  locator->MergePoints(tolerance, map.data());
  // Points of one cell at one place are distinct points of the data (a collapsed cell),
  // not copies made by a split; places cannot tell such points apart across pieces.
  vtkIdType collapsed = 0;
  auto cellPoints = vtkSmartPointer<vtkIdList>::New();
  for (vtkIdType c = 0; c < input->GetNumberOfCells(); ++c) {
    input->GetCellPoints(c, cellPoints);
    const vtkIdType size = cellPoints->GetNumberOfIds();
    bool repeats = false;
    for (vtkIdType a = 0; a < size && !repeats; ++a)
      for (vtkIdType b = a + 1; b < size && !repeats; ++b)
        repeats = cellPoints->GetId(a) != cellPoints->GetId(b) &&
                  map[std::size_t(cellPoints->GetId(a))] ==
                      map[std::size_t(cellPoints->GetId(b))];
    collapsed += repeats ? 1 : 0;
  }
  if (collapsed > 0)
    throw Error(
        std::to_string(collapsed) +
        " cells of this piece have two distinct points at the same place (collapsed "
        "cells); a distributed run without point global ids matches the pieces' "
        "points by place and cannot tell such points apart. Give the input point "
        "global ids (vtkGlobalIds) or run on one process");
  return map;
}

// The piece without its ghost cells, its points welded (the points no kept cell uses
// are dropped), with their global ids in kOwnerId and, when tagged, each carrying this
// rank as its owner, its index and its coordinates. welds receives, for each input
// point, its point of the result or -1.
vtkSmartPointer<vtkDataSet> welded(vtkDataSet* input, vtkDataArray* ids, double tolerance,
                                   int rank, std::vector<vtkIdType>& welds,
                                   bool tagged = true) {
  vtkUnsignedCharArray* cellGhosts = input->GetCellData()->GetGhostArray();
  std::vector<vtkIdType> cells;
  std::vector<char> used(std::size_t(input->GetNumberOfPoints()), 0);
  auto cellPoints = vtkSmartPointer<vtkIdList>::New();
  for (vtkIdType c = 0; c < input->GetNumberOfCells(); ++c) {
    if (isGhostCell(cellGhosts, c))
      continue;
    cells.push_back(c);
    input->GetCellPoints(c, cellPoints);
    for (vtkIdType k = 0; k < cellPoints->GetNumberOfIds(); ++k)
      used[std::size_t(cellPoints->GetId(k))] = 1;
  }
  const std::vector<vtkIdType> map = weldMap(input, ids, tolerance);
  // One point per group that a kept cell uses, in input order of its representative.
  std::vector<vtkIdType> representatives, newId(map.size(), -1);
  std::vector<char> groupUsed(map.size(), 0);
  for (std::size_t i = 0; i < map.size(); ++i)
    if (used[i])
      groupUsed[std::size_t(map[i])] = 1;
  for (std::size_t i = 0; i < map.size(); ++i)
    if (groupUsed[i] && map[i] == vtkIdType(i)) {
      newId[i] = vtkIdType(representatives.size());
      representatives.push_back(vtkIdType(i));
    }
  welds.assign(map.size(), -1);
  for (std::size_t i = 0; i < map.size(); ++i)
    welds[i] = newId[std::size_t(map[i])];
  vtkSmartPointer<vtkDataSet> out = remeshed(input, representatives, cells, welds);
  vtkPointData* pd = out->GetPointData();
  pd->RemoveArray(vtkDataSetAttributes::GhostArrayName());
  if (ids == nullptr && pd->GetGlobalIds() != nullptr) {
    // Matched by place (D3's own numbering is no order of the data's).
    const std::string name =
        pd->GetGlobalIds()->GetName() ? pd->GetGlobalIds()->GetName() : "";
    pd->SetGlobalIds(nullptr);
    if (!name.empty())
      pd->RemoveArray(name.c_str());
  }
  const vtkIdType n = out->GetNumberOfPoints();
  if (ids != nullptr) {
    auto globalIds = vtkSmartPointer<vtkTypeInt64Array>::New();
    globalIds->SetName(kOwnerId);
    globalIds->SetNumberOfTuples(n);
    for (vtkIdType v = 0; v < n; ++v)
      globalIds->SetValue(v, static_cast<std::int64_t>(
                                 ids->GetComponent(representatives[std::size_t(v)], 0)));
    pd->AddArray(globalIds);
  }
  if (!tagged)
    return out;
  auto owner = vtkSmartPointer<vtkIntArray>::New();
  owner->SetName(kOwnerRank);
  owner->SetNumberOfTuples(n);
  owner->Fill(rank);
  auto index = vtkSmartPointer<vtkIdTypeArray>::New();
  index->SetName(kOwnerIndex);
  index->SetNumberOfTuples(n);
  auto place = vtkSmartPointer<vtkDoubleArray>::New();
  place->SetName(kOwnerPoint);
  place->SetNumberOfComponents(3);
  place->SetNumberOfTuples(n);
  double x[3];
  for (vtkIdType v = 0; v < n; ++v) {
    index->SetValue(v, v);
    out->GetPoint(v, x);
    place->SetTypedTuple(v, x);
  }
  pd->AddArray(owner);
  pd->AddArray(index);
  pd->AddArray(place);
  auto cellIndex = vtkSmartPointer<vtkIdTypeArray>::New();
  cellIndex->SetName(kCellIndex);
  cellIndex->SetNumberOfTuples(out->GetNumberOfCells());
  for (vtkIdType c = 0; c < out->GetNumberOfCells(); ++c)
    cellIndex->SetValue(c, c);
  out->GetCellData()->AddArray(cellIndex);
  return out;
}

// The machine epsilon of set's point type (float's for single precision).
double pointEpsilon(vtkDataSet* set) {
  auto* pointSet = vtkPointSet::SafeDownCast(set);
  vtkPoints* points = pointSet != nullptr ? pointSet->GetPoints() : nullptr;
  return points != nullptr && points->GetDataType() == VTK_FLOAT
             ? double(std::numeric_limits<float>::epsilon())
             : std::numeric_limits<double>::epsilon();
}

double largestCoordinate(vtkDataSet* set) {
  double bounds[6];
  set->GetBounds(bounds);
  double largest = 0.0;
  for (const double b : bounds)
    largest = std::max(largest, std::fabs(b));
  return largest;
}

// kWeldUlps units in the last place of the largest coordinate, at the given epsilon.
double weldTolerance(double largest, double epsilon) {
  return kWeldUlps * epsilon * std::max(largest, std::numeric_limits<double>::min());
}

// The weld tolerance of every piece: that of the largest coordinate of any piece, in
// the coarsest point type of any piece.
double weldTolerance(vtkMultiProcessController* controller, vtkDataSet* input,
                     bool mesh) {
  double local[2] = {0.0, 0.0}; // largest |coordinate|, machine epsilon of the points
  if (mesh) {
    local[0] = largestCoordinate(input);
    local[1] = pointEpsilon(input);
  }
  double all[2];
  controller->AllReduce(local, all, 2, vtkCommunicator::MAX_OP);
  return weldTolerance(all[0], all[1]);
}

vtkMPIController* mpiOf(vtkMultiProcessController* controller) {
  auto* mpi = vtkMPIController::SafeDownCast(controller);
  if (mpi == nullptr)
    throw Error(std::string("a distributed run needs an MPI controller, this one is a ") +
                controller->GetClassName());
  return mpi;
}

int checkedCount(std::size_t n, const char* what) {
  if (n > std::size_t(INT_MAX))
    throw Error(std::string("too many ") + what + " to send in one message (" +
                std::to_string(n) + ")");
  return int(n);
}

} // namespace

DistributedPiece::~DistributedPiece() = default;

vtkDataArray* DistributedPiece::carried(vtkDataArray* inputArray) const {
  vtkPointData* pd = mesh_->GetPointData();
  vtkDataArray* array = inputArray->GetName() != nullptr
                            ? pd->GetArray(inputArray->GetName())
                            : pd->GetScalars();
  if (array == nullptr || array->GetDataType() != inputArray->GetDataType())
    throw Error(std::string("the point array '") +
                (inputArray->GetName() ? inputArray->GetName() : "(unnamed)") +
                "' did not come through the ghost layer exchange");
  return array;
}

void DistributedPiece::agree(vtkMultiProcessController* controller,
                             const std::string& localError, bool aborted) {
  const int rank = controller->GetLocalProcessId();
  // The lowest failing rank, and whether it failed (2) or aborted (1).
  const int local[2] = {!localError.empty() ? 2
                        : aborted           ? 1
                                            : 0,
                        !localError.empty() ? -rank : INT_MIN};
  int worst[2] = {0, INT_MIN};
  controller->AllReduce(local, worst, 2, vtkCommunicator::MAX_OP);
  if (worst[0] == 0)
    return;
  if (worst[0] == 1)
    throw Aborted();
  // Rank 0 reports the first failing rank's error (where pvbatch's script and a
  // pvserver's client see it); the other ranks give an empty output.
  const int failing = -worst[1];
  std::string text = rank == failing ? localError : std::string();
  int size = int(text.size());
  controller->Broadcast(&size, 1, failing);
  text.resize(std::size_t(size));
  if (size > 0)
    controller->Broadcast(&text[0], size, failing);
  if (rank == 0)
    throw Error(failing == 0 ? text : "rank " + std::to_string(failing) + ": " + text);
  throw Aborted();
}

namespace {

// What the ranks hold, agreed by all (throws as agree() when they cannot go on).
struct Survey {
  bool mesh = false;   // this rank's piece is a non-empty mesh
  bool meshes = false; // some rank's is
  bool byIds = false;  // every mesh piece has usable global ids
};

Survey survey(vtkMultiProcessController* controller, vtkDataSet* input) {
  const int rank = controller->GetLocalProcessId();
  const bool empty = input == nullptr || input->GetNumberOfPoints() == 0;
  const bool image = !empty && vtkImageData::SafeDownCast(input) != nullptr;
  const bool mesh = !empty && (vtkPolyData::SafeDownCast(input) != nullptr ||
                               vtkUnstructuredGrid::SafeDownCast(input) != nullptr);
  // meshes, images, something else, pieces with global ids, pieces without
  enum { kMesh, kImage, kOther, kIds, kNoIds, kKinds };
  int local[kKinds] = {mesh, image, !empty && !mesh && !image, 0, 0};
  if (mesh)
    (usableGlobalIds(input) ? local[kIds] : local[kNoIds]) = 1;
  int all[kKinds];
  controller->AllReduce(local, all, kKinds, vtkCommunicator::MAX_OP);
  std::string error;
  if (local[kOther])
    error = std::string("a distributed ") + input->GetClassName() +
            " is not supported; convert it to an unstructured grid (e.g. with Merge "
            "Blocks or Tetrahedralize) or run on one process";
  else if (rank == 0 && all[kMesh] && all[kImage])
    error = "the pieces mix images and meshes; convert them to one type first";
  else if (rank == 0 && !all[kMesh] && !all[kImage] && !all[kOther])
    error = "the input is empty (no points on any rank)";
  DistributedPiece::agree(controller, error, false);
  Survey result;
  result.mesh = mesh;
  result.meshes = all[kMesh] != 0;
  // Global ids only when every piece has them (else points would match on some ranks
  // by id and on others by place).
  result.byIds = result.meshes && !all[kNoIds];
  return result;
}

// The non-empty pieces as one data set (Append's output type).
template <typename Append, typename Piece>
vtkSmartPointer<vtkDataSet>
appendAll(const std::vector<vtkSmartPointer<vtkDataObject>>& pieces) {
  vtkNew<Append> append;
  for (const auto& one : pieces)
    if (auto* piece = Piece::SafeDownCast(one))
      if (piece->GetNumberOfPoints() > 0)
        append->AddInputData(piece);
  append->Update();
  return append->GetOutput();
}

} // namespace

std::unique_ptr<DistributedPiece>
DistributedPiece::build(vtkMultiProcessController* controller, vtkDataSet* input,
                        int ghostLayers) {
  const int rank = controller->GetLocalProcessId();
  const Survey pieces = survey(controller, input);
  if (!pieces.meshes)
    return nullptr; // images: the pipeline's ghost layers (PieceOwnership)
  const bool mesh = pieces.mesh;
  std::string error;

  std::unique_ptr<DistributedPiece> piece(new DistributedPiece());
  piece->controller_ = controller;
  if (input != nullptr)
    piece->input_ = input;
  piece->byIds_ = pieces.byIds;
  const double tolerance = weldTolerance(controller, input, mesh);
  vtkSmartPointer<vtkDataSet> own;
  std::vector<vtkIdType> welds;
  try {
    if (mesh)
      own = welded(input, piece->byIds_ ? usableGlobalIds(input) : nullptr, tolerance,
                   rank, welds);
    else
      own = vtkSmartPointer<vtkUnstructuredGrid>::New();
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(controller, error, false);

  vtkNew<vtkGhostCellsGenerator> generator;
  generator->SetController(controller);
  generator->SetInputData(own);
  generator->BuildIfRequiredOff();
  generator->SetNumberOfGhostLayers(std::max(1, ghostLayers));
  generator->Update();

  try {
    auto* layered = vtkDataSet::SafeDownCast(generator->GetOutputDataObject(0));
    if (layered == nullptr)
      throw Error("the ghost cell generator gave no data set");
    vtkPointData* lpd = layered->GetPointData();
    vtkDataArray* ids = piece->byIds_ ? lpd->GetArray(kOwnerId) : nullptr;
    vtkDataArray* places = lpd->GetArray(kOwnerPoint);
    vtkDataArray* owners = lpd->GetArray(kOwnerRank);
    vtkDataArray* indices = lpd->GetArray(kOwnerIndex);
    const vtkIdType n = layered->GetNumberOfPoints();
    if (n > 0 && ((piece->byIds_ && ids == nullptr) || places == nullptr ||
                  owners == nullptr || indices == nullptr))
      throw Error("the ghost cell generator dropped point arrays");
    // The shared order: the points sorted by key. Copies of one point (the generator
    // may bring a point from two ranks) are one vertex, owned when one copy is.
    const std::vector<PointKey> keys = keysOf(layered, ids, places);
    const KeyLess less{piece->byIds_};
    std::vector<vtkIdType> order(keys.size()), newId(keys.size()), unique;
    std::iota(order.begin(), order.end(), vtkIdType(0));
    std::sort(order.begin(), order.end(), [&](vtkIdType a, vtkIdType b) {
      return less(keys[std::size_t(a)], keys[std::size_t(b)]);
    });
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k == 0 || less(keys[std::size_t(order[k - 1])], keys[std::size_t(order[k])]))
        unique.push_back(order[k]);
      newId[std::size_t(order[k])] = vtkIdType(unique.size()) - 1;
    }
    const vtkIdType vertices = vtkIdType(unique.size());
    std::vector<vtkIdType> cells(static_cast<std::size_t>(layered->GetNumberOfCells()));
    std::iota(cells.begin(), cells.end(), vtkIdType(0));
    piece->mesh_ = n > 0 ? remeshed(layered, unique, cells, newId)
                         : vtkSmartPointer<vtkDataSet>(layered);
    vtkDataSet* m = piece->mesh_;
    // The generator's ghost points are owned elsewhere; the mesh says so in a ghost
    // array of its own (PieceOwnership reads it).
    vtkUnsignedCharArray* ghosts = lpd->GetGhostArray();
    piece->owned_.assign(std::size_t(vertices), 0);
    piece->inputOf_.assign(std::size_t(vertices), -1);
    piece->owner_.assign(std::size_t(vertices), -1);
    piece->ownerIndex_.assign(std::size_t(vertices), -1);
    std::vector<int> best(std::size_t(vertices), -1);
    std::vector<char> ownPoint(std::size_t(n), 0); // a point of the piece's own cells
    {
      vtkUnsignedCharArray* cellGhosts = layered->GetCellData()->GetGhostArray();
      auto cellPoints = vtkSmartPointer<vtkIdList>::New();
      for (vtkIdType c = 0; c < layered->GetNumberOfCells(); ++c) {
        if (isGhostCell(cellGhosts, c))
          continue;
        layered->GetCellPoints(c, cellPoints);
        for (vtkIdType j = 0; j < cellPoints->GetNumberOfIds(); ++j)
          ownPoint[std::size_t(cellPoints->GetId(j))] = 1;
      }
    }
    for (const vtkIdType l : order) {
      const std::size_t v = std::size_t(newId[std::size_t(l)]);
      const bool owned = !isGhostPoint(ghosts, l);
      // The owned copy says who owns it, else this piece's own copy (the generator
      // gives a border point its owner's data), else a copy from another rank (its
      // sender, which knows the owner: see planExchange).
      const int rankOfCopy = owned ? 2 : ownPoint[std::size_t(l)] ? 1 : 0;
      if (piece->owner_[v] < 0 || rankOfCopy > best[v]) {
        best[v] = rankOfCopy;
        piece->owned_[v] = owned;
        piece->owner_[v] = int(owners->GetComponent(l, 0));
        piece->ownerIndex_[v] = vtkIdType(indices->GetComponent(l, 0));
      }
      if (owned && piece->owner_[v] != rank)
        throw Error("the ghost cell generator gave this rank a point it does not own");
    }
    auto marks = vtkSmartPointer<vtkUnsignedCharArray>::New();
    marks->SetName(vtkDataSetAttributes::GhostArrayName());
    marks->SetNumberOfTuples(vertices);
    for (vtkIdType v = 0; v < vertices; ++v)
      marks->SetValue(
          v, piece->owned_[std::size_t(v)]
                 ? 0
                 : static_cast<unsigned char>(vtkDataSetAttributes::DUPLICATEPOINT));
    if (n > 0)
      m->GetPointData()->AddArray(marks);
    // Where each welded point went: the piece's own cells, point by point.
    piece->fromWelded_.assign(std::size_t(own->GetNumberOfPoints()), -1);
    vtkDataArray* cellIndex = layered->GetCellData()->GetArray(kCellIndex);
    vtkUnsignedCharArray* cellGhosts = layered->GetCellData()->GetGhostArray();
    auto mine = vtkSmartPointer<vtkIdList>::New();
    auto theirs = vtkSmartPointer<vtkIdList>::New();
    for (vtkIdType c = 0; c < layered->GetNumberOfCells(); ++c) {
      if (isGhostCell(cellGhosts, c))
        continue;
      const vtkIdType k = cellIndex ? vtkIdType(cellIndex->GetComponent(c, 0)) : -1;
      if (k < 0 || k >= own->GetNumberOfCells())
        throw Error("the ghost cell generator dropped the piece's cell numbers");
      layered->GetCellPoints(c, mine);
      own->GetCellPoints(k, theirs);
      if (mine->GetNumberOfIds() != theirs->GetNumberOfIds())
        throw Error("the ghost cell generator changed a cell of the piece");
      for (vtkIdType j = 0; j < mine->GetNumberOfIds(); ++j)
        piece->fromWelded_[std::size_t(theirs->GetId(j))] =
            newId[std::size_t(mine->GetId(j))];
    }
    for (vtkIdType v = 0; v < vertices; ++v)
      if (piece->owned_[std::size_t(v)] &&
          (piece->ownerIndex_[std::size_t(v)] < 0 ||
           piece->ownerIndex_[std::size_t(v)] >= vtkIdType(piece->fromWelded_.size()) ||
           piece->fromWelded_[std::size_t(piece->ownerIndex_[std::size_t(v)])] != v))
        throw Error("the ghost cell generator renumbered the piece's own points");
    // Input points to vertices: through the weld, else (input ghost points, dropped
    // with their cells) by key among the rebuilt ghosts.
    std::vector<PointKey> sorted(static_cast<std::size_t>(vertices));
    for (vtkIdType v = 0; v < vertices; ++v)
      sorted[std::size_t(v)] = keys[std::size_t(unique[std::size_t(v)])];
    const vtkIdType inputPoints = input != nullptr ? input->GetNumberOfPoints() : 0;
    piece->meshOf_.assign(std::size_t(inputPoints), -1);
    const std::vector<PointKey> inputKeys =
        mesh ? keysOf(input, piece->byIds_ ? usableGlobalIds(input) : nullptr, nullptr)
             : std::vector<PointKey>();
    for (vtkIdType i = 0; i < inputPoints && mesh; ++i) {
      vtkIdType v = welds[std::size_t(i)] >= 0
                        ? piece->fromWelded_[std::size_t(welds[std::size_t(i)])]
                        : -1;
      if (v < 0 && welds[std::size_t(i)] < 0) {
        auto at = std::lower_bound(sorted.begin(), sorted.end(),
                                   inputKeys[std::size_t(i)], less);
        if (at != sorted.end() && !less(inputKeys[std::size_t(i)], *at))
          v = vtkIdType(at - sorted.begin());
      }
      piece->meshOf_[std::size_t(i)] = v;
      if (v >= 0 && piece->owned_[std::size_t(v)] && piece->inputOf_[std::size_t(v)] < 0)
        piece->inputOf_[std::size_t(v)] = i;
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(controller, error, false);
  piece->planExchange();
  agree(controller, piece->planError_, false);
  return piece;
}

DistributedPiece::Gathered
DistributedPiece::gatherMesh(vtkMultiProcessController* controller, vtkDataSet* input) {
  const int rank = controller->GetLocalProcessId();
  const Survey pieces = survey(controller, input);
  Gathered result;
  if (!pieces.meshes)
    return result;
  result.meshes = true;
  const double tolerance = weldTolerance(controller, input, pieces.mesh);
  // Each piece without its ghost cells and its own copies of a point.
  std::string error;
  vtkSmartPointer<vtkDataSet> own;
  try {
    std::vector<vtkIdType> welds;
    if (pieces.mesh)
      own = welded(input, pieces.byIds ? usableGlobalIds(input) : nullptr, tolerance,
                   rank, welds, false);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(controller, error, false);
  if (!own)
    own.TakeReference(input != nullptr ? input->NewInstance()
                                       : vtkUnstructuredGrid::New());
  std::vector<vtkSmartPointer<vtkDataObject>> gathered;
  controller->Gather(own, gathered, 0);
  try {
    if (rank == 0) {
      // One data set of the input's type, then the copies of each border point welded.
      vtkSmartPointer<vtkDataSet> appended =
          vtkPolyData::SafeDownCast(input) != nullptr
              ? appendAll<vtkAppendPolyData, vtkPolyData>(gathered)
              : appendAll<vtkAppendFilter, vtkDataSet>(gathered);
      vtkDataArray* ids =
          pieces.byIds ? appended->GetPointData()->GetArray(kOwnerId) : nullptr;
      if (pieces.byIds && ids == nullptr)
        throw Error("the gathered pieces lost their global ids");
      std::vector<vtkIdType> welds;
      result.whole = welded(appended, ids, tolerance, 0, welds, false);
      if (pieces.byIds) {
        // The points in global-id order: the serial order when the ids number them so.
        vtkDataArray* wholeIds = result.whole->GetPointData()->GetArray(kOwnerId);
        const std::vector<PointKey> keys = keysOf(result.whole, wholeIds, nullptr);
        std::vector<vtkIdType> order(keys.size()), newId(keys.size());
        std::iota(order.begin(), order.end(), vtkIdType(0));
        const KeyLess less{true};
        std::sort(order.begin(), order.end(), [&](vtkIdType a, vtkIdType b) {
          return less(keys[std::size_t(a)], keys[std::size_t(b)]);
        });
        for (std::size_t v = 0; v < order.size(); ++v)
          newId[std::size_t(order[v])] = vtkIdType(v);
        std::vector<vtkIdType> cells(
            static_cast<std::size_t>(result.whole->GetNumberOfCells()));
        std::iota(cells.begin(), cells.end(), vtkIdType(0));
        result.whole = remeshed(result.whole, order, cells, newId);
      }
      result.whole->GetPointData()->RemoveArray(kOwnerId);
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(controller, error, false);
  return result;
}

bool isGhostPoint(vtkUnsignedCharArray* ghosts, vtkIdType p) {
  return ghosts != nullptr &&
         (ghosts->GetValue(p) & vtkDataSetAttributes::DUPLICATEPOINT);
}

vtkSmartPointer<vtkPolyData>
DistributedPiece::weldPoints(const std::vector<vtkPointSet*>& sets) {
  // Global ids only when every set has them (else some points would match by id and
  // others by place).
  bool byIds = true;
  vtkIdType total = 0;
  double epsilon = std::numeric_limits<double>::epsilon();
  for (vtkPointSet* set : sets) {
    byIds = byIds && usableGlobalIds(set) != nullptr;
    total += set->GetNumberOfPoints();
    epsilon = std::max(epsilon, pointEpsilon(set));
  }
  auto all = vtkSmartPointer<vtkPolyData>::New();
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  points->Allocate(total);
  auto ids = vtkSmartPointer<vtkTypeInt64Array>::New();
  ids->SetName("GlobalPointIds");
  for (vtkPointSet* set : sets) {
    vtkUnsignedCharArray* ghosts = set->GetPointData()->GetGhostArray();
    vtkDataArray* setIds = byIds ? usableGlobalIds(set) : nullptr;
    for (vtkIdType p = 0; p < set->GetNumberOfPoints(); ++p) {
      if (isGhostPoint(ghosts, p))
        continue;
      points->InsertNextPoint(set->GetPoint(p));
      if (setIds != nullptr)
        ids->InsertNextValue(static_cast<std::int64_t>(setIds->GetComponent(p, 0)));
    }
  }
  all->SetPoints(points);
  if (byIds)
    all->GetPointData()->SetGlobalIds(ids);
  if (points->GetNumberOfPoints() == 0)
    return all;
  const std::vector<vtkIdType> map = weldMap(
      all, byIds ? ids.Get() : nullptr, weldTolerance(largestCoordinate(all), epsilon));
  // One point per group, in global-id order, else in the order of the sets.
  std::vector<vtkIdType> order, newId(map.size(), -1);
  for (std::size_t i = 0; i < map.size(); ++i)
    if (map[i] == vtkIdType(i))
      order.push_back(vtkIdType(i));
  if (byIds)
    std::sort(order.begin(), order.end(), [&](vtkIdType a, vtkIdType b) {
      return ids->GetValue(a) < ids->GetValue(b);
    });
  for (std::size_t k = 0; k < order.size(); ++k)
    newId[std::size_t(order[k])] = vtkIdType(k);
  return vtkPolyData::SafeDownCast(remeshed(all, order, {}, newId));
}

namespace {

// Collective: sends outgoing[q] to rank q and returns what each rank sent this one.
std::vector<std::vector<std::int64_t>>
swapLists(vtkMultiProcessController* controller,
          const std::vector<std::vector<std::int64_t>>& outgoing, int tag) {
  const int ranks = controller->GetNumberOfProcesses();
  const int rank = controller->GetLocalProcessId();
  std::vector<int> counts(outgoing.size()), all(std::size_t(ranks) * std::size_t(ranks));
  for (std::size_t q = 0; q < outgoing.size(); ++q)
    counts[q] = checkedCount(outgoing[q].size(), "ids");
  controller->AllGather(counts.data(), all.data(), ranks);
  vtkMPIController* mpi = mpiOf(controller);
  std::vector<std::vector<std::int64_t>> incoming(outgoing.size());
  std::vector<vtkMPICommunicator::Request> requests;
  requests.reserve(2 * outgoing.size());
  for (int q = 0; q < ranks; ++q) {
    const int count = all[std::size_t(q) * std::size_t(ranks) + std::size_t(rank)];
    if (count == 0)
      continue;
    incoming[std::size_t(q)].resize(std::size_t(count));
    requests.emplace_back();
    mpi->NoBlockReceive(reinterpret_cast<char*>(incoming[std::size_t(q)].data()),
                        checkedCount(std::size_t(count) * sizeof(std::int64_t), "bytes"),
                        q, tag, requests.back());
  }
  for (int q = 0; q < ranks; ++q) {
    if (outgoing[std::size_t(q)].empty())
      continue;
    requests.emplace_back();
    mpi->NoBlockSend(
        reinterpret_cast<const char*>(outgoing[std::size_t(q)].data()),
        checkedCount(outgoing[std::size_t(q)].size() * sizeof(std::int64_t), "bytes"), q,
        tag, requests.back());
  }
  if (!requests.empty())
    mpi->WaitAll(int(requests.size()), requests.data());
  return incoming;
}

} // namespace

// Every ghost vertex came with the rank that sent it and its index in that rank's
// welded piece. The sender may not own it (a point where three pieces meet): it then
// names the owner, whose copy it holds. The owner is then asked for the vertex and keeps
// the order of the requests, so an exchange sends values only.
void DistributedPiece::planExchange() {
  const int ranks = controller_->GetNumberOfProcesses();
  const int rank = controller_->GetLocalProcessId();
  receives_.assign(std::size_t(ranks), {});
  sends_.assign(std::size_t(ranks), {});
  const auto invalid = [&](int q) { return q < 0 || q >= ranks || q == rank; };
  // 1. Ask each ghost's sender who owns it.
  std::vector<std::vector<std::int64_t>> queries(static_cast<std::size_t>(ranks));
  std::vector<std::vector<vtkIdType>> queried(static_cast<std::size_t>(ranks));
  for (std::size_t v = 0; v < owned_.size() && planError_.empty(); ++v) {
    if (owned_[v])
      continue;
    if (invalid(owner_[v])) {
      planError_ = "the ghost cell generator left a ghost point without another rank";
      break;
    }
    queries[std::size_t(owner_[v])].push_back(ownerIndex_[v]);
    queried[std::size_t(owner_[v])].push_back(vtkIdType(v));
  }
  if (!planError_.empty())
    queries.assign(std::size_t(ranks), {});
  const auto asked = swapLists(controller_, queries, kIndexTag);
  std::vector<std::vector<std::int64_t>> answers(static_cast<std::size_t>(ranks));
  for (int q = 0; q < ranks; ++q) {
    for (const std::int64_t w : asked[std::size_t(q)]) {
      const vtkIdType v = w >= 0 && w < std::int64_t(fromWelded_.size())
                              ? fromWelded_[std::size_t(w)]
                              : -1;
      std::int64_t answer[2] = {-1, -1}; // the owner, the point's index there
      if (v >= 0 && owned_[std::size_t(v)]) {
        answer[0] = rank;
        answer[1] = w;
      } else if (v >= 0) {
        answer[0] = owner_[std::size_t(v)];
        answer[1] = ownerIndex_[std::size_t(v)];
      }
      answers[std::size_t(q)].insert(answers[std::size_t(q)].end(), answer, answer + 2);
    }
  }
  const auto answered = swapLists(controller_, answers, kIndexTag + 2);
  // 2. Ask each owner for its vertices.
  std::vector<std::vector<std::int64_t>> requests(static_cast<std::size_t>(ranks));
  for (int s = 0; s < ranks && planError_.empty(); ++s) {
    const auto& list = answered[std::size_t(s)];
    if (list.size() != 2 * queried[std::size_t(s)].size()) {
      planError_ = "rank " + std::to_string(s) + " answered " +
                   std::to_string(list.size() / 2) + " of " +
                   std::to_string(queried[std::size_t(s)].size()) + " ownership queries";
      break;
    }
    for (std::size_t k = 0; k < queried[std::size_t(s)].size(); ++k) {
      const int owner = int(list[2 * k]);
      if (invalid(owner)) {
        planError_ = "rank " + std::to_string(s) + " knows no other owner of a point " +
                     "it sent; the pieces do not fit together";
        break;
      }
      receives_[std::size_t(owner)].push_back(queried[std::size_t(s)][k]);
      requests[std::size_t(owner)].push_back(list[2 * k + 1]);
    }
  }
  if (!planError_.empty()) {
    requests.assign(std::size_t(ranks), {});
    receives_.assign(std::size_t(ranks), {});
  }
  const auto wanted = swapLists(controller_, requests, kIndexTag + 4);
  for (int q = 0; q < ranks && planError_.empty(); ++q) {
    for (const std::int64_t w : wanted[std::size_t(q)]) {
      const vtkIdType v = w >= 0 && w < std::int64_t(fromWelded_.size())
                              ? fromWelded_[std::size_t(w)]
                              : -1;
      if (v < 0 || !owned_[std::size_t(v)]) {
        planError_ = "rank " + std::to_string(q) + " asks this rank for a point it " +
                     "does not own; the pieces do not fit together";
        break;
      }
      sends_[std::size_t(q)].push_back(v);
    }
  }
}

void DistributedPiece::exchange(void* values, std::size_t valueBytes,
                                const std::string& localError, bool aborted) const {
  agree(controller_, localError, aborted);
  vtkMPIController* mpi = mpiOf(controller_);
  auto* bytes = static_cast<char*>(values);
  const std::size_t ranks = receives_.size();
  std::vector<std::vector<char>> in(ranks), out(ranks);
  std::vector<vtkMPICommunicator::Request> requests;
  requests.reserve(2 * ranks);
  for (std::size_t q = 0; q < ranks; ++q) {
    if (receives_[q].empty())
      continue;
    in[q].resize(receives_[q].size() * valueBytes);
    requests.emplace_back();
    mpi->NoBlockReceive(in[q].data(), checkedCount(in[q].size(), "bytes"), int(q),
                        kValueTag, requests.back());
  }
  for (std::size_t q = 0; q < ranks; ++q) {
    if (sends_[q].empty())
      continue;
    out[q].resize(sends_[q].size() * valueBytes);
    for (std::size_t k = 0; k < sends_[q].size(); ++k)
      std::memcpy(out[q].data() + k * valueBytes,
                  bytes + std::size_t(sends_[q][k]) * valueBytes, valueBytes);
    requests.emplace_back();
    mpi->NoBlockSend(out[q].data(), checkedCount(out[q].size(), "bytes"), int(q),
                     kValueTag, requests.back());
  }
  if (!requests.empty())
    mpi->WaitAll(int(requests.size()), requests.data());
  for (std::size_t q = 0; q < ranks; ++q)
    for (std::size_t k = 0; k < receives_[q].size(); ++k)
      std::memcpy(bytes + std::size_t(receives_[q][k]) * valueBytes,
                  in[q].data() + k * valueBytes, valueBytes);
}

} // namespace topogpu::vtk
