/**
 * @class   vtkTopoGPURipsPersistenceDiagram
 * @brief   Vietoris-Rips persistence diagram of a point cloud or a distance matrix.
 *
 * Runs core/rips_persistence (Ripser's method with the apparent pairs of Ripser++, Z/2
 * coefficients) on
 *  - INPUT_POINT_CLOUD: the rows of a vtkTable (every column numeric; a column's
 *    components are coordinates) or the points of any vtkPointSet;
 *  - INPUT_DISTANCE_MATRIX: a vtkTable holding a square, symmetric, non-negative matrix.
 *
 * Output 0: the persistence diagram as TTK's ttkPersistenceDiagram writes it: a
 * vtkUnstructuredGrid with one line cell per bar from (birth, birth, 0) to (birth,
 * death, 0); cell arrays PairIdentifier, PairType (the dimension), Persistence, Birth,
 * Death, IsFinite; point arrays ttkVertexScalarField (-1: a Rips pair is a pair of
 * simplices, not of vertices), CriticalType (birth: min(k, 3), death: min(k + 1, 3)) and
 * Coordinates (the diagram position). Essential bars (infinite death) are drawn at the
 * field data value RipsInfiniteDeathValue with IsFinite 0. The last cell is the diagonal
 * (PairIdentifier -1). Output 1: a vtkTable of the bars (PairIdentifier, Dimension,
 * Birth, Death; +inf for essential ones). Output 2 (ComputeCocycles): the edges of the
 * input that carry the representative cocycle of each finite dimension-1 bar, as
 * vtkPolyData lines on the input's points (cell array BarId = the bar's PairIdentifier).
 *
 * Distributed runs: the pieces are gathered to rank 0, which computes the diagram of the
 * whole cloud; the other ranks output empty data sets. Every rank's outputs carry the
 * field data TopoGPUResultRank (0).
 */
#ifndef vtkTopoGPURipsPersistenceDiagram_h
#define vtkTopoGPURipsPersistenceDiagram_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPURipsPersistenceDiagram
    : public vtkTopoGPUAlgorithm {
public:
  static vtkTopoGPURipsPersistenceDiagram* New();
  vtkTypeMacro(vtkTopoGPURipsPersistenceDiagram, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  // The properties keep what they are given; a run checks them against the ranges of
  // the CLI's options (rips_persistence::kMaxDimensionLimit, kMaxThreads) and fails with
  // an error naming the property, its range and the value (no silent clamping).
  enum InputModes { INPUT_POINT_CLOUD = 0, INPUT_DISTANCE_MATRIX = 1 };
  enum SparseModes { SPARSE_AUTO = 0, SPARSE_DENSE = 1, SPARSE_SPARSE = 2 };

  ///@{
  /** How the input is read (InputModes). Default: INPUT_POINT_CLOUD. */
  vtkSetMacro(InputMode, int);
  vtkGetMacro(InputMode, int);
  ///@}

  ///@{
  /** Bars of dimensions 0..MaxDimension (Ripser's --dim), 0 to 64. Default: 1. */
  vtkSetMacro(MaxDimension, int);
  vtkGetMacro(MaxDimension, int);
  ///@}

  ///@{
  /**
   * Simplices of diameter <= Threshold (> 0); negative (default -1): automatic, the
   * enclosing radius unless that run would not stay interactive. 0 and NaN: errors.
   */
  vtkSetMacro(Threshold, double);
  vtkGetMacro(Threshold, double);
  ///@}

  ///@{
  /** SparseModes. Default: SPARSE_AUTO. */
  vtkSetMacro(SparseMode, int);
  vtkGetMacro(SparseMode, int);
  ///@}

  ///@{
  /** CPU threads, 0 (default: all cores) to 4096. */
  vtkSetMacro(Threads, int);
  vtkGetMacro(Threads, int);
  ///@}

  ///@{
  /**
   * Host memory the run may use, in MiB; 0 (default): the memory available when it
   * starts. A run whose estimate is larger is refused with the largest MaxDimension
   * and Threshold that fit.
   */
  vtkSetMacro(MemoryBudget, double);
  vtkGetMacro(MemoryBudget, double);
  ///@}

  ///@{
  /** Representative cocycles of the finite dimension-1 bars on output 2. Default off. */
  vtkSetMacro(ComputeCocycles, bool);
  vtkGetMacro(ComputeCocycles, bool);
  ///@}

protected:
  vtkTopoGPURipsPersistenceDiagram();
  ~vtkTopoGPURipsPersistenceDiagram() override;

  int FillInputPortInformation(int port, vtkInformation* info) override;
  int FillOutputPortInformation(int port, vtkInformation* info) override;
  int RequestGatheredData(vtkInformation* request, vtkInformationVector** inputVector,
                          vtkInformationVector* outputVector) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif

private:
  vtkTopoGPURipsPersistenceDiagram(const vtkTopoGPURipsPersistenceDiagram&) = delete;
  void operator=(const vtkTopoGPURipsPersistenceDiagram&) = delete;

  int InputMode = INPUT_POINT_CLOUD;
  int MaxDimension = 1;
  double Threshold = -1.0;
  int SparseMode = SPARSE_AUTO;
  int Threads = 0;
  double MemoryBudget = 0;
  bool ComputeCocycles = false;
};

#endif
