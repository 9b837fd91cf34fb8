/**
 * @class   vtkTopoGPUComplexAlgorithm
 * @brief   Base class of the TopoGPU filters that compute on a cell complex of the
 *          whole field (discrete gradient, Morse-Smale complex, persistence diagram).
 *
 * Holds the properties these filters share, with one meaning in each:
 *
 * - Complex: the cell complex of image data, COMPLEX_SIMPLICIAL (TTK's, the default) or
 *   COMPLEX_CUBICAL; meshes, and images stored as meshes, always take the simplicial
 *   one (UsesCubicalComplex);
 * - Triangulation: the simplicial complex's backend, 0 Auto (implicit for images,
 *   explicit for meshes), 1 Explicit, 2 GALE with GPU producers, 3 GALE with CPU
 *   producers; the same output whichever is chosen;
 * - MemoryBudget: the host memory the simplicial complex may use, in MiB; 0 (the
 *   default), the memory available when the run starts. A run whose estimate is larger
 *   is refused with it.
 *
 * The result pairs cells across piece borders, so these filters run in whole-domain
 * mode (vtkTopoGPUAlgorithm::NeedsWholeDomain), with the Morse-Smale complex's memory
 * per point (WholeDomainBytesPerPoint; the discrete gradient needs less).
 */
#ifndef vtkTopoGPUComplexAlgorithm_h
#define vtkTopoGPUComplexAlgorithm_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPUComplexAlgorithm : public vtkTopoGPUAlgorithm {
public:
  vtkTypeMacro(vtkTopoGPUComplexAlgorithm, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  enum { COMPLEX_CUBICAL = 0, COMPLEX_SIMPLICIAL = 1 };
  /** The cell complex of image data (Simplicial, TTK's, the default); meshes always use
   * the simplicial one. */
  vtkSetClampMacro(Complex, int, COMPLEX_CUBICAL, COMPLEX_SIMPLICIAL);
  vtkGetMacro(Complex, int);
  /** Triangulation backend of the simplicial complex: 0 Auto, 1 Explicit, 2 GALE with GPU
   * producers, 3 GALE with CPU producers. */
  vtkSetClampMacro(Triangulation, int, 0, 3);
  vtkGetMacro(Triangulation, int);
  /** Host memory the simplicial complex may use, in MiB; 0 (the default): the memory
   * available when the run starts. */
  vtkSetMacro(MemoryBudget, double);
  vtkGetMacro(MemoryBudget, double);

protected:
  vtkTopoGPUComplexAlgorithm();
  ~vtkTopoGPUComplexAlgorithm() override;

  bool NeedsWholeDomain() const override { return true; }
  // What the Morse-Smale complex (the persistence diagram's too) takes on rank 0 per
  // point: the gradient's 16 bytes, the vertex order and roots (3 x 8), labels (4 x 8).
  double WholeDomainBytesPerPoint() const override { return 72.0; }
  int TriangulationChoice() const override { return this->Triangulation; }
#ifndef __VTK_WRAP__
  // Whether this run takes the cubical complex: Complex = Cubical on an image (the
  // cubical complex needs the implicit grid; meshes and images stored as meshes take the
  // simplicial one).
  bool UsesCubicalComplex(const topogpu::vtk::FilterRun& run) const;
  // MemoryBudget in bytes for the core (TopoGPUMemoryBudget.h); Error when negative.
  double MemoryBudgetBytes() const;
#endif

  int Complex = COMPLEX_SIMPLICIAL;
  int Triangulation = 0;
  double MemoryBudget = 0;

private:
  vtkTopoGPUComplexAlgorithm(const vtkTopoGPUComplexAlgorithm&) = delete;
  void operator=(const vtkTopoGPUComplexAlgorithm&) = delete;
};

#endif
