/**
 * @class   vtkTopoGPUAlgorithm
 * @brief   Base class of the TopoGPU filters (as TTK's ttkAlgorithm).
 *
 * Holds what every TopoGPU filter does around its core call, so a module's filter holds
 * only its own parameters, its core call and its outputs:
 *
 * - the input point scalar: the array set with SetInputArrayToProcess(0, ...); when no
 *   name is given (pvpython without SelectInputScalars), the input's active point
 *   scalars, else its first numeric one-component point array, TopoGPU's own label
 *   arrays (LABEL_ARRAY) skipped. vtkBitArray and non-point arrays are rejected with a
 *   message naming the array and where the input has it;
 * - the triangulation, shared by every TopoGPU filter on the same cells and kept while
 *   they are unchanged (TopoGPUTriangulationRegistry.h: explicit meshes build their
 *   relations once, which dominates a rerun or a chain of filters on one mesh);
 * - the Backend property (0 auto, 1 CPU, 2 GPU) as topogpu::Backend;
 * - a topogpu::Monitor wired to UpdateProgress and CheckAbort; the triangulation takes
 *   the first tenth of the progress bar, the core call the next 85%;
 * - one ghost layer requested upstream and the piece ownership of a distributed run;
 *   for modules with a local result (LocalResult) on meshes, the piece rebuilt with its
 *   own ghost layers (TopoGPUDistributedPiece.h), whatever the split;
 * - the RunReport written to field data: TopoGPUBackend (string), TopoGPUTime (double,
 *   seconds), TopoGPUTimingStages (strings) with the parallel TopoGPUTimings (seconds);
 *   its warnings go to vtkWarningMacro;
 * - bad input (topogpu::Error) reported with vtkErrorMacro and an empty output; an
 *   abort gives an empty output and no error. The request still succeeds, so a
 *   pipeline is never left in a failed state.
 *
 * - whole-domain mode, for a module that opts in with NeedsWholeDomain(): the whole
 *   extent is requested upstream whatever a consumer asks for; in a distributed run with
 *   more than one piece, the pieces' extents and input scalar are gathered to rank 0,
 *   Compute() runs once there on the whole image and the other ranks output an empty
 *   data object of the port's type, except image outputs, which are then handed out in
 *   VTK's pieces (each rank gets the piece it asked for) and record the total extent
 *   they split (ALL_PIECES_EXTENT), so that a sub-extent request never re-executes the
 *   filter, and so the collective gather, on some ranks only. Meshes are gathered and
 *   welded on rank 0 (DistributedPiece::gatherMesh). Every rank's output
 *   carries the field data "TopoGPUResultRank" (int, the rank holding the result). The
 *   gather fails with a clear error when the whole field would not fit in rank 0's
 *   memory.
 *
 * A subclass implements Compute() and fills its outputs there; output port types come
 * from FillOutputPortInformation (DATA_TYPE_NAME), as for any vtkAlgorithm.
 */
#ifndef vtkTopoGPUAlgorithm_h
#define vtkTopoGPUAlgorithm_h

#include "TopoGPUFiltersModule.h"

#include <vtkAlgorithm.h>

class vtkDataArray;
class vtkDataObject;
class vtkDataSet;
class vtkInformationIntegerKey;

#include <memory>
#include <optional>
#include <string>

#ifndef __VTK_WRAP__
namespace topogpu {
namespace vtk {
struct FilterRun;
}
} // namespace topogpu
#endif

class TOPOGPUFILTERS_EXPORT vtkTopoGPUAlgorithm : public vtkAlgorithm {
public:
  vtkTypeMacro(vtkTopoGPUAlgorithm, vtkAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  enum BackendChoice { BACKEND_AUTO = 0, BACKEND_CPU = 1, BACKEND_GPU = 2 };

  ///@{
  /**
   * Processor that runs the module: 0 auto, 1 CPU, 2 GPU. Default: 0 (auto).
   * GPU on a mesh, or without a usable device, falls back to the CPU with a warning.
   */
  vtkSetClampMacro(Backend, int, BACKEND_AUTO, BACKEND_GPU);
  vtkGetMacro(Backend, int);
  ///@}

  /**
   * Information key on the output arrays that label rather than measure (CriticalType,
   * CellDimension, CellId, DescendingManifold, ...): never a scalar field to analyse, so
   * the next TopoGPU filter's default input array skips them, and so does the GUI's
   * list of input arrays (plugin.xml's ArrayListDomain rejects the key).
   */
  static vtkInformationIntegerKey* LABEL_ARRAY();

  vtkTypeBool ProcessRequest(vtkInformation* request, vtkInformationVector** inputVector,
                             vtkInformationVector* outputVector) override;

protected:
  vtkTopoGPUAlgorithm();
  ~vtkTopoGPUAlgorithm() override;

  // One vtkDataSet input by default.
  int FillInputPortInformation(int port, vtkInformation* info) override;
  virtual int RequestDataObject(vtkInformation* request,
                                vtkInformationVector** inputVector,
                                vtkInformationVector* outputVector);
  virtual int RequestInformation(vtkInformation* request,
                                 vtkInformationVector** inputVector,
                                 vtkInformationVector* outputVector);
  // Asks for one layer of ghost points: in a distributed run a vertex on a piece border
  // then sees its whole link, and the ownership leaves the ghosts out of the output.
  // Whole-domain modules ask for the whole extent without ghosts instead.
  virtual int RequestUpdateExtent(vtkInformation* request,
                                  vtkInformationVector** inputVector,
                                  vtkInformationVector* outputVector);
  int RequestData(vtkInformation* request, vtkInformationVector** inputVector,
                  vtkInformationVector* outputVector);
  // GathersOwnInput modules in a distributed run: gathers the inputs (collective), runs
  // RequestData on rank 0 with the merged ones (topogpu::vtk::inputVectorOf) and marks
  // the outputs with the rank holding the result (addResultRank). By default, the
  // serial RequestData on the local piece.
  virtual int RequestGatheredData(vtkInformation* request,
                                  vtkInformationVector** inputVector,
                                  vtkInformationVector* outputVector);
  // Empties every output port, each left a valid empty data set of its type (a
  // rectilinear grid with empty coordinate arrays, a point set with no points): what a
  // filter outputs after an error or an abort.
  static void ClearOutputs(vtkInformationVector* outputVector);
  // An empty data object made valid: a rectilinear grid gets empty coordinate arrays, a
  // point set empty points.
  static void MakeValidEmpty(vtkDataObject* data);
  // True when a request runs on several MPI ranks with the data split in pieces: the
  // filters that gather the whole input to one rank branch on it in ProcessRequest.
  static bool IsDistributedRequest(vtkInformationVector* outputVector);
  // The extent an image output's piece is asked for (VTK's piece protocol: this rank's
  // piece of the whole extent with the ghost levels asked for); false when the port
  // says no whole extent.
  static bool RequestedPieceExtent(vtkInformation* outInfo, int extent[6]);

#ifndef __VTK_WRAP__
  // The module's part: its core call through run.visit and its outputs. Throws
  // topogpu::Error for bad input and lets topogpu::Aborted through.
  virtual void Compute(topogpu::vtk::FilterRun& run) = 0;
  // LocalResult modules in a distributed run, on a rank whose piece is empty: takes part
  // in the collective steps Compute() takes on the other ranks (none by default).
  virtual void ComputeEmptyPiece(topogpu::vtk::FilterRun& run) {
    (void)run;
  }

  // The point scalar to run on (see the class comment); throws topogpu::Error naming
  // the problem. name receives the array's name for messages.
  vtkDataArray* ResolveInputScalars(vtkInformationVector** inputVector, vtkDataSet* input,
                                    std::string& name);
#endif

  // Whether the module's result depends on the whole domain at once (a discrete
  // gradient pairs cells across piece borders, so per-piece results are wrong). When
  // true and the run is distributed (more than one piece over MPI ranks), images are
  // gathered to rank 0 and Compute() runs there only; run.input is then the gathered
  // image, and image outputs are split into the ranks' pieces afterwards. One piece:
  // nothing changes but the whole extent requested upstream.
  virtual bool NeedsWholeDomain() const {
    return false;
  }
  // Bytes per point the module's core needs on rank 0 besides the gathered field, for
  // the "does the whole field fit" check of whole-domain mode.
  virtual double WholeDomainBytesPerPoint() const {
    return 16.0;
  }

  // The backend the module asks for (TriangulationChoice: 0 Auto, 1 Explicit, 2 GALE
  // with GPU producers, 3 GALE with CPU producers); modules with a Triangulation
  // property override it. Each choice has its own shared triangulation.
  virtual int TriangulationChoice() const {
    return 0;
  }
  // Whether the module's result at a vertex depends on the vertex's star only
  // (critical points, smoother). In a distributed run with meshes the base then rebuilds
  // the piece around its vertices (TopoGPUDistributedPiece.h: welded points, ghost
  // layers, a shared vertex order); Compute() runs on it (run.input, run.piece), and on
  // a rank whose piece is empty ComputeEmptyPiece() runs instead.
  bool LocalResult = false;
  // True for modules that visit the mesh in any order (the Morse-Smale complex follows
  // V-paths across it): GALE then keeps every computed segment within its byte cap
  // (gale::Parameters::randomAccess).
  bool TriangulationRandomAccess = false;
  // The ghost layers around a rebuilt piece that a LocalResult module needs (the
  // critical points read whether the link's vertices lie on the boundary, so their
  // stars must be whole too: 2).
  int LocalGhostLayers = 1;
  // Whether the module gathers its inputs to rank 0 its own way (the Rips diagram's
  // tables and clouds, the geodesic distance's surface and seeds: gatherToRoot). Then no
  // input port is asked for ghost layers (the pieces are merged: ghosts would only
  // travel to be dropped) and a distributed REQUEST_DATA goes to RequestGatheredData.
  bool GathersOwnInput = false;
  // Whether the module needs an input scalar (all of today's do).
  bool NeedsInputScalars = true;
  // Whether the module runs on a triangulation of a vtkDataSet input. When false (Rips
  // persistence: a table or a point cloud), the base builds none, run.input may be null
  // (the input is run.inputObject) and the module checks for an empty input itself.
  bool NeedsTriangulation = true;
  // Starts every error message, e.g. "TopoGPU Critical Points".
  const char* Label = "TopoGPU";

private:
  vtkTopoGPUAlgorithm(const vtkTopoGPUAlgorithm&) = delete;
  void operator=(const vtkTopoGPUAlgorithm&) = delete;

  int Backend = BACKEND_AUTO;
  // TOPOGPU_WHOLE_DOMAIN_MEMORY_BYTES when set at construction: the memory rank 0 may
  // use to gather a distributed input, instead of the host's available memory.
  std::optional<double> WholeDomainMemoryBytes;

  // One RequestData's steps and state (vtkTopoGPUAlgorithm.cxx).
  struct DataRequest;
};

#endif
