/**
 * @class   vtkTopoGPUScalarFieldSmoother
 * @brief   Laplacian smoothing of a point scalar field (TopoGPU).
 *
 * NumberOfIterations passes of averaging over the triangulation's vertex neighbours
 * (TTK's ScalarFieldSmoother): each pass, every vertex's new value is (its value + the
 * sum of its neighbours' values) / (1 + number of neighbours), in double.
 *
 * Input: vtkImageData (2D or 3D, Freudenthal split), vtkUnstructuredGrid of tets or
 * vtkPolyData of triangles, with a one-component numeric point scalar (see
 * vtkTopoGPUAlgorithm for the default choice). Optional mask (input array 1, used when
 * ForceInputMaskScalarField is on): vertices whose mask is 0 keep their value.
 *
 * Output: the input (shallow copy, same type) with the smoothed array replacing the
 * input array (same name and type; integers rounded to nearest), plus the RunReport
 * field data of vtkTopoGPUAlgorithm.
 *
 * Distributed runs: every point gets its serial value. Images: the consumer's ghost
 * layers plus NumberOfIterations are requested and the output is cropped to the
 * consumer's (all exact). Meshes: the piece is rebuilt with one ghost layer
 * (TopoGPUDistributedPiece.h) and the passes run one at a time, the ghost values
 * refreshed from their owners after each.
 */
#ifndef vtkTopoGPUScalarFieldSmoother_h
#define vtkTopoGPUScalarFieldSmoother_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUAlgorithm.h"

#include <vtkSmartPointer.h> // for SmoothPiece

#include <cstdint> // for SmoothPiece
#include <vector>  // for SmoothPiece

class vtkDataArray;

class TOPOGPUFILTERS_EXPORT vtkTopoGPUScalarFieldSmoother : public vtkTopoGPUAlgorithm {
public:
  static vtkTopoGPUScalarFieldSmoother* New();
  vtkTypeMacro(vtkTopoGPUScalarFieldSmoother, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  ///@{
  /**
   * Number of smoothing passes, 0 (copy) to 1000000 (the core's kMaxIterations, as the
   * CLI's --iterations). Default: 1. A value outside that range is refused with an error
   * when the filter runs, not clamped: a mistyped count clamped to the maximum would
   * still start a run of hours.
   */
  vtkSetMacro(NumberOfIterations, int);
  vtkGetMacro(NumberOfIterations, int);
  ///@}

  ///@{
  /**
   * Use input array 1 as a mask: vertices whose mask is 0 keep their value. Default: off.
   */
  vtkSetMacro(ForceInputMaskScalarField, bool);
  vtkGetMacro(ForceInputMaskScalarField, bool);
  ///@}

protected:
  vtkTopoGPUScalarFieldSmoother();
  ~vtkTopoGPUScalarFieldSmoother() override;

  int FillOutputPortInformation(int port, vtkInformation* info) override;
  int RequestUpdateExtent(vtkInformation* request, vtkInformationVector** inputVector,
                          vtkInformationVector* outputVector) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
  void ComputeEmptyPiece(topogpu::vtk::FilterRun& run) override;
  vtkSmartPointer<vtkDataArray> SmoothPiece(topogpu::vtk::FilterRun& run,
                                            const std::vector<std::uint8_t>& mask);
#endif

private:
  vtkTopoGPUScalarFieldSmoother(const vtkTopoGPUScalarFieldSmoother&) = delete;
  void operator=(const vtkTopoGPUScalarFieldSmoother&) = delete;

  int NumberOfIterations = 1;
  bool ForceInputMaskScalarField = false;
};

#endif
