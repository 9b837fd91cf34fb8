// A distributed run (pvbatch --mpi, pvserver) of a module whose result at a vertex
// depends on the vertex's star only (critical points, smoother): this rank's piece of a
// mesh made whole around its vertices, whatever way the data was split.
//
// Pieces come with ghost cells or without (RedistributeDataSet), with border points
// duplicated on both sides (D3) or inside one piece (cells of two source pieces), so
// none of that is trusted: the piece's non-ghost cells are kept, its points with the same
// global id (else the same place, within rounding) welded into one vertex, and the ghost
// layers rebuilt across ranks by VTK's vtkGhostCellsGenerator, which leaves every point
// non-ghost on exactly one rank (its owner). The vertices are then numbered in one order
// shared by every rank (global point ids, else coordinates), so that ties of the scalar
// are broken alike everywhere, and the owners are known, so that values on ghost
// vertices can be refreshed from them (exchange).
#pragma once

#include <vtkSmartPointer.h>
#include <vtkType.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class vtkDataArray;
class vtkDataSet;
class vtkMultiProcessController;
class vtkPointSet;
class vtkPolyData;
class vtkUnsignedCharArray;

namespace topogpu::vtk {

// Point p is a copy of a point another piece owns (DUPLICATEPOINT in the ghost array;
// no array: none is).
bool isGhostPoint(vtkUnsignedCharArray* ghosts, vtkIdType p);

class DistributedPiece {
public:
  // Collective over every rank of controller: every rank calls it, whatever its piece
  // (empty, null). Meshes (vtkPolyData, vtkUnstructuredGrid) get ghostLayers (>= 1)
  // layers; returns nullptr for images, whose pieces the pipeline splits with ghost
  // layers (see PieceOwnership). When a piece is unusable (or every piece is empty),
  // throws on every rank as agree() does.
  static std::unique_ptr<DistributedPiece> build(vtkMultiProcessController* controller,
                                                 vtkDataSet* input, int ghostLayers);

  ~DistributedPiece();

  // Collective, for a module that needs the whole domain (a discrete gradient): every
  // rank's piece of a mesh without its ghost cells, gathered to rank 0 and its points
  // welded as build() does, in global-id order when every piece has ids. meshes is false
  // on every rank when no rank holds a mesh (images are gathered otherwise); whole is
  // the mesh on rank 0, null elsewhere. Throws as agree().
  struct Gathered {
    bool meshes = false;
    vtkSmartPointer<vtkDataSet> whole;
  };
  static Gathered gatherMesh(vtkMultiProcessController* controller, vtkDataSet* input);

  // Not collective, for a module that needs the whole point cloud (Rips persistence):
  // the gathered point sets' non-ghost points as one cloud without cells, the copies a
  // split makes of a point welded into one as gatherMesh() does (by global id when every
  // set has them, else by place within the same tolerance), in global-id order, else in
  // the order of the sets (each point where it first comes). The global ids are kept.
  static vtkSmartPointer<vtkPolyData> weldPoints(const std::vector<vtkPointSet*>& sets);

  // The welded piece with its ghost layers, vertices in the shared order; the input's
  // point arrays carried over (the ghost points' values from their owners).
  vtkDataSet* mesh() const { return mesh_; }
  // This rank's input piece, as it came.
  vtkDataSet* input() const { return input_; }
  // The array of mesh() carried over from the input's point array inputArray (by name;
  // an unnamed one can only be the active scalars). Throws Error when there is none.
  vtkDataArray* carried(vtkDataArray* inputArray) const;
  // Whether vertex v of mesh() is reported by this rank (not a ghost).
  bool owns(vtkIdType v) const { return owned_[std::size_t(v)] != 0; }
  // An input point at owned vertex v's place, or -1 for ghosts.
  vtkIdType inputPoint(vtkIdType v) const { return inputOf_[std::size_t(v)]; }
  // The vertex of mesh() at input point i's place, or -1 when the mesh has none there
  // (an input ghost point beyond the rebuilt layers).
  vtkIdType meshPoint(vtkIdType i) const { return meshOf_[std::size_t(i)]; }
  // Whether the shared order comes from global point ids (else from coordinates).
  bool orderedByGlobalIds() const { return byIds_; }

  // Collective: copies every ghost vertex's value from its owner (values: one of
  // valueBytes bytes per vertex of mesh(), any type, moved as bytes so that no value is
  // rounded; may be null on a rank with an empty mesh). localError non-empty (this rank
  // failed) or aborted on any rank stops every rank here, as agree() does.
  void exchange(void* values, std::size_t valueBytes, const std::string& localError,
                bool aborted) const;

  // Collective: every rank learns whether one failed or aborted. Rank 0 then throws
  // Error with the first failing rank's message (prefixed "rank r: "), the others
  // Aborted (an empty output); on an abort alone, Aborted everywhere.
  static void agree(vtkMultiProcessController* controller, const std::string& localError,
                    bool aborted);

private:
  DistributedPiece() = default;
  // build()'s steps on the ghost generator's output (TopoGPUDistributedPiece.cxx).
  struct Layers;
  void numberVertices(Layers& layers);
  void findOwners(const Layers& layers, int rank);
  void mapWeldedPoints(const Layers& layers, vtkDataSet* own);
  void mapInputPoints(const Layers& layers, vtkDataSet* input,
                      const std::vector<vtkIdType>& welds);
  // The exchange's plan (TopoGPUGhostExchange.cxx).
  void planExchange();

  vtkMultiProcessController* controller_ = nullptr;
  vtkSmartPointer<vtkDataSet> input_;
  vtkSmartPointer<vtkDataSet> mesh_;
  bool byIds_ = false;
  std::vector<char> owned_;
  std::vector<vtkIdType> inputOf_;
  std::vector<vtkIdType> meshOf_;
  // Each vertex's owner rank and its index in the owner's welded piece; this rank's
  // welded points to their vertices.
  std::vector<int> owner_;
  std::vector<vtkIdType> ownerIndex_;
  std::vector<vtkIdType> fromWelded_;
  // Ghost vertices by owner rank, and the owned vertices each rank asked this one for,
  // in the order of its request.
  std::vector<std::vector<vtkIdType>> receives_;
  std::vector<std::vector<vtkIdType>> sends_;
  std::string planError_;
};

} // namespace topogpu::vtk
