/**
 * @class   vtkTopoGPUDiscreteGradient
 * @brief   Critical cells of the discrete gradient of a scalar field (TopoGPU).
 *
 * Complex = Cubical (images only, the default):
 * Computes the discrete gradient of a point scalar on the cubical complex of a
 * vtkImageData (vertices, edges, squares, voxels) by the lower-star method of Robins,
 * Wood and Sheppard, ties broken by vertex id, and outputs its critical cells as a
 * vtkPolyData of vertex cells at the cells' centres. An axis of one point is squeezed
 * (2D).
 *
 * Complex = Simplicial (and always on vtkUnstructuredGrid / vtkPolyData tet or
 * triangle meshes): the gradient on the simplices (vertices, edges, triangles, tets; an
 * image is split into TTK's Freudenthal tets), as TTK's DiscreteGradient, so the
 * critical cells are TTK's MorseSmaleComplex critical points. Outputs the points at
 * the critical simplices' barycentres with "CellDimension", "CellId" (the simplex id
 * in its dimension) and "HighestVertexId" (its vertex highest in the vertex order).
 *
 * Output point data: "CellDimension" (signed char 0..3: minimum, 1-saddle, 2-saddle,
 * maximum; the active scalars), "CellId" (vtkIdType, the cell's id among the cells of
 * its dimension, see docs/filters/discrete-gradient.md) and "RefinedCellId" (vtkIdType,
 * the cell's id on the (2nx-1)(2ny-1)(2nz-1) refined grid). Field data: see
 * vtkTopoGPUAlgorithm, plus "CriticalCellCounts" (n0 n1 n2 n3).
 *
 * Distributed runs (pvbatch --mpi): the gradient pairs cells across piece borders, so
 * the filter runs in whole-domain mode: the field (an image's, or a mesh's pieces,
 * welded) is gathered to rank 0, which outputs the critical cells of the whole domain;
 * the other ranks output an empty vtkPolyData (field data "TopoGPUResultRank" = 0
 * everywhere).
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

  enum { COMPLEX_CUBICAL = 0, COMPLEX_SIMPLICIAL = 1 };
  // The cell complex of image data; meshes always use the simplicial one.
  vtkSetClampMacro(Complex, int, COMPLEX_CUBICAL, COMPLEX_SIMPLICIAL);
  vtkGetMacro(Complex, int);
  // Triangulation backend of the simplicial complex: 0 Auto (implicit for images,
  // explicit for meshes), 1 Explicit, 2 GALE with GPU producers, 3 GALE with CPU
  // producers; an image stored as a mesh runs the simplicial complex. Same output.
  vtkSetClampMacro(Triangulation, int, 0, 3);
  vtkGetMacro(Triangulation, int);

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
  // The vertex order (8 bytes) and one gradient byte per cell: 8 cubical cells per
  // vertex, or 26 simplices (1 vertex, 7 edges, 12 triangles, 6 tets).
  double WholeDomainBytesPerPoint() const override {
    return this->Complex == COMPLEX_SIMPLICIAL ? 34.0 : 16.0;
  }
  int TriangulationChoice() const override {
    return this->Triangulation;
  }

private:
#ifndef __VTK_WRAP__
  void ComputeSimplicial(topogpu::vtk::FilterRun& run);
#endif
  int Complex = COMPLEX_CUBICAL;
  int Triangulation = 0;

  vtkTopoGPUDiscreteGradient(const vtkTopoGPUDiscreteGradient&) = delete;
  void operator=(const vtkTopoGPUDiscreteGradient&) = delete;
};

#endif
