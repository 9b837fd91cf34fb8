#include "TopoGPUPointWelding.h"

#include "TopoGPUDistributedPiece.h"

#include "base/Types.h"

#include <vtkCellData.h>
#include <vtkCommunicator.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkDataSetAttributes.h>
#include <vtkDoubleArray.h>
#include <vtkIdList.h>
#include <vtkIdTypeArray.h>
#include <vtkIntArray.h>
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
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

namespace topogpu::vtk {

namespace welding {

namespace {

// D3 numbers the points itself under this name when its input has no global ids: an
// order of its own (it changes with the number of ranks), not the data's.
constexpr const char* kD3TemporaryIds = "___D3___GlobalNodeIds";
// Points of different pieces closer than this many units in the last place of the
// largest coordinate are one point: pieces made apart round a shared point apart.
constexpr double kWeldUlps = 16.0;

} // namespace

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

std::vector<vtkIdType> sortedByKey(const std::vector<PointKey>& keys, bool byIds) {
  std::vector<vtkIdType> order(keys.size());
  std::iota(order.begin(), order.end(), vtkIdType(0));
  const KeyLess less{byIds};
  std::sort(order.begin(), order.end(), [&](vtkIdType a, vtkIdType b) {
    return less(keys[std::size_t(a)], keys[std::size_t(b)]);
  });
  return order;
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
                                   int rank, std::vector<vtkIdType>& welds, bool tagged) {
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

} // namespace welding

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
    byIds = byIds && welding::usableGlobalIds(set) != nullptr;
    total += set->GetNumberOfPoints();
    epsilon = std::max(epsilon, welding::pointEpsilon(set));
  }
  auto all = vtkSmartPointer<vtkPolyData>::New();
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  points->Allocate(total);
  auto ids = vtkSmartPointer<vtkTypeInt64Array>::New();
  ids->SetName("GlobalPointIds");
  for (vtkPointSet* set : sets) {
    vtkUnsignedCharArray* ghosts = set->GetPointData()->GetGhostArray();
    vtkDataArray* setIds = byIds ? welding::usableGlobalIds(set) : nullptr;
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
  const std::vector<vtkIdType> map =
      welding::weldMap(all, byIds ? ids.Get() : nullptr,
                       welding::weldTolerance(welding::largestCoordinate(all), epsilon));
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
  return vtkPolyData::SafeDownCast(welding::remeshed(all, order, {}, newId));
}

} // namespace topogpu::vtk
