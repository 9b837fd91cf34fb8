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
#include "vtkTopoGPUAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPUPersistenceDiagram : public vtkTopoGPUAlgorithm {
public:
  static vtkTopoGPUPersistenceDiagram* New();
  vtkTypeMacro(vtkTopoGPUPersistenceDiagram, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  enum { COMPLEX_CUBICAL = 0, COMPLEX_SIMPLICIAL = 1 };
  /** The cell complex of image data (Simplicial, TTK's, the default); meshes always use
   * the simplicial one. */
  vtkSetClampMacro(Complex, int, COMPLEX_CUBICAL, COMPLEX_SIMPLICIAL);
  vtkGetMacro(Complex, int);
  /** Triangulation backend of the simplicial complex: 0 Auto, 1 Explicit, 2 GALE with GPU
   * producers, 3 GALE with CPU producers. The same diagram whichever is chosen. */
  vtkSetClampMacro(Triangulation, int, 0, 3);
  vtkGetMacro(Triangulation, int);
  // Host memory the simplicial complex may use, in MiB; 0 (the default): the memory
  // available when the run starts. A run whose estimate is larger is refused with it.
  vtkSetMacro(MemoryBudget, double);
  vtkGetMacro(MemoryBudget, double);

protected:
  vtkTopoGPUPersistenceDiagram();
  ~vtkTopoGPUPersistenceDiagram() override;

  int FillOutputPortInformation(int port, vtkInformation* info) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif
  bool NeedsWholeDomain() const override {
    return true;
  }
  // The Morse-Smale complex's (gradient, vertex order, labels).
  double WholeDomainBytesPerPoint() const override {
    return 72.0;
  }
  int TriangulationChoice() const override {
    return this->Triangulation;
  }
  bool TriangulationRandomAccess() const override {
    return true;
  }

private:
  vtkTopoGPUPersistenceDiagram(const vtkTopoGPUPersistenceDiagram&) = delete;
  void operator=(const vtkTopoGPUPersistenceDiagram&) = delete;

  int Complex = COMPLEX_SIMPLICIAL;
  int Triangulation = 0;
  double MemoryBudget = 0;
};

#endif
