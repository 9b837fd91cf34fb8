/**
 * @class   vtkTopoGPUGeodesicDistance
 * @brief   Geodesic distance from seed vertices on a triangle surface (TopoGPU).
 *
 * Solves the Eikonal equation |grad phi| = 1 / speed on a triangle surface from seed
 * vertices (core/eikonal: fast marching, or the fast iterative method of Fu, Jeong, Pan,
 * Kirby and Whitaker on one or many threads). With speed 1 the result is the geodesic
 * distance along the surface.
 *
 * Input 0: vtkPolyData of triangles, or vtkUnstructuredGrid of VTK_TRIANGLE cells
 * (any other cell is an error: triangulate first). Seeds (SeedMode):
 *  - SEED_POINT_IDS: the vertex ids given with AddSeedId;
 *  - SEED_MASK_ARRAY: the vertices where point array "input array 1" is non-zero;
 *  - SEED_POINTS: the points of input 1, each snapped to the nearest surface point
 *    (Euclidean distance, vtkStaticPointLocator).
 * Speed (SpeedMode): a constant (Speed), or input array 2, a one-component point array
 * (a triangle's speed is its vertices' mean) or cell array (the paper's per-triangle
 * speed). Solver: "auto" (default), "fmm", "fim", "fim-mt" or "gpu" (see kSolverTable in
 * the .cxx).
 *
 * The mesh setup and patchFIM's patches are kept between updates (270-370 bytes per
 * vertex) and reused while the surface, its points and the speed are unchanged, so a
 * change of seeds reruns the solver alone. With Solver gpu or auto the device's
 * context is started when the pipeline first asks for information, on a thread of its
 * own, and stays for the session.
 *
 * Output: the input (shallow copy) with the point arrays GeodesicDistance (float32,
 * float64 with DoublePrecision; +inf where unreached) and SeedIdentifier (the nearest
 * seed's vertex id, -1 where unreached), and field data GeodesicSolver,
 * GeodesicIterations, GeodesicLocalSolvesPerVertex, GeodesicUnreachedVertices,
 * GeodesicConverged, GeodesicExactVertices and GeodesicExactRadius (the exact start)
 * besides the RunReport of vtkTopoGPUAlgorithm. Unreached vertices give a warning
 * counting them.
 *
 * Distributed runs (several MPI ranks, more than one piece): the pieces of both inputs
 * are gathered to rank 0 (ghost cells dropped), the distance is computed there on the
 * whole surface and rank 0 outputs it; the other ranks output an empty data set. Every
 * rank's output has the field data TopoGPUResultRank (0). Seed ids keep their serial
 * meaning: with one non-empty piece, its point ids (nothing is merged); with global
 * point ids (GlobalPointIds) on every piece, the gathered points are those ids in
 * increasing order, seed ids and SeedIdentifier are global ids; otherwise (points merged
 * by position) Seed Mode Point Ids is refused with an error.
 */
#ifndef vtkTopoGPUGeodesicDistance_h
#define vtkTopoGPUGeodesicDistance_h

#include "TopoGPUFiltersModule.h"
#include "vtkTopoGPUAlgorithm.h"

#include <memory>
#include <vector>

class TOPOGPUFILTERS_EXPORT vtkTopoGPUGeodesicDistance : public vtkTopoGPUAlgorithm {
public:
  static vtkTopoGPUGeodesicDistance* New();
  vtkTypeMacro(vtkTopoGPUGeodesicDistance, vtkTopoGPUAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  enum SeedModes { SEED_POINT_IDS = 0, SEED_MASK_ARRAY = 1, SEED_POINTS = 2 };
  enum SpeedModes { SPEED_CONSTANT = 0, SPEED_ARRAY = 1 };

  ///@{
  /** Where the seeds come from (SeedModes). Default: SEED_POINT_IDS. */
  vtkSetClampMacro(SeedMode, int, SEED_POINT_IDS, SEED_POINTS);
  vtkGetMacro(SeedMode, int);
  ///@}

  ///@{
  /** Seed vertex ids (SEED_POINT_IDS). Default: none (an error when used). */
  void AddSeedId(vtkIdType id);
  void RemoveAllSeedIds();
  ///@}

  ///@{
  /** SPEED_CONSTANT: Speed everywhere; SPEED_ARRAY: input array 2. Default constant. */
  vtkSetClampMacro(SpeedMode, int, SPEED_CONSTANT, SPEED_ARRAY);
  vtkGetMacro(SpeedMode, int);
  ///@}

  ///@{
  /** The constant speed (finite, > 0; anything else is an error when the filter runs).
   * Default: 1 (distances). */
  vtkSetMacro(Speed, double);
  vtkGetMacro(Speed, double);
  ///@}

  ///@{
  /** When on, vertices farther than StopDistance (>= 0 or +inf; anything else is an
   * error when the filter runs) stay unreached (+inf). Default off. */
  vtkSetMacro(UseStopDistance, bool);
  vtkGetMacro(UseStopDistance, bool);
  vtkSetMacro(StopDistance, double);
  vtkGetMacro(StopDistance, double);
  ///@}

  ///@{
  /** The solver, an index into the filter's solver table (0 fmm, 1 fim, 2 fim-mt, 3 gpu,
   * 4 auto; another value is an error when the filter runs). Default: 4 (auto). */
  vtkSetMacro(Solver, int);
  vtkGetMacro(Solver, int);
  ///@}

  ///@{
  /**
   * patchFIM's tuning (Solver gpu, or auto when it picks the GPU), with the ranges of
   * `topogpu geodesic`: vertices per patch (4..512, default 64; clamped), the most Jacobi
   * sweeps per active patch and round (1..1000, default 7; clamped), the band in mean
   * edge travel times (> 0 or +inf, default 1; anything else is an error when the filter
   * runs) and the partition (PARTITION_BFS, default, or PARTITION_METIS).
   */
  enum Partitions { PARTITION_BFS = 0, PARTITION_METIS = 1 };
  vtkSetClampMacro(PatchSize, int, 4, 512);
  vtkGetMacro(PatchSize, int);
  vtkSetClampMacro(InternalIterations, int, 1, 1000);
  vtkGetMacro(InternalIterations, int);
  vtkSetMacro(BandWidth, double);
  vtkGetMacro(BandWidth, double);
  vtkSetClampMacro(Partition, int, PARTITION_BFS, PARTITION_METIS);
  vtkGetMacro(Partition, int);
  ///@}

  ///@{
  /**
   * The vertices within this geodesic distance (a length) of the seeds start from their
   * exact polyhedral distance (eikonal::Parameters::exactStartRadius): negative,
   * automatic (the default, -1); 0, the seeds alone. NaN is an error when the filter
   * runs.
   */
  vtkSetMacro(ExactStartRadius, double);
  vtkGetMacro(ExactStartRadius, double);
  ///@}

  ///@{
  /** GeodesicDistance in float64 instead of float32 (a distance float32 cannot hold is
   * an error). Default: off. */
  vtkSetMacro(DoublePrecision, bool);
  vtkGetMacro(DoublePrecision, bool);
  ///@}

protected:
  vtkTopoGPUGeodesicDistance();
  ~vtkTopoGPUGeodesicDistance() override;

  vtkTypeBool ProcessRequest(vtkInformation* request, vtkInformationVector** inputVector,
                             vtkInformationVector* outputVector) override;
  int FillInputPortInformation(int port, vtkInformation* info) override;
  int FillOutputPortInformation(int port, vtkInformation* info) override;
  int RequestInformation(vtkInformation* request, vtkInformationVector** inputVector,
                         vtkInformationVector* outputVector) override;
  int RequestGatheredData(vtkInformation* request, vtkInformationVector** inputVector,
                          vtkInformationVector* outputVector) override;
#ifndef __VTK_WRAP__
  void Compute(topogpu::vtk::FilterRun& run) override;
#endif

private:
  vtkTopoGPUGeodesicDistance(const vtkTopoGPUGeodesicDistance&) = delete;
  void operator=(const vtkTopoGPUGeodesicDistance&) = delete;

  int SeedMode = SEED_POINT_IDS;
  std::vector<vtkIdType> SeedIds;
  // The mesh setup and patchFIM's patches (with their copy in device memory) of the last
  // run's surface (core/eikonal's Preparation), reused by the next run while the surface,
  // its points and the speed are unchanged: a change of seeds, solver or stop distance
  // skips them. Released with the filter.
  struct PreparedSurface;
  std::unique_ptr<PreparedSurface> Prepared;
  // Distributed runs: SeedIds as vertex ids of the gathered surface, used by Compute on
  // rank 0 while UseDistributedSeedIds is set.
  std::vector<vtkIdType> DistributedSeedIds;
  bool UseDistributedSeedIds = false;
  int SpeedMode = SPEED_CONSTANT;
  double Speed = 1.0;
  bool UseStopDistance = false;
  double StopDistance = 1.0;
  int Solver = 4; // auto
  bool DoublePrecision = false;
  int PatchSize = 64;
  int InternalIterations = 7;
  double BandWidth = 1.0;
  int Partition = PARTITION_BFS;
  double ExactStartRadius = -1.0; // automatic
};

#endif
