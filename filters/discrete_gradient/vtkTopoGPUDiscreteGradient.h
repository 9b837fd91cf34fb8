/**
 * @class   vtkTopoGPUDiscreteGradient
 * @brief   The discrete gradient of a scalar field, as TTK's DiscreteGradient (TopoGPU).
 *
 * Computes the discrete gradient of a point scalar by ProcessLowerStars (Robins, Wood and
 * Sheppard), ties broken by vertex id, on one of two cell complexes:
 *
 * - Complex = Simplicial (the default, and always on vtkUnstructuredGrid / vtkPolyData
 *   tet or triangle meshes): the simplices (vertices, edges, triangles, tets; an image
 *   is split into TTK's Freudenthal tets), as TTK's DiscreteGradient, so the critical
 *   cells are TTK's (and its MorseSmaleComplex's). Cells sit at their barycentres.
 * - Complex = Cubical (images only): the image's vertices, edges, squares and voxels (the
 *   gMSC paper's complex; fastest on the GPU; other critical cells than TTK's). Cells sit
 *   at their centres; an axis of one point is squeezed (2D).
 *
 * Port 0, the critical cells (vtkPolyData of vertex cells), with TTK 1.2's point arrays:
 * "CellDimension" (signed char 0..3: minimum, 1-saddle, 2-saddle, maximum; the active
 * scalars), "CellId" (vtkIdType, the cell's id among the cells of its dimension), the
 * input scalar (its name and type: the value at ttkVertexScalarField), "IsOnBoundary"
 * (signed char: that vertex is on the domain's boundary, TTK's rule) and
 * "ttkVertexScalarField" (vtkIdType: the cell's highest vertex in the vertex order, whose
 * lower star holds it). Cubical only: "RefinedCellId" (vtkIdType, the cell's id on the
 * (2nx-1)(2ny-1)(2nz-1) refined grid). Field data: see vtkTopoGPUAlgorithm, plus
 * "CriticalCellCounts" (n0 n1 n2 n3).
 *
 * Port 1, TTK's gradient glyphs (ComputeGradientGlyphs, on by default): one line per
 * gradient pair, from the lower cell's centre to its paired coface's, as a vtkPolyData:
 * point arrays "PairOrigin" (signed char: 0 at the lower cell, 1 at the coface), "CellId"
 * and "CellDimension" of the cell at that end; cell array "PairType" (signed char: the
 * lower cell's dimension; the active scalars). Pairs by type, then by the lower cell's
 * id, as TTK lists them. More than 2^25 pairs (some 2.3 GB of lines) leave port 1 empty
 * with a warning naming ComputeGradientGlyphs.
 *
 * Distributed runs (pvbatch --mpi): the gradient pairs cells across piece borders, so
 * the filter runs in whole-domain mode: the field (an image's, or a mesh's pieces,
 * welded) is gathered to rank 0, which outputs the complex of the whole domain; the
 * other ranks output empty vtkPolyData (field data "TopoGPUResultRank" = 0 everywhere).
 */
#ifndef vtkTopoGPUDiscreteGradient_h
#define vtkTopoGPUDiscreteGradient_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUComplexAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPUDiscreteGradient
    : public vtkTopoGPUComplexAlgorithm {
public:
  static vtkTopoGPUDiscreteGradient* New();
  vtkTypeMacro(vtkTopoGPUDiscreteGradient, vtkTopoGPUComplexAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  // Complex, Triangulation (an image stored as a mesh runs the simplicial complex; the
  // same output whichever is chosen) and MemoryBudget: vtkTopoGPUComplexAlgorithm.

  // Port 1: the gradient pairs as lines (TTK's ComputeGradientGlyphs, on by default).
  vtkSetMacro(ComputeGradientGlyphs, bool);
  vtkGetMacro(ComputeGradientGlyphs, bool);
  vtkBooleanMacro(ComputeGradientGlyphs, bool);

protected:
  vtkTopoGPUDiscreteGradient();
  ~vtkTopoGPUDiscreteGradient() override;

  int FillOutputPortInformation(int port, vtkInformation* info) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif
  // The vertex order (8 bytes) and one gradient byte per cell: 8 cubical cells per
  // vertex, or 26 simplices (1 vertex, 7 edges, 12 triangles, 6 tets).
  double WholeDomainBytesPerPoint() const override {
    return this->Complex == COMPLEX_SIMPLICIAL ? 34.0 : 16.0;
  }

private:
#ifndef __VTK_WRAP__
  void ComputeSimplicial(topogpu::vtk::FilterRun& run);
#endif
  bool ComputeGradientGlyphs = true;

  vtkTopoGPUDiscreteGradient(const vtkTopoGPUDiscreteGradient&) = delete;
  void operator=(const vtkTopoGPUDiscreteGradient&) = delete;
};

#endif
