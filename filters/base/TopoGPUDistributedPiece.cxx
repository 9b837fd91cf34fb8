#include "TopoGPUDistributedPiece.h"

#include "TopoGPUGatherToRoot.h"
#include "TopoGPUPointWelding.h"

#include "base/Types.h"

#include <vtkAppendFilter.h>
#include <vtkAppendPolyData.h>
#include <vtkCellData.h>
#include <vtkCommunicator.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkDataSetAttributes.h>
#include <vtkGhostCellsGenerator.h>
#include <vtkIdList.h>
#include <vtkImageData.h>
#include <vtkMultiProcessController.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::vtk {

using welding::KeyLess;
using welding::keysOf;
using welding::kOwnerId;
using welding::PointKey;
using welding::remeshed;
using welding::usableGlobalIds;
using welding::welded;
using welding::weldTolerance;

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

// build()'s piece as the ghost generator gave it, its points in the shared order.
struct DistributedPiece::Layers {
  vtkDataSet* layered = nullptr;
  std::vector<PointKey> keys;
  // The generator's points sorted by key; each one's vertex; one point per vertex.
  std::vector<vtkIdType> order, newId, unique;
  vtkIdType vertices = 0;
};

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
    Layers layers;
    layers.layered = vtkDataSet::SafeDownCast(generator->GetOutputDataObject(0));
    if (layers.layered == nullptr)
      throw Error("the ghost cell generator gave no data set");
    piece->numberVertices(layers);
    piece->findOwners(layers, rank);
    piece->mapWeldedPoints(layers, own);
    if (mesh)
      piece->mapInputPoints(layers, input, welds);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(controller, error, false);
  piece->planExchange();
  agree(controller, piece->planError_, false);
  return piece;
}

// The shared order: the points sorted by key. Copies of one point (the generator may
// bring a point from two ranks) are one vertex. mesh_ holds the vertices in that order.
void DistributedPiece::numberVertices(Layers& layers) {
  vtkDataSet* layered = layers.layered;
  vtkPointData* lpd = layered->GetPointData();
  vtkDataArray* ids = byIds_ ? lpd->GetArray(kOwnerId) : nullptr;
  vtkDataArray* places = lpd->GetArray(welding::kOwnerPoint);
  vtkDataArray* owners = lpd->GetArray(welding::kOwnerRank);
  vtkDataArray* indices = lpd->GetArray(welding::kOwnerIndex);
  const vtkIdType n = layered->GetNumberOfPoints();
  if (n > 0 && ((byIds_ && ids == nullptr) || places == nullptr || owners == nullptr ||
                indices == nullptr))
    throw Error("the ghost cell generator dropped point arrays");
  layers.keys = keysOf(layered, ids, places);
  const KeyLess less{byIds_};
  layers.order = welding::sortedByKey(layers.keys, byIds_);
  layers.newId.resize(layers.keys.size());
  const auto& keys = layers.keys;
  const auto& order = layers.order;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || less(keys[std::size_t(order[k - 1])], keys[std::size_t(order[k])]))
      layers.unique.push_back(order[k]);
    layers.newId[std::size_t(order[k])] = vtkIdType(layers.unique.size()) - 1;
  }
  layers.vertices = vtkIdType(layers.unique.size());
  std::vector<vtkIdType> cells(static_cast<std::size_t>(layered->GetNumberOfCells()));
  std::iota(cells.begin(), cells.end(), vtkIdType(0));
  mesh_ = n > 0 ? remeshed(layered, layers.unique, cells, layers.newId)
                : vtkSmartPointer<vtkDataSet>(layered);
}

// Each vertex's owner (a vertex is owned when one of its copies is) and its index
// there. The generator's ghost points are owned elsewhere; mesh_ says so in a ghost
// array of its own (PieceOwnership reads it).
void DistributedPiece::findOwners(const Layers& layers, int rank) {
  vtkDataSet* layered = layers.layered;
  vtkPointData* lpd = layered->GetPointData();
  vtkDataArray* owners = lpd->GetArray(welding::kOwnerRank);
  vtkDataArray* indices = lpd->GetArray(welding::kOwnerIndex);
  const vtkIdType n = layered->GetNumberOfPoints();
  const vtkIdType vertices = layers.vertices;
  vtkUnsignedCharArray* ghosts = lpd->GetGhostArray();
  owned_.assign(std::size_t(vertices), 0);
  inputOf_.assign(std::size_t(vertices), -1);
  owner_.assign(std::size_t(vertices), -1);
  ownerIndex_.assign(std::size_t(vertices), -1);
  std::vector<int> best(std::size_t(vertices), -1);
  std::vector<char> ownPoint(std::size_t(n), 0); // a point of the piece's own cells
  {
    vtkUnsignedCharArray* cellGhosts = layered->GetCellData()->GetGhostArray();
    auto cellPoints = vtkSmartPointer<vtkIdList>::New();
    for (vtkIdType c = 0; c < layered->GetNumberOfCells(); ++c) {
      if (welding::isGhostCell(cellGhosts, c))
        continue;
      layered->GetCellPoints(c, cellPoints);
      for (vtkIdType j = 0; j < cellPoints->GetNumberOfIds(); ++j)
        ownPoint[std::size_t(cellPoints->GetId(j))] = 1;
    }
  }
  for (const vtkIdType l : layers.order) {
    const std::size_t v = std::size_t(layers.newId[std::size_t(l)]);
    const bool owned = !isGhostPoint(ghosts, l);
    // The owned copy says who owns it, else this piece's own copy (the generator
    // gives a border point its owner's data), else a copy from another rank (its
    // sender, which knows the owner: see planExchange).
    const int rankOfCopy = owned ? 2 : ownPoint[std::size_t(l)] ? 1 : 0;
    if (owner_[v] < 0 || rankOfCopy > best[v]) {
      best[v] = rankOfCopy;
      owned_[v] = owned;
      owner_[v] = int(owners->GetComponent(l, 0));
      ownerIndex_[v] = vtkIdType(indices->GetComponent(l, 0));
    }
    if (owned && owner_[v] != rank)
      throw Error("the ghost cell generator gave this rank a point it does not own");
  }
  auto marks = vtkSmartPointer<vtkUnsignedCharArray>::New();
  marks->SetName(vtkDataSetAttributes::GhostArrayName());
  marks->SetNumberOfTuples(vertices);
  for (vtkIdType v = 0; v < vertices; ++v)
    marks->SetValue(
        v, owned_[std::size_t(v)]
               ? 0
               : static_cast<unsigned char>(vtkDataSetAttributes::DUPLICATEPOINT));
  if (n > 0)
    mesh_->GetPointData()->AddArray(marks);
}

// Where each welded point of this rank went: the piece's own cells, point by point.
void DistributedPiece::mapWeldedPoints(const Layers& layers, vtkDataSet* own) {
  vtkDataSet* layered = layers.layered;
  fromWelded_.assign(std::size_t(own->GetNumberOfPoints()), -1);
  vtkDataArray* cellIndex = layered->GetCellData()->GetArray(welding::kCellIndex);
  vtkUnsignedCharArray* cellGhosts = layered->GetCellData()->GetGhostArray();
  auto mine = vtkSmartPointer<vtkIdList>::New();
  auto theirs = vtkSmartPointer<vtkIdList>::New();
  for (vtkIdType c = 0; c < layered->GetNumberOfCells(); ++c) {
    if (welding::isGhostCell(cellGhosts, c))
      continue;
    const vtkIdType k = cellIndex ? vtkIdType(cellIndex->GetComponent(c, 0)) : -1;
    if (k < 0 || k >= own->GetNumberOfCells())
      throw Error("the ghost cell generator dropped the piece's cell numbers");
    layered->GetCellPoints(c, mine);
    own->GetCellPoints(k, theirs);
    if (mine->GetNumberOfIds() != theirs->GetNumberOfIds())
      throw Error("the ghost cell generator changed a cell of the piece");
    for (vtkIdType j = 0; j < mine->GetNumberOfIds(); ++j)
      fromWelded_[std::size_t(theirs->GetId(j))] =
          layers.newId[std::size_t(mine->GetId(j))];
  }
  for (vtkIdType v = 0; v < layers.vertices; ++v)
    if (owned_[std::size_t(v)] &&
        (ownerIndex_[std::size_t(v)] < 0 ||
         ownerIndex_[std::size_t(v)] >= vtkIdType(fromWelded_.size()) ||
         fromWelded_[std::size_t(ownerIndex_[std::size_t(v)])] != v))
      throw Error("the ghost cell generator renumbered the piece's own points");
}

// Input points to vertices: through the weld, else (input ghost points, dropped with
// their cells) by key among the rebuilt ghosts.
void DistributedPiece::mapInputPoints(const Layers& layers, vtkDataSet* input,
                                      const std::vector<vtkIdType>& welds) {
  const KeyLess less{byIds_};
  std::vector<PointKey> sorted(static_cast<std::size_t>(layers.vertices));
  for (vtkIdType v = 0; v < layers.vertices; ++v)
    sorted[std::size_t(v)] = layers.keys[std::size_t(layers.unique[std::size_t(v)])];
  const vtkIdType inputPoints = input->GetNumberOfPoints();
  meshOf_.assign(std::size_t(inputPoints), -1);
  const std::vector<PointKey> inputKeys =
      keysOf(input, byIds_ ? usableGlobalIds(input) : nullptr, nullptr);
  for (vtkIdType i = 0; i < inputPoints; ++i) {
    vtkIdType v =
        welds[std::size_t(i)] >= 0 ? fromWelded_[std::size_t(welds[std::size_t(i)])] : -1;
    if (v < 0 && welds[std::size_t(i)] < 0) {
      auto at =
          std::lower_bound(sorted.begin(), sorted.end(), inputKeys[std::size_t(i)], less);
      if (at != sorted.end() && !less(inputKeys[std::size_t(i)], *at))
        v = vtkIdType(at - sorted.begin());
    }
    meshOf_[std::size_t(i)] = v;
    if (v >= 0 && owned_[std::size_t(v)] && inputOf_[std::size_t(v)] < 0)
      inputOf_[std::size_t(v)] = i;
  }
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
  const std::vector<vtkSmartPointer<vtkDataObject>> gathered =
      gatherToRoot(controller, own);
  try {
    if (rank == kResultRank) {
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
        const std::vector<vtkIdType> order =
            welding::sortedByKey(keysOf(result.whole, wholeIds, nullptr), true);
        std::vector<vtkIdType> newId(order.size());
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

} // namespace topogpu::vtk
