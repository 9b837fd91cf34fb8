/**
 * @class   vtkTopoGPUPersistenceDiagram
 * @brief   Persistence diagram of a point scalar on an image or a tet/triangle mesh
 *          (TopoGPU), TTK 1.2's PersistenceDiagram output.
 *
 * Runs core/persistence_diagram (the Discrete Morse Sandwich on the simplicial
 * Morse-Smale complex, TTK's complex, by default; Complex = Cubical takes the cubical
 * complex of an image) and copies its records:
 *
 * - port 0, the diagram as ttkPersistenceDiagram writes it (TopoGPUDiagramLayout.h): a
 *   vtkUnstructuredGrid with one line cell per pair from (birth, birth) to (birth,
 *   death), cell arrays PairIdentifier, PairType, Persistence, Birth, Death, IsFinite,
 *   point arrays ttkVertexScalarField, CriticalType, Coordinates (the critical vertex's
 *   position in the input); the last cell is the diagonal (PairIdentifier -1);
 * - port 1, the persistence curve as a vtkTable: Persistence (each finite pair's value,
 *   increasing, distinct) and per TTK PersistenceCurve output "Number Of Pairs
 *   (minimum-saddle pairs)", "(saddle-saddle pairs)", "(saddle-maximum pairs)" and
 *   "(all pairs)": the finite pairs of at least that persistence.
 *
 * See docs/filters/persistence-diagram.md. Distributed runs (pvbatch --mpi):
 * whole-domain mode, the field is gathered to rank 0, which outputs the diagram.
 */
#ifndef vtkTopoGPUPersistenceDiagram_h
#define vtkTopoGPUPersistenceDiagram_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUComplexAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPUPersistenceDiagram
    : public vtkTopoGPUComplexAlgorithm {
public:
  static vtkTopoGPUPersistenceDiagram* New();
  vtkTypeMacro(vtkTopoGPUPersistenceDiagram, vtkTopoGPUComplexAlgorithm);

  // Complex, Triangulation (the same diagram whichever is chosen) and MemoryBudget:
  // vtkTopoGPUComplexAlgorithm.

protected:
  vtkTopoGPUPersistenceDiagram();
  ~vtkTopoGPUPersistenceDiagram() override;

  int FillOutputPortInformation(int port, vtkInformation* info) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif

private:
  vtkTopoGPUPersistenceDiagram(const vtkTopoGPUPersistenceDiagram&) = delete;
  void operator=(const vtkTopoGPUPersistenceDiagram&) = delete;
};

#endif
