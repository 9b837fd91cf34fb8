/**
 * @class   vtkTopoGPUDiscreteGradient
 * @brief   Critical cells of the discrete gradient of a grid scalar field (TopoGPU).
 *
 * Computes the discrete gradient of a point scalar on the cubical complex of a
 * vtkImageData (vertices, edges, squares, voxels) by the lower-star method of Robins,
 * Wood and Sheppard, ties broken by vertex id, and outputs its critical cells as a
 * vtkPolyData of vertex cells at the cells' centres. Images only: the cubical complex
 * does not exist on meshes (an error says so). An axis of one point is squeezed (2D).
 *
 * Output point data: "CellDimension" (signed char 0..3: minimum, 1-saddle, 2-saddle,
 * maximum; the active scalars), "CellId" (vtkIdType, the cell's id among the cells of
 * its dimension, see docs/filters/discrete-gradient.md) and "RefinedCellId" (vtkIdType,
 * the cell's id on the (2nx-1)(2ny-1)(2nz-1) refined grid). Field data: see
 * vtkTopoGPUAlgorithm, plus "CriticalCellCounts" (n0 n1 n2 n3).
 *
 * Distributed runs (pvbatch --mpi): the gradient pairs cells across piece borders, so
 * the filter runs in whole-domain mode: the field is gathered to rank 0, which outputs
 * the critical cells of the whole domain; the other ranks output an empty vtkPolyData
 * (field data "TopoGPUResultRank" = 0 everywhere).
 */
#ifndef vtkTopoGPUDiscreteGradient_h
#define vtkTopoGPUDiscreteGradient_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPUDiscreteGradient : public vtkTopoGPUAlgorithm {
public:
  static vtkTopoGPUDiscreteGradient* New();
  vtkTypeMacro(vtkTopoGPUDiscreteGradient, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

protected:
  vtkTopoGPUDiscreteGradient();
  ~vtkTopoGPUDiscreteGradient() override;

  int FillOutputPortInformation(int port, vtkInformation* info) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif
  bool NeedsWholeDomain() const override {
    return true;
  }
  // The vertex order (8 bytes) and one gradient byte per cell (8 cells per vertex).
  double WholeDomainBytesPerPoint() const override {
    return 16.0;
  }

private:
  vtkTopoGPUDiscreteGradient(const vtkTopoGPUDiscreteGradient&) = delete;
  void operator=(const vtkTopoGPUDiscreteGradient&) = delete;
};

#endif
