/**
 * @class   vtkTopoGPUTopologicalSimplification
 * @brief   Topological simplification of a point scalar (TopoGPU), TTK 1.2's
 *          TopologicalSimplification / TopologicalSimplificationByPersistence.
 *
 * Runs core/topological_simplification: the minimum-saddle and saddle-maximum pairs of
 * the field's persistence diagram (the simplicial complex, TTK's) below
 * PersistenceThreshold are removed, or, when the optional Constraints input (port 1:
 * TTK's constraint points, e.g. a thresholded TopoGPU Persistence Diagram, with
 * ttkVertexScalarField and CriticalType) is connected, every extremum that is not one of
 * its points.
 *
 * Output: the input (shallow copy, same type) with the scalar replaced by the simplified
 * one (same name and type) and TTK's vertex order array `<name>_Order` (vtkIdType), which
 * every TopoGPU filter downstream takes as the order of the flattened regions; field data
 * KeptPairCounts and RemovedPairCounts (the input diagram's pairs per PairType),
 * SimplificationIterations, ChangedVertexCount and the RunReport of vtkTopoGPUAlgorithm.
 *
 * See docs/filters/topological-simplification.md. Distributed runs: whole-domain mode,
 * the field is gathered to rank 0.
 */
#ifndef vtkTopoGPUTopologicalSimplification_h
#define vtkTopoGPUTopologicalSimplification_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUAlgorithm.h"

class TOPOGPUFILTERS_EXPORT vtkTopoGPUTopologicalSimplification
    : public vtkTopoGPUAlgorithm {
public:
  static vtkTopoGPUTopologicalSimplification* New();
  vtkTypeMacro(vtkTopoGPUTopologicalSimplification, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  // Pairs of persistence below this are removed (TTK's PersistenceThreshold): absolute
  // when ThresholdIsAbsolute, else a fraction of the field's range. Refused when < 0 or
  // NaN. Unused when the Constraints input is connected.
  vtkSetMacro(PersistenceThreshold, double);
  vtkGetMacro(PersistenceThreshold, double);
  vtkSetMacro(ThresholdIsAbsolute, bool);
  vtkGetMacro(ThresholdIsAbsolute, bool);
  // Sweep rounds at most (1 to the core's kMaxIterations); refused out of range.
  vtkSetMacro(MaximumIterations, int);
  vtkGetMacro(MaximumIterations, int);
  // Host memory the input diagram's complex may use, in MiB; 0: the available memory.
  vtkSetMacro(MemoryBudget, double);
  vtkGetMacro(MemoryBudget, double);

protected:
  vtkTopoGPUTopologicalSimplification();
  ~vtkTopoGPUTopologicalSimplification() override;

  int FillInputPortInformation(int port, vtkInformation* info) override;
  int FillOutputPortInformation(int port, vtkInformation* info) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif
  bool NeedsWholeDomain() const override {
    return true;
  }
  // The input diagram's Morse-Smale complex, the sweeps' ranks and flags.
  double WholeDomainBytesPerPoint() const override {
    return 96.0;
  }

private:
  vtkTopoGPUTopologicalSimplification(const vtkTopoGPUTopologicalSimplification&) =
      delete;
  void operator=(const vtkTopoGPUTopologicalSimplification&) = delete;

  double PersistenceThreshold = 0;
  bool ThresholdIsAbsolute = false;
  int MaximumIterations = 64;
  double MemoryBudget = 0;
};

#endif
