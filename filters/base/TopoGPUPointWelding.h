// Point welding for distributed meshes (TopoGPUDistributedPiece.h): which points of the
// pieces are one point of the data (equal global ids, else the same place within a few
// units in the last place), a piece without its ghost cells and with its copies of a
// point welded, and the shared order of the welded points. Internal to filters/base.
#pragma once

#include <vtkSmartPointer.h>
#include <vtkType.h>

#include <algorithm>
#include <cstdint>
#include <vector>

class vtkDataArray;
class vtkDataSet;
class vtkMultiProcessController;
class vtkUnsignedCharArray;

namespace topogpu::vtk::welding {

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
vtkDataArray* usableGlobalIds(vtkDataSet* set);

// Keys of set's points: ids, else the coordinates in `points` (3 components), else the
// points' own.
std::vector<PointKey> keysOf(vtkDataSet* set, vtkDataArray* ids, vtkDataArray* points);

bool isGhostCell(vtkUnsignedCharArray* ghosts, vtkIdType c);

// A new data set of set's type holding the given points of set (in that order, with
// their point data) and cells made of the given cells' points renumbered by newId.
vtkSmartPointer<vtkDataSet> remeshed(vtkDataSet* set,
                                     const std::vector<vtkIdType>& points,
                                     const std::vector<vtkIdType>& cells,
                                     const std::vector<vtkIdType>& newId);

// The points of set in the order of their keys (sorted by KeyLess{byIds}).
std::vector<vtkIdType> sortedByKey(const std::vector<PointKey>& keys, bool byIds);

// Which input points are one point: equal global ids, else coordinates within
// tolerance. Returns a representative input point for each.
std::vector<vtkIdType> weldMap(vtkDataSet* input, vtkDataArray* ids, double tolerance);

// The piece without its ghost cells, its points welded (the points no kept cell uses
// are dropped), with their global ids in kOwnerId and, when tagged, each carrying this
// rank as its owner, its index and its coordinates. welds receives, for each input
// point, its point of the result or -1.
vtkSmartPointer<vtkDataSet> welded(vtkDataSet* input, vtkDataArray* ids, double tolerance,
                                   int rank, std::vector<vtkIdType>& welds,
                                   bool tagged = true);

// The machine epsilon of set's point type (float's for single precision).
double pointEpsilon(vtkDataSet* set);
double largestCoordinate(vtkDataSet* set);
// kWeldUlps units in the last place of the largest coordinate, at the given epsilon.
double weldTolerance(double largest, double epsilon);
// Collective: the weld tolerance of every piece, that of the largest coordinate of any
// piece in the coarsest point type of any piece.
double weldTolerance(vtkMultiProcessController* controller, vtkDataSet* input, bool mesh);

} // namespace topogpu::vtk::welding
