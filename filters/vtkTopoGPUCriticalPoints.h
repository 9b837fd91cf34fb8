/**
 * @class   vtkTopoGPUCriticalPoints
 * @brief   Critical points of a piecewise-linear scalar field (TopoGPU).
 *
 * Classifies every vertex of a triangulated domain by the connected components of its
 * lower and upper links (TTK's ScalarFieldCriticalPoints), with ties broken by vertex
 * id, and outputs the non-regular vertices as a vtkPolyData of vertex cells.
 *
 * Input: vtkImageData (2D or 3D, Freudenthal split), vtkUnstructuredGrid of tets or
 * vtkPolyData of triangles, with a one-component point scalar chosen through
 * SetInputArrayToProcess(0, 0, 0, vtkDataObject::FIELD_ASSOCIATION_POINTS, name).
 * Meshes holding other cells too keep only their tets (else triangles); the skipped cells
 * are counted in a warning.
 *
 * Output point data: "CriticalType" (signed char: 0 minimum, 1 1-saddle, 2 2-saddle,
 * 3 maximum, 4 degenerate), "IsOnBoundary" (signed char 0/1), the input scalar (same
 * name and type) and "ttkVertexScalarField" (vtkIdType input vertex id). Field data:
 * "TopoGPUBackend" (string, backend that ran), "TopoGPUTime" (double, seconds),
 * "TopoGPUTimingStages" (strings) with the parallel "TopoGPUTimings" (double, seconds).
 *
 * Distributed runs: one ghost layer is requested upstream and ghost points are not
 * output. Ties are broken by the local index, which orders a piece of an image like the
 * whole (both are (z, y, x) lexicographic), so image pieces reproduce the serial result.
 *
 * Bad input (missing or multi-component array, NaN/Inf values, empty or 1D data, no
 * triangles or tets) is reported with vtkErrorMacro and gives an empty output; the
 * request still succeeds, so a pipeline is never left in a failed state.
 */
#ifndef vtkTopoGPUCriticalPoints_h
#define vtkTopoGPUCriticalPoints_h

#include "TopoGPUFiltersModule.h"

#include <vtkPolyDataAlgorithm.h>

#include <memory>

class TOPOGPUFILTERS_EXPORT vtkTopoGPUCriticalPoints : public vtkPolyDataAlgorithm {
public:
  static vtkTopoGPUCriticalPoints* New();
  vtkTypeMacro(vtkTopoGPUCriticalPoints, vtkPolyDataAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  enum BackendChoice { BACKEND_AUTO = 0, BACKEND_CPU = 1, BACKEND_GPU = 2 };

  ///@{
  /**
   * Processor that runs the classification: 0 auto, 1 CPU, 2 GPU. Default: 0 (auto).
   * GPU on a mesh, or without a usable device, falls back to the CPU with a warning.
   */
  vtkSetClampMacro(Backend, int, BACKEND_AUTO, BACKEND_GPU);
  vtkGetMacro(Backend, int);
  ///@}

protected:
  vtkTopoGPUCriticalPoints();
  ~vtkTopoGPUCriticalPoints() override;

  int FillInputPortInformation(int port, vtkInformation* info) override;
  // Asks for one layer of ghost points: in a distributed run (pvbatch/pvserver with MPI)
  // a vertex on a piece border then sees its whole link, and ghost points are left out
  // of the output, so the pieces together give the serial answer.
  int RequestUpdateExtent(vtkInformation* request, vtkInformationVector** inputVector,
                          vtkInformationVector* outputVector) override;
  int RequestData(vtkInformation* request, vtkInformationVector** inputVector,
                  vtkInformationVector* outputVector) override;

private:
  vtkTopoGPUCriticalPoints(const vtkTopoGPUCriticalPoints&) = delete;
  void operator=(const vtkTopoGPUCriticalPoints&) = delete;

  int Backend = BACKEND_AUTO;

  // The triangulation of the last input, reused while its connectivity is unchanged
  // (explicit meshes build their relations once, which dominates a rerun).
  struct TriangulationCache;
  std::unique_ptr<TriangulationCache> Cache;
};

#endif
