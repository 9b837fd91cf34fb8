/**
 * @class   vtkTopoGPUCriticalPoints
 * @brief   Critical points of a piecewise-linear scalar field (TopoGPU).
 *
 * Classifies every vertex of a triangulated domain by the connected components of its
 * lower and upper links (TTK's ScalarFieldCriticalPoints), with ties broken by vertex
 * id, and outputs the non-regular vertices as a vtkPolyData of vertex cells.
 *
 * Input: vtkImageData (2D or 3D, Freudenthal split), vtkUnstructuredGrid of tets or
 * vtkPolyData of triangles, with a one-component numeric point scalar chosen through
 * SetInputArrayToProcess(0, 0, 0, vtkDataObject::FIELD_ASSOCIATION_POINTS, name); without
 * a name, the active point scalars, else the first numeric point array (see
 * vtkTopoGPUAlgorithm). Meshes holding other cells too keep only their tets (else
 * triangles); the skipped cells are counted in a warning.
 *
 * Output point data: "CriticalType" (signed char: 0 minimum, 1 1-saddle, 2 2-saddle,
 * 3 maximum, 4 degenerate; the active scalars, with a categorical default colour map in
 * ParaView), "IsOnBoundary" (signed char 0/1), the input scalar (same name and type) and
 * "ttkVertexScalarField" (vtkIdType input vertex id). Field data: see
 * vtkTopoGPUAlgorithm.
 *
 * Distributed runs: every vertex is output by one rank only. Images: ghost points are
 * not output, and ties are broken by the local index, which orders a piece of an image
 * like the whole (both are (z, y, x) lexicographic), so image pieces reproduce the serial
 * result. Meshes: the piece is rebuilt with its own ghost layer, whatever the split
 * (TopoGPUDistributedPiece.h); ties are broken by point global ids, else by coordinates
 * (a warning counts the vertices where that may differ from a serial run), and
 * "ttkVertexScalarField" is the index in the rank's input piece.
 */
#ifndef vtkTopoGPUCriticalPoints_h
#define vtkTopoGPUCriticalPoints_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPUCriticalPoints : public vtkTopoGPUAlgorithm {
public:
  static vtkTopoGPUCriticalPoints* New();
  vtkTypeMacro(vtkTopoGPUCriticalPoints, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  ///@{
  /**
   * Triangulation backend for meshes: 0 Auto (implicit for images, explicit for
   * meshes), 1 Explicit, 2 GALE with GPU producers (CPU producers with a warning when
   * none is available), 3 GALE with CPU producers. Same output whichever is chosen.
   */
  vtkSetClampMacro(Triangulation, int, 0, 3);
  vtkGetMacro(Triangulation, int);
  ///@}

protected:
  vtkTopoGPUCriticalPoints();
  ~vtkTopoGPUCriticalPoints() override;

  int FillOutputPortInformation(int port, vtkInformation* info) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif
  int TriangulationChoice() const override {
    return this->Triangulation;
  }

private:
  vtkTopoGPUCriticalPoints(const vtkTopoGPUCriticalPoints&) = delete;
  void operator=(const vtkTopoGPUCriticalPoints&) = delete;

  int Triangulation = 0;
};

#endif
