/**
 * @class   vtkTopoGPUMorseSmaleComplex
 * @brief   Morse-Smale complex of a point scalar on an image or a tet/triangle mesh
 *          (TopoGPU), TTK 1.2's outputs.
 *
 * Computes the complex in core/morse_smale_complex (by default the simplicial one,
 * TTK's; Complex = Cubical takes the cubical complex of an image) and copies the core's
 * output records (core/morse_smale_complex/OutputRecords.h) into TTK
 * MorseSmaleComplex's four ports, with its types and array names:
 *
 * - port 0, critical points (vtkPolyData of vertices at the cells' barycentres):
 *   CellDimension, CellId, the input scalar's name (the cell's value, the input's
 *   type), IsOnBoundary, ttkVertexScalarField, ManifoldSize, and IsBoundaryMaximum;
 * - port 1, 1-separatrices (vtkPolyData, TTK's line cells: one per V-path step, the
 *   separatrix's cell data on each, one SeparatrixId per V-path): point data
 *   ttkMaskScalarField, CellDimension, CellId; cell data SourceId, DestinationId,
 *   SeparatrixId, SeparatrixType, SeparatrixFunctionMaximum/Minimum/Difference
 *   (double), NumberOfCriticalPointsOnBoundary, Multiplicity;
 * - port 2, 2-separatrices (vtkPolyData of polygons; 3D, both complexes, tet meshes):
 *   cell data SourceId, SeparatrixId, SeparatrixType, SeparatrixFunctionMaximum/
 *   Minimum/Difference (double), NumberOfCriticalPointsOnBoundary;
 * - port 3, segmentation: the input with the point arrays DescendingManifold,
 *   AscendingManifold, MorseSmaleManifold and the cell array AscendingManifold.
 *
 * See docs/filters/morse-smale-complex.md. Distributed runs (pvbatch --mpi):
 * whole-domain mode, as the discrete gradient: the field is gathered to rank 0, which
 * outputs the complex of the whole domain.
 */
#ifndef vtkTopoGPUMorseSmaleComplex_h
#define vtkTopoGPUMorseSmaleComplex_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUComplexAlgorithm.h"

#include <memory>

#ifndef __VTK_WRAP__
namespace topogpu::vtk {
struct MscCache;
}
#endif

class TOPOGPUFILTERS_EXPORT vtkTopoGPUMorseSmaleComplex
    : public vtkTopoGPUComplexAlgorithm {
public:
  static vtkTopoGPUMorseSmaleComplex* New();
  vtkTypeMacro(vtkTopoGPUMorseSmaleComplex, vtkTopoGPUComplexAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  ///@{
  /** Output switches, TTK's names. Default: on, except ComputeSaddleConnectors (the
   * expensive stage 3, as TTK) and the 2-separatrices (large, off in TTK too). */
  vtkSetMacro(ComputeCriticalPoints, bool);
  vtkGetMacro(ComputeCriticalPoints, bool);
  vtkSetMacro(ComputeAscendingSeparatrices1, bool);
  vtkGetMacro(ComputeAscendingSeparatrices1, bool);
  vtkSetMacro(ComputeDescendingSeparatrices1, bool);
  vtkGetMacro(ComputeDescendingSeparatrices1, bool);
  vtkSetMacro(ComputeSaddleConnectors, bool);
  vtkGetMacro(ComputeSaddleConnectors, bool);
  vtkSetMacro(ComputeAscendingSeparatrices2, bool);
  vtkGetMacro(ComputeAscendingSeparatrices2, bool);
  vtkSetMacro(ComputeDescendingSeparatrices2, bool);
  vtkGetMacro(ComputeDescendingSeparatrices2, bool);
  vtkSetMacro(ComputeAscendingSegmentation, bool);
  vtkGetMacro(ComputeAscendingSegmentation, bool);
  vtkSetMacro(ComputeDescendingSegmentation, bool);
  vtkGetMacro(ComputeDescendingSegmentation, bool);
  vtkSetMacro(ComputeFinalSegmentation, bool);
  vtkGetMacro(ComputeFinalSegmentation, bool);
  ///@}

  /** The simplicial complex's AscendingManifold: off (default), TTK 1.2's rule (an
   * ascending path leaving through the boundary, and the vertices whose first star cell
   * takes one, unlabelled: -1); on, every vertex labelled, such paths going on over the
   * boundary facets to a boundary maximum (the cubical complex's rule). */
  vtkSetMacro(AscendingThroughBoundary, bool);
  vtkGetMacro(AscendingThroughBoundary, bool);

  // Complex, Triangulation (an image stored as a mesh runs the simplicial complex; the
  // same output whichever is chosen) and MemoryBudget: vtkTopoGPUComplexAlgorithm.

  /**
   * Simplicial complex: the complex of the field simplified at this persistence
   * (absolute, in the field's units), answered from the cancellation hierarchy kept for
   * the field, so changing only this never recomputes the gradient. -1 (the default):
   * automatic, the smallest threshold that leaves at most 20 minima and 20 maxima;
   * 0: the whole complex. Any other negative value or NaN is an error.
   */
  void SetPersistenceThreshold(double threshold);
  vtkGetMacro(PersistenceThreshold, double);
  /** The threshold the last run used (the automatic one's value). */
  vtkGetMacro(PersistenceThresholdUsed, double);
  /** [0, the largest finite extremum-saddle persistence] after a thresholded run. */
  vtkGetVector2Macro(PersistenceRange, double);
  /** How many times this filter computed a Morse-Smale complex (tests, benchmarks). */
  vtkGetMacro(ComplexComputations, int);

protected:
  vtkTopoGPUMorseSmaleComplex();
  ~vtkTopoGPUMorseSmaleComplex() override;

  int FillOutputPortInformation(int port, vtkInformation* info) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif

private:
  vtkTopoGPUMorseSmaleComplex(const vtkTopoGPUMorseSmaleComplex&) = delete;
  void operator=(const vtkTopoGPUMorseSmaleComplex&) = delete;

  bool ComputeCriticalPoints = true;
  bool ComputeAscendingSeparatrices1 = true;
  bool ComputeDescendingSeparatrices1 = true;
  // Saddle-saddle arcs (stage 3, SeparatrixType 1): not computed yet.
  bool ComputeSaddleConnectors = false;
  bool ComputeAscendingSeparatrices2 = false;
  bool ComputeDescendingSeparatrices2 = false;
  bool ComputeAscendingSegmentation = true;
  bool ComputeDescendingSegmentation = true;
  bool ComputeFinalSegmentation = true;
  bool AscendingThroughBoundary = false;
  // The 2-separatrices' cell limit; 0: the core's default. Tests lower it with
  // TOPOGPU_SEPARATRICES2_MAX_CELLS, read when the filter is made.
  unsigned long long Separatrices2MaxCells = 0;
  double PersistenceThreshold = -1;
  double PersistenceThresholdUsed = 0;
  double PersistenceRange[2] = {0, 0};
  int ComplexComputations = 0;
  // The filter's modification time after the last threshold change and after the last
  // run: the cache serves a run only if nothing else modified the filter since.
  vtkMTimeType ThresholdMTime = 0, CacheMTime = 0;
#ifndef __VTK_WRAP__
  std::unique_ptr<topogpu::vtk::MscCache> Cache;
#endif

#ifndef __VTK_WRAP__
  void ComputeSimplicial(topogpu::vtk::FilterRun& run);
#endif
};

#endif
