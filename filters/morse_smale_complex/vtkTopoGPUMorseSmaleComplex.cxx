#include "vtkTopoGPUMorseSmaleComplex.h"

#include "TopoGPUArrays.h"
#include "TopoGPUColouring.h"
#include "TopoGPUDataSetPoints.h"
#include "TopoGPUFilterRun.h"
#include "TopoGPUMscCache.h"
#include "TopoGPUMscPolyData.h"

#include "base/ParallelCopy.h"
#include "base/Timer.h"
#include "core/morse_smale_complex/CubicalRecords.h"
#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/Separatrices2.h"
#include "core/morse_smale_complex/SimplicialRecords.h"
#include "core/morse_smale_complex/SimplicialSeparatrix2Records.h"
#include "core/morse_smale_complex/SimplifiedRecords.h"
#include "core/persistence_diagram/ExtremumPairs.h"
#include "core/persistence_diagram/SimplicialPersistence.h"
#include "frontend/EnvironmentKnobs.h"

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkIdTypeArray.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUMorseSmaleComplex);

namespace {

using topogpu::SimplexId;
using topogpu::vtk::DataSetPoints;
using topogpu::vtk::labelArray;
using topogpu::vtk::namedArray;
namespace msc = topogpu::morse_smale_complex;

// What the segmentation port holds (the three switches).
struct SegmentationSwitches {
  bool ascending, descending, final;
};

// Port 3: the input with the labels (TTK's: AscendingManifold by maxima,
// DescendingManifold by minima; the cell array only when the input's cells are the
// labelled top cells).
void writeSegmentation(topogpu::vtk::FilterRun& run, const SegmentationSwitches& on,
                       const std::vector<msc::ManifoldLabel>& ascending,
                       const std::vector<msc::ManifoldLabel>& descending,
                       const std::vector<msc::ManifoldLabel>& cellAscending,
                       const std::vector<SimplexId>* morseSmale = nullptr) {
  vtkDataSet* segmentation = vtkDataSet::GetData(run.outputVector, 3);
  segmentation->ShallowCopy(run.input);
  auto column = [](const char* name, const auto& values) {
    auto array = labelArray<vtkIdTypeArray>(name, vtkIdType(values.size()));
    topogpu::parallelCopy(values.data(), values.size(), array->GetPointer(0));
    return array;
  };
  if (on.ascending) {
    segmentation->GetPointData()->AddArray(column("AscendingManifold", ascending));
    if (vtkIdType(cellAscending.size()) == run.input->GetNumberOfCells())
      segmentation->GetCellData()->AddArray(column("AscendingManifold", cellAscending));
  }
  if (on.descending)
    segmentation->GetPointData()->AddArray(column("DescendingManifold", descending));
  if (on.final)
    segmentation->GetPointData()->AddArray(
        column("MorseSmaleManifold",
               morseSmale ? *morseSmale
                          : msc::simplicial::morseSmaleLabels(descending, ascending)));
}

// Field data on every port: what was found.
struct Found {
  std::array<SimplexId, 4> counts;
  SimplexId boundaryMaxima;
  vtkIdType arcs[3], multiplicities[3]; // saddle1-minimum, saddle-maximum, saddle-saddle
  SimplexId unlabelledAscending, unlabelledDescending;
};

void writeFieldData(topogpu::vtk::FilterRun& run, const Found& found) {
  auto counts = namedArray<vtkIdTypeArray>("CriticalCellCounts", 4);
  for (int k = 0; k < 4; ++k)
    counts->SetValue(k, vtkIdType(found.counts[k]));
  auto boundaryMaxima = namedArray<vtkIdTypeArray>("BoundaryMaximumCount", 1);
  boundaryMaxima->SetValue(0, vtkIdType(found.boundaryMaxima));
  auto arcs = namedArray<vtkIdTypeArray>("ArcCounts", 3);
  auto multiplicities = namedArray<vtkIdTypeArray>("ArcMultiplicitySums", 3);
  for (int k = 0; k < 3; ++k) {
    arcs->SetValue(k, found.arcs[k]);
    multiplicities->SetValue(k, found.multiplicities[k]);
  }
  auto unlabelled = namedArray<vtkIdTypeArray>("UnlabelledVertices", 2);
  unlabelled->SetValue(0, vtkIdType(found.unlabelledAscending));
  unlabelled->SetValue(1, vtkIdType(found.unlabelledDescending));
  for (int port = 0; port < 4; ++port) {
    if (vtkDataObject* output = vtkDataObject::GetData(run.outputVector, port)) {
      vtkFieldData* fd = output->GetFieldData();
      for (vtkDataArray* array :
           {static_cast<vtkDataArray*>(counts),
            static_cast<vtkDataArray*>(boundaryMaxima), static_cast<vtkDataArray*>(arcs),
            static_cast<vtkDataArray*>(multiplicities),
            static_cast<vtkDataArray*>(unlabelled)})
        fd->AddArray(array);
    }
  }
}

template <typename Arcs> vtkIdType multiplicitySum(const Arcs& arcs) {
  vtkIdType sum = 0;
  for (const auto& arc : arcs)
    sum += vtkIdType(arc.multiplicity);
  return sum;
}

// TTK's output switches, as the core's records read them.
msc::RecordSwitches switchesOf(vtkTopoGPUMorseSmaleComplex* self) {
  msc::RecordSwitches on;
  on.criticalPoints = self->GetComputeCriticalPoints();
  on.ascending1 = self->GetComputeAscendingSeparatrices1();
  on.descending1 = self->GetComputeDescendingSeparatrices1();
  on.saddleConnectors = self->GetComputeSaddleConnectors();
  on.manifoldSizes =
      self->GetComputeAscendingSegmentation() && self->GetComputeDescendingSegmentation();
  return on;
}

// TTK's 2-separatrix switches and the filter's bound on their cells.
topogpu::separatrices2::Parameters wallParametersOf(vtkTopoGPUMorseSmaleComplex* self,
                                                    unsigned long long maxCells) {
  topogpu::separatrices2::Parameters parameters;
  parameters.ascending = self->GetComputeAscendingSeparatrices2();
  parameters.descending = self->GetComputeDescendingSeparatrices2();
  if (maxCells > 0)
    parameters.maxCells = std::size_t(maxCells);
  return parameters;
}

// Walls too large to draw: the rest of the complex is still worth having.
topogpu::Warning wallsTooLarge(const topogpu::Error& e, const std::string& size = "") {
  return {topogpu::WarningCode::Separatrices2TooLarge,
          std::string(e.what()) + size +
              " (ComputeAscendingSeparatrices2 / ComputeDescendingSeparatrices2); port 2 "
              "is left empty"};
}

// Port 2 of the simplicial complex: the walls asked for, drawn as TTK's; the warnings
// and timings go to result.report.
template <typename Triangulation>
void addSimplicialWalls(Triangulation& tri,
                        const topogpu::separatrices2::Parameters& parameters,
                        topogpu::vtk::FilterRun& run, const msc::PointGeometry& points,
                        msc::simplicial::Output& result, msc::Records& records) {
  namespace ss2 = topogpu::separatrices2::simplicial;
  ss2::Output walls;
  bool computed = false;
  try {
    ss2::compute(tri, result.gradient, result.rank.data(), parameters,
                 run.monitor.stage(0.85, 1), walls, result.report);
    computed = true;
    const topogpu::Timer timer;
    msc::simplicial::buildSeparatrices2(tri, walls, run.values, points, parameters,
                                        records.separatrices2);
    result.report.timings.emplace_back("2-separatrix records", timer.seconds());
  } catch (const topogpu::Error& e) {
    records.separatrices2 = msc::Separatrix2Records();
    std::string size;
    if (!computed) {
      // The size asked for, counted without keeping the cells (one wall per thread).
      topogpu::separatrices2::Parameters counting = parameters;
      counting.keepCells = false;
      ss2::compute(tri, result.gradient, result.rank.data(), counting,
                   run.monitor.stage(0.85, 1), walls, result.report);
      size =
          "; they hold " +
          std::to_string(walls.descending.totalCells() + walls.ascending.totalCells()) +
          " cells in all";
    }
    result.report.warnings.push_back(wallsTooLarge(e, size));
  }
}

// Ports 0-2 from the records (a port switched off stays empty), which it consumes.
void writeRecords(topogpu::vtk::FilterRun& run, msc::Records&& records,
                  const msc::RecordSwitches& on, bool walls) {
  namespace tv = topogpu::vtk;
  if (on.criticalPoints)
    tv::writeCriticalPoints(vtkPolyData::GetData(run.outputVector, 0),
                            records.criticalPoints, run.scalars);
  if (on.descending1 || on.ascending1 || on.saddleConnectors)
    tv::writeSeparatrices1(vtkPolyData::GetData(run.outputVector, 1),
                           std::move(records.separatrices1));
  if (walls)
    tv::writeSeparatrices2(vtkPolyData::GetData(run.outputVector, 2),
                           std::move(records.separatrices2));
}

// What the simplicial complex depends on besides PersistenceThreshold and the output
// switches: the field (array and its modification time), the triangulation, the
// parameters (the MemoryBudget property, not the memory available at the run) and the
// walls asked for.
std::string cacheKey(const topogpu::vtk::FilterRun& run,
                     const msc::simplicial::Parameters& parameters, double memoryBudget,
                     bool walls, unsigned long long maxWallCells) {
  const void* tri =
      std::visit([](const auto& t) { return static_cast<const void*>(t.get()); },
                 *run.triangulation);
  std::ostringstream key;
  key << static_cast<const void*>(run.scalars) << ' ' << run.scalars->GetMTime() << ' '
      << tri << ' ' << run.input->GetNumberOfPoints() << ' '
      << run.input->GetNumberOfCells() << ' ' << int(parameters.backend) << ' '
      << memoryBudget << ' ' << parameters.computeSaddleConnections << ' '
      << int(parameters.ascendingSegmentation) << ' ' << walls << ' ' << maxWallCells;
  return key.str();
}

// The persistence pairs of the cached complex and its cancellation hierarchy.
template <typename Triangulation>
void buildCachedHierarchy(Triangulation& tri, topogpu::vtk::FilterRun& run,
                          topogpu::vtk::MscCache& cache) {
  topogpu::persistence_diagram::Diagram diagram;
  topogpu::persistence_diagram::diagramOfComplex(tri, cache.complex, run.values,
                                                 topogpu::Monitor{}, diagram);
  const topogpu::Timer timer;
  msc::simplicial::buildHierarchy(
      cache.complex,
      topogpu::persistence_diagram::extremumPairs(tri, diagram, cache.complex),
      topogpu::persistence_diagram::saddlePairs(diagram), cache.hierarchy);
  cache.hierarchyReport.timings = diagram.report.timings;
  cache.hierarchyReport.timings.emplace_back("cancellation hierarchy (cpu)",
                                             timer.seconds());
  cache.hasHierarchy = true;
}

// Port 3 and the field data of the complex, or of its answer at a threshold.
void writeOutputs(topogpu::vtk::FilterRun& run, const msc::simplicial::Output& complex,
                  const msc::simplicial::SimplifiedComplex* answer,
                  const SegmentationSwitches& on) {
  const bool computed = complex.connectionsComputed;
  if (answer == nullptr) {
    writeSegmentation(run, on, complex.ascendingManifold, complex.descendingManifold,
                      complex.cellAscendingManifold);
    writeFieldData(
        run,
        {complex.gradient.counts,
         complex.boundaryMaxima,
         {vtkIdType(complex.saddle1Minimum.size()),
          vtkIdType(complex.saddleMaximum.size()),
          computed ? vtkIdType(complex.connections.size()) : -1},
         {multiplicitySum(complex.saddle1Minimum), multiplicitySum(complex.saddleMaximum),
          computed ? msc::clampedMultiplicity(complex.connectionMultiplicitySum) : -1},
         complex.unlabelledAscending,
         complex.unlabelledDescending});
    return;
  }
  const auto& a = *answer;
  writeSegmentation(run, on, a.ascendingManifold, a.descendingManifold,
                    a.cellAscendingManifold, &a.morseSmaleManifold);
  auto negatives = [](const std::vector<msc::ManifoldLabel>& labels) {
    return SimplexId(std::count_if(labels.begin(), labels.end(),
                                   [](msc::ManifoldLabel l) { return l < 0; }));
  };
  writeFieldData(run,
                 {a.counts,
                  a.boundaryMaxima,
                  {vtkIdType(a.saddle1Minimum.size()), vtkIdType(a.saddleMaximum.size()),
                   computed ? vtkIdType(a.connections.size()) : -1},
                  {multiplicitySum(a.saddle1Minimum), multiplicitySum(a.saddleMaximum),
                   computed ? msc::clampedMultiplicity(a.connectionMultiplicitySum) : -1},
                  negatives(a.ascendingManifold),
                  negatives(a.descendingManifold)});
}

} // namespace

vtkTopoGPUMorseSmaleComplex::vtkTopoGPUMorseSmaleComplex() {
  this->Label = "TopoGPU Morse-Smale Complex";
  this->TriangulationRandomAccess = true; // V-paths
  this->SetNumberOfOutputPorts(4);
  topogpu::vtk::registerCategoricalColours("CellDimension", "Critical cell dimension",
                                           topogpu::vtk::criticalIndexCategories());
  topogpu::vtk::registerCategoricalColours("SeparatrixType", "Separatrix type",
                                           topogpu::vtk::separatrixTypeCategories());
  // Tests force a small wall limit; a bad value is ignored (the default stays).
  if (const auto cells = topogpu::frontend::separatrices2MaxCellsFromEnvironment())
    this->Separatrices2MaxCells = *cells;
}

vtkTopoGPUMorseSmaleComplex::~vtkTopoGPUMorseSmaleComplex() = default;

void vtkTopoGPUMorseSmaleComplex::SetPersistenceThreshold(double threshold) {
  if (threshold == this->PersistenceThreshold) // NaN differs: set, then refused
    return;
  this->PersistenceThreshold = threshold;
  this->Modified();
  this->ThresholdMTime = this->GetMTime();
}

void vtkTopoGPUMorseSmaleComplex::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  const std::pair<const char*, bool> switches[] = {
      {"ComputeCriticalPoints", this->ComputeCriticalPoints},
      {"ComputeAscendingSeparatrices1", this->ComputeAscendingSeparatrices1},
      {"ComputeDescendingSeparatrices1", this->ComputeDescendingSeparatrices1},
      {"ComputeSaddleConnectors", this->ComputeSaddleConnectors},
      {"ComputeAscendingSeparatrices2", this->ComputeAscendingSeparatrices2},
      {"ComputeDescendingSeparatrices2", this->ComputeDescendingSeparatrices2},
      {"ComputeAscendingSegmentation", this->ComputeAscendingSegmentation},
      {"ComputeDescendingSegmentation", this->ComputeDescendingSegmentation},
      {"ComputeFinalSegmentation", this->ComputeFinalSegmentation},
      {"AscendingThroughBoundary", this->AscendingThroughBoundary}};
  for (const auto& [name, on] : switches)
    os << indent << name << ": " << on << "\n";
  os << indent << "PersistenceThreshold: " << this->PersistenceThreshold << " (used "
     << this->PersistenceThresholdUsed << ")\n";
}

int vtkTopoGPUMorseSmaleComplex::FillOutputPortInformation(int port,
                                                           vtkInformation* info) {
  if (port < 0 || port > 3)
    return 0;
  // TTK 1.2's: ports 0-2 vtkPolyData, port 3 the input's type ("vtkDataSet").
  info->Set(vtkDataObject::DATA_TYPE_NAME(), port == 3 ? "vtkDataSet" : "vtkPolyData");
  return 1;
}

void vtkTopoGPUMorseSmaleComplex::Compute(topogpu::vtk::FilterRun& run) {
  if (!this->UsesCubicalComplex(run)) {
    this->ComputeSimplicial(run);
    return;
  }
  msc::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  parameters.keepVertexOrder = true;
  // Stage 3 is the expensive one: computed only when its arcs are asked for.
  parameters.computeSaddleConnections = this->ComputeSaddleConnectors;
  msc::Output result;
  const bool walls =
      this->ComputeAscendingSeparatrices2 || this->ComputeDescendingSeparatrices2;
  run.visit([&](auto& triangulation) {
    msc::execute(triangulation, run.values, parameters,
                 walls ? run.monitor.stage(0, 0.85) : run.monitor, result);
  });
  run.report = result.report;

  const topogpu::Timer outputTimer;
  const int d = result.gradient.grid.dimension;
  const DataSetPoints points(run.input);
  msc::Records records;
  msc::buildRecords(result, run.values, points, switchesOf(this), records);
  if (walls && d == 3) {
    namespace s2 = topogpu::separatrices2;
    s2::Output wallsOut;
    try {
      s2::compute(result.gradient, wallParametersOf(this, this->Separatrices2MaxCells),
                  run.monitor.stage(0.85, 1), wallsOut, run.report);
    } catch (const topogpu::Error& e) {
      // Too large to draw: the rest of the complex is still worth having.
      run.report.warnings.push_back(wallsTooLarge(e));
      wallsOut.clear();
    }
    msc::buildSeparatrices2(result, wallsOut, run.values, points, records.separatrices2);
  }
  writeRecords(run, std::move(records), switchesOf(this), walls && d == 3);

  writeSegmentation(run,
                    {this->ComputeAscendingSegmentation,
                     this->ComputeDescendingSegmentation, this->ComputeFinalSegmentation},
                    result.ascendingManifold, result.descendingManifold,
                    result.cellAscendingManifold);
  // saddle1-saddle2: -1 when not computed (switched off, or a 2D grid has none).
  const bool computed = result.saddleConnectionsComputed;
  writeFieldData(
      run,
      {result.gradient.counts,
       result.boundaryMaxima,
       {vtkIdType(result.saddle1Minimum.size()), vtkIdType(result.saddleMaximum.size()),
        computed ? vtkIdType(result.saddleConnections.arcs.size()) : -1},
       {multiplicitySum(result.saddle1Minimum), multiplicitySum(result.saddleMaximum),
        computed ? msc::clampedMultiplicity(result.saddleConnections.multiplicitySum)
                 : -1},
       result.unlabelledAscending,
       result.unlabelledDescending});
  run.report.timings.emplace_back("output", outputTimer.seconds());
}

// The simplicial complex (meshes, or images with Complex = Simplicial / a stored
// triangulation): the same ports and arrays, simplices in place of refined cells. The
// complex, its cancellation hierarchy and its walls are kept (MscCache): a run that
// changes only PersistenceThreshold answers from them.
void vtkTopoGPUMorseSmaleComplex::ComputeSimplicial(topogpu::vtk::FilterRun& run) {
  namespace smsc = msc::simplicial;
  const double asked = this->PersistenceThreshold;
  if (!(asked >= 0 || asked == -1))
    throw topogpu::Error("PersistenceThreshold must be a number >= 0, or -1 for the "
                         "automatic threshold (got " +
                         std::to_string(asked) + ")");
  smsc::Parameters parameters;
  parameters.backend = run.backend;
  parameters.vertexOrder = run.vertexOrder;
  parameters.memoryBudget = this->MemoryBudgetBytes();
  parameters.computeSaddleConnections = this->ComputeSaddleConnectors;
  parameters.keepConnectionPaths = this->ComputeSaddleConnectors;
  if (this->AscendingThroughBoundary)
    parameters.ascendingSegmentation = smsc::AscendingSegmentation::ThroughBoundary;
  std::vector<topogpu::Warning> warnings = run.report.warnings;
  const bool walls =
      this->ComputeAscendingSeparatrices2 || this->ComputeDescendingSeparatrices2;
  if (!this->Cache)
    this->Cache = std::make_unique<topogpu::vtk::MscCache>();
  topogpu::vtk::MscCache& cache = *this->Cache;
  const std::string key =
      cacheKey(run, parameters, this->MemoryBudget, walls, this->Separatrices2MaxCells);
  // Reused when the field and the parameters are the same and the filter was modified
  // by nothing but PersistenceThreshold since (a bare Modified() asks for a new run).
  const vtkMTimeType now = this->GetMTime();
  if (cache.key != key || (now != this->CacheMTime && now != this->ThresholdMTime))
    cache.clear();
  this->CacheMTime = now;
  const bool fresh = cache.key.empty();
  const bool thresholded = asked != 0;
  smsc::SimplifiedComplex& answer = cache.answer;
  msc::Records records;
  topogpu::Timer outputTimer;
  const DataSetPoints points(run.input);
  run.visitWithGale([&](auto& tri) {
    if (fresh) {
      smsc::execute(tri, run.values, parameters,
                    walls ? run.monitor.stage(0, 0.85) : run.monitor, cache.complex);
      ++this->ComplexComputations;
      if (walls) {
        addSimplicialWalls(tri, wallParametersOf(this, this->Separatrices2MaxCells), run,
                           points, cache.complex, records);
        cache.walls = std::move(records.separatrices2);
      }
      cache.key = key;
    }
    if (thresholded && !cache.hasHierarchy)
      buildCachedHierarchy(tri, run, cache);
    outputTimer.reset();
    if (thresholded) {
      const double T =
          asked < 0 ? smsc::legibleThreshold(cache.hierarchy, smsc::kLegibleExtrema,
                                             smsc::kLegibleExtrema)
                    : asked;
      smsc::simplify(cache.complex, cache.hierarchy, T, parameters.ascendingSegmentation,
                     answer);
      smsc::buildSimplifiedRecords(tri, cache.complex, cache.hierarchy, answer,
                                   run.values, points, switchesOf(this), records);
    } else {
      smsc::buildRecords(tri, cache.complex, run.values, points, switchesOf(this),
                         records);
    }
    if (walls) {
      records.separatrices2 = cache.walls;
      if (thresholded)
        smsc::keepWallsOfKeptSaddles(cache.complex, answer, records.separatrices2);
    }
  });
  this->PersistenceThresholdUsed = thresholded ? answer.threshold : 0.0;
  this->PersistenceRange[0] = 0;
  this->PersistenceRange[1] = cache.hasHierarchy ? cache.hierarchy.largestPersistence : 0;
  // A run that reused the complex reports only its own stages.
  run.report = fresh ? cache.complex.report : topogpu::RunReport();
  if (fresh && thresholded)
    for (const auto& t : cache.hierarchyReport.timings)
      run.report.timings.push_back(t);
  if (!fresh)
    run.report.warnings = cache.complex.report.warnings;
  if (thresholded)
    for (const auto& t : answer.report.timings)
      run.report.timings.push_back(t);
  for (const topogpu::Warning& w : warnings)
    run.report.warnings.push_back(w);
  run.addGaleRunWarnings();
  writeRecords(run, std::move(records), switchesOf(this), walls);
  writeOutputs(run, cache.complex, thresholded ? &answer : nullptr,
               {this->ComputeAscendingSegmentation, this->ComputeDescendingSegmentation,
                this->ComputeFinalSegmentation});
  // The threshold used (the automatic one's value), on every port.
  auto used = topogpu::vtk::namedArray<vtkDoubleArray>("PersistenceThreshold", 1);
  used->SetValue(0, this->PersistenceThresholdUsed);
  for (int port = 0; port < 4; ++port)
    if (vtkDataObject* output = vtkDataObject::GetData(run.outputVector, port))
      output->GetFieldData()->AddArray(used);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
