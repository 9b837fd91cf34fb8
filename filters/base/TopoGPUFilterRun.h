// What vtkTopoGPUAlgorithm prepares for a module's filter before its core call: the
// input, the chosen point scalar as a typed view, the (cached) triangulation, the
// backend, a Monitor wired to VTK's progress and abort, the piece ownership of a
// distributed run, and the RunReport the base class writes to the output's field data.
#pragma once

#include "TopoGPUDataSetAdaptor.h"

#include "base/ScalarArray.h"
#include "base/Types.h"
#include "core/common/VertexOrder.h"

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

class vtkDataArray;
class vtkDataObject;
class vtkDataSet;
class vtkInformation;
class vtkInformationVector;
class vtkUnsignedCharArray;

namespace topogpu::vtk {

// Which points of this piece it outputs. Ghost points belong to another piece. Pieces
// of an image also share the points of their common face; the piece on the far side
// owns them, so the near piece drops its last non-ghost layer wherever that layer is not
// the whole extent's far face.
class PieceOwnership {
public:
  PieceOwnership(vtkDataSet* input, vtkInformation* inputInfo);
  bool owns(vtkIdType v) const;

private:
  bool isGhost(vtkIdType v) const;

  vtkUnsignedCharArray* ghosts_;
  bool isImage_ = false;
  int dims_[3] = {1, 1, 1};
  int lastOwned_[3] = {0, 0, 0};
};

class DistributedPiece;

struct FilterRun {
  vtkDataSet* input = nullptr;
  vtkDataObject* inputObject = nullptr; // the input, also when not a vtkDataSet
  vtkInformationVector** inputVector = nullptr;
  vtkInformationVector* outputVector = nullptr;
  vtkDataArray* scalars = nullptr; // the chosen point scalar (never a vtkBitArray)
  ScalarArrayView values;
  // The vertex order given with the scalar (TTK's `<name>_Order` point array, checked),
  // which values.order points into, and that array's name; empty when there is none.
  std::vector<SimplexId> givenOrder;
  std::string orderArray;
  AnyTriangulation* triangulation = nullptr;
  Backend backend = Backend::Auto;
  // Maps the core's own 0..1 onto the part of the progress bar left for it.
  Monitor monitor;
  // The field's vertex order, shared by the filters (sorted once per field): for the
  // modules' Parameters::vertexOrder and any later use of the order.
  VertexOrderSource vertexOrder;
  const PieceOwnership* ownership = nullptr;
  // LocalResult modules in a distributed run on meshes: the rebuilt piece (run.input is
  // its mesh), else null.
  const DistributedPiece* piece = nullptr;
  // Filled by the module from its core output; written to field data by the base.
  RunReport report;

  // Calls f(triangulation&) with the concrete triangulation type.
  template <typename F> decltype(auto) visit(F&& f) {
    return topogpu::vtk::visit(*triangulation, std::forward<F>(f));
  }
  // The same, GALE included (modules with a GALE path).
  template <typename F> decltype(auto) visitWithGale(F&& f) {
    return topogpu::vtk::visitWithGale(*triangulation, std::forward<F>(f));
  }
  // Modules with a GALE path, after their core call: the warnings of a GALE producer
  // that failed during the run (CPU producers took over) to report (not the missing GPU
  // producer: said when the triangulation was built).
  void addGaleRunWarnings() {
    if (auto* gale = std::get_if<std::shared_ptr<GaleTriangulation>>(triangulation))
      for (Warning& warning : (*gale)->warnings())
        if (warning.code != WarningCode::GaleNoGpuProducer)
          report.warnings.push_back(std::move(warning));
  }
};

} // namespace topogpu::vtk
