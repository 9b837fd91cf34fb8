#include "vtkTopoGPUAlgorithm.h"

#include "TopoGPUDistributedPiece.h"
#include "TopoGPUFilterRun.h"
#include "TopoGPUGatherToRoot.h"
#include "TopoGPUImageGather.h"
#include "TopoGPUTriangulationRegistry.h"

#include "base/Timer.h"
#include "frontend/EnvironmentKnobs.h"
#include "frontend/VertexOrderCache.h"

#include <vtkDataArray.h>
#include <vtkDataObjectTypes.h>
#include <vtkDataSet.h>
#include <vtkDemandDrivenPipeline.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkMultiProcessController.h>
#include <vtkPointData.h>
#include <vtkPointSet.h>
#include <vtkPoints.h>
#include <vtkRectilinearGrid.h>
#include <vtkSmartPointer.h>
#include <vtkStreamingDemandDrivenPipeline.h>
#include <vtkStringArray.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using topogpu::vtk::requestingPort;
using topogpu::vtk::updateValue;

vtkTopoGPUAlgorithm::vtkTopoGPUAlgorithm() {
  this->SetNumberOfInputPorts(1);
  this->SetNumberOfOutputPorts(1);
  // No name: the active point scalars, else the first numeric point array (as the GUI).
  this->SetInputArrayToProcess(0, 0, 0, vtkDataObject::FIELD_ASSOCIATION_POINTS,
                               vtkDataSetAttributes::SCALARS);
  // The environment's knobs, at the filter boundary: the process-wide ones once, when
  // the first filter is made; the whole-domain memory (the filters' tests force a small
  // one) for this filter.
  static const bool processKnobsApplied = [] {
    topogpu::frontend::applyProcessKnobs();
    return true;
  }();
  (void)processKnobsApplied;
  this->WholeDomainMemoryBytes = topogpu::frontend::wholeDomainMemoryFromEnvironment();
}

vtkTopoGPUAlgorithm::~vtkTopoGPUAlgorithm() = default;

void vtkTopoGPUAlgorithm::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Backend: " << this->Backend << " (0 auto, 1 CPU, 2 GPU)\n";
  os << indent
     << "Shared triangulations: " << topogpu::vtk::TriangulationRegistry::shared().size()
     << "\n";
}

int vtkTopoGPUAlgorithm::FillInputPortInformation(int port, vtkInformation* info) {
  if (port != 0)
    return 0;
  info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkDataSet");
  return 1;
}

vtkTypeBool vtkTopoGPUAlgorithm::ProcessRequest(vtkInformation* request,
                                                vtkInformationVector** inputVector,
                                                vtkInformationVector* outputVector) {
  if (request->Has(vtkDemandDrivenPipeline::REQUEST_DATA_OBJECT()))
    return this->RequestDataObject(request, inputVector, outputVector);
  if (request->Has(vtkDemandDrivenPipeline::REQUEST_DATA()))
    return this->GathersOwnInput && IsDistributedRequest(outputVector)
               ? this->RequestGatheredData(request, inputVector, outputVector)
               : this->RequestData(request, inputVector, outputVector);
  if (request->Has(vtkStreamingDemandDrivenPipeline::REQUEST_UPDATE_EXTENT()))
    return this->RequestUpdateExtent(request, inputVector, outputVector);
  if (request->Has(vtkDemandDrivenPipeline::REQUEST_INFORMATION()))
    return this->RequestInformation(request, inputVector, outputVector);
  return this->Superclass::ProcessRequest(request, inputVector, outputVector);
}

int vtkTopoGPUAlgorithm::RequestDataObject(vtkInformation*,
                                           vtkInformationVector** inputVector,
                                           vtkInformationVector* outputVector) {
  vtkDataObject* input = this->GetNumberOfInputPorts() > 0
                             ? vtkDataObject::GetData(inputVector[0], 0)
                             : nullptr;
  for (int port = 0; port < this->GetNumberOfOutputPorts(); ++port) {
    vtkInformation* portInfo = this->GetOutputPortInformation(port);
    const char* type = portInfo->Get(vtkDataObject::DATA_TYPE_NAME());
    if (type == nullptr)
      return 0;
    vtkInformation* outInfo = outputVector->GetInformationObject(port);
    vtkDataObject* existing = outInfo->Get(vtkDataObject::DATA_OBJECT());
    // An abstract port type (vtkDataSet) means "the input's type"; an input that is no
    // data set (refused by the pipeline) gets an empty poly data there.
    const bool abstract = std::string(type) == "vtkDataSet";
    const bool sameAsInput = abstract && input != nullptr && input->IsA("vtkDataSet");
    const char* wanted = sameAsInput ? input->GetClassName()
                         : abstract  ? "vtkPolyData"
                                     : type;
    if (existing != nullptr && existing->IsA(wanted))
      continue;
    vtkSmartPointer<vtkDataObject> created;
    if (sameAsInput)
      created.TakeReference(input->NewInstance());
    else
      created.TakeReference(vtkDataObjectTypes::NewDataObject(wanted));
    if (!created)
      return 0;
    // Valid while empty, also when the pipeline refuses the input and RequestData
    // never runs.
    MakeValidEmpty(created);
    outInfo->Set(vtkDataObject::DATA_OBJECT(), created);
  }
  return 1;
}

int vtkTopoGPUAlgorithm::RequestInformation(vtkInformation*, vtkInformationVector**,
                                            vtkInformationVector*) {
  return 1;
}

int vtkTopoGPUAlgorithm::RequestGatheredData(vtkInformation* request,
                                             vtkInformationVector** inputVector,
                                             vtkInformationVector* outputVector) {
  return this->RequestData(request, inputVector, outputVector);
}

int vtkTopoGPUAlgorithm::RequestUpdateExtent(vtkInformation* request,
                                             vtkInformationVector** inputVector,
                                             vtkInformationVector* outputVector) {
  if (this->GathersOwnInput) {
    for (int port = 0; port < this->GetNumberOfInputPorts(); ++port) {
      if (vtkInformation* info = inputVector[port]->GetInformationObject(0))
        info->Set(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0);
    }
    return 1;
  }
  vtkInformation* outInfo =
      outputVector->GetInformationObject(requestingPort(request, outputVector));
  vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
  if (outInfo == nullptr || inInfo == nullptr)
    return 1;
  const int requested = updateValue(
      outInfo, vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0);
  if (this->NeedsWholeDomain()) {
    // The result depends on the whole domain, never on the extent a consumer asks for:
    // the input is always the whole extent (split into this rank's piece upstream, then
    // gathered), so a sub-extent request can neither shrink the domain nor make some
    // ranks run the collective gather again without the others.
    if (inInfo->Has(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT()))
      inInfo->Set(vtkStreamingDemandDrivenPipeline::UPDATE_EXTENT(),
                  inInfo->Get(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT()), 6);
    // The gather places overlapping pieces; ghost layers would only add traffic.
    inInfo->Set(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0);
    return 1;
  }
  inInfo->Set(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS(),
              std::max(requested, 1));
  return 1;
}

void vtkTopoGPUAlgorithm::ClearOutputs(vtkInformationVector* outputVector) {
  for (int i = 0; i < outputVector->GetNumberOfInformationObjects(); ++i) {
    if (vtkDataObject* output = vtkDataObject::GetData(outputVector, i)) {
      output->Initialize();
      MakeValidEmpty(output);
    }
  }
}

// Initialize() and a fresh instance leave a rectilinear grid without coordinate arrays
// (and a point set without points), which ParaView's serialisation (servermanager.Fetch,
// client-server transfer) dereferences.
void vtkTopoGPUAlgorithm::MakeValidEmpty(vtkDataObject* data) {
  if (auto* grid = vtkRectilinearGrid::SafeDownCast(data)) {
    grid->SetXCoordinates(vtkSmartPointer<vtkDoubleArray>::New());
    grid->SetYCoordinates(vtkSmartPointer<vtkDoubleArray>::New());
    grid->SetZCoordinates(vtkSmartPointer<vtkDoubleArray>::New());
  } else if (auto* points = vtkPointSet::SafeDownCast(data)) {
    if (points->GetPoints() == nullptr)
      points->SetPoints(vtkSmartPointer<vtkPoints>::New());
  }
}

namespace {

// A rank of a rebuilt piece failing before the others' agreement to compute takes part
// in it, so they fail with it instead of waiting. Returns what this rank reports: the
// first failing rank's error on rank 0, nothing elsewhere (DistributedPiece::agree).
std::string agreedFailure(vtkMultiProcessController* controller,
                          const std::string& error) {
  try {
    topogpu::vtk::DistributedPiece::agree(controller, error, error.empty());
  } catch (const topogpu::Error& e) {
    return e.what();
  } catch (const std::exception&) {
  }
  return {};
}

} // namespace

// One RequestData: the run prepared for Compute and what the distributed steps decided.
// A nested class, so that its steps read the filter's settings.
struct vtkTopoGPUAlgorithm::DataRequest {
  enum class Outcome { Computed, OnRank0, EmptyPiece, Failed };
  // Fractions of the progress bar: triangulation, then the core call, then outputs.
  static constexpr double kCoreStart = 0.1, kCoreEnd = 0.95;

  DataRequest(vtkTopoGPUAlgorithm& filter, vtkInformation* request,
              vtkInformationVector** inputs, vtkInformationVector* outputs);

  // Monotone: a stage restarting at 0 must not move the bar back.
  void progress(double p) {
    if (p > lastProgress) {
      lastProgress = p;
      self.UpdateProgress(p);
    }
  }
  void rebuildPiece();
  void gatherWholeDomain();
  void compute();
  void computeOnTriangulation();
  void wireBackendAndMonitor();
  void attachOrder(vtkDataSet* from, const std::string& name, bool renumber);
  void writeReport(double seconds);

  vtkTopoGPUAlgorithm& self;
  vtkInformationVector** inputVector;
  vtkInformationVector* outputVector;
  vtkDataSet* input;
  vtkMultiProcessController* controller;
  // The port that made the request: the pieces asked for there (the same on every rank).
  vtkInformation* fromInfo;
  bool wholeDomain = false;
  bool byPieces = false;
  topogpu::vtk::FilterRun run;
  std::vector<std::pair<std::string, double>> stages;
  double lastProgress = 0.0;
  std::unique_ptr<topogpu::vtk::DistributedPiece> piece;
  vtkSmartPointer<vtkDataSet> gathered;
  // Past a gather that went ahead, every rank takes part in handing out the image
  // pieces, whatever happens to the computation on rank 0.
  bool handOut = false;
  Outcome outcome = Outcome::Computed;
  bool pieceAgreed = false; // a rebuilt piece's ranks agreed to compute (see below)
  // The triangulation this run holds (shared with the filters on the same data).
  topogpu::vtk::TriangulationRegistry::Lease triangulation;
};

vtkTopoGPUAlgorithm::DataRequest::DataRequest(vtkTopoGPUAlgorithm& filter,
                                              vtkInformation* request,
                                              vtkInformationVector** inputs,
                                              vtkInformationVector* outputs)
    : self(filter), inputVector(inputs), outputVector(outputs),
      input(vtkDataSet::GetData(inputs[0], 0)),
      controller(vtkMultiProcessController::GetGlobalController()),
      fromInfo(outputs->GetInformationObject(requestingPort(request, outputs))) {
  run.inputVector = inputs;
  run.outputVector = outputs;
  const int pieces = updateValue(
      fromInfo, vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_PIECES(), 1);
  const bool distributed =
      controller != nullptr && controller->GetNumberOfProcesses() > 1 && pieces > 1;
  wholeDomain = self.NeedsWholeDomain() && distributed;
  byPieces = self.LocalResult && !wholeDomain && distributed;
}

// LocalResult modules in a distributed run (collective): meshes are rebuilt with their
// ghost layers (as many as the module or a consumer needs); images keep the pipeline's.
void vtkTopoGPUAlgorithm::DataRequest::rebuildPiece() {
  using SDDP = vtkStreamingDemandDrivenPipeline;
  const topogpu::Timer pieceTimer;
  piece = topogpu::vtk::DistributedPiece::build(
      controller, input,
      std::max(self.LocalGhostLayers,
               updateValue(fromInfo, SDDP::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0)));
  if (piece) {
    input = piece->mesh();
    stages.emplace_back("ghost layers (distributed)", pieceTimer.seconds());
    return;
  }
  // Images: every rank checks its piece's ghost layers, and all go on or none.
  vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
  auto* image = vtkImageData::SafeDownCast(input);
  std::string missing =
      image == nullptr || image->GetNumberOfPoints() == 0
          ? std::string()
          : topogpu::vtk::missingImageGhosts(
                image, inInfo,
                updateValue(inInfo, SDDP::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0));
  if (!missing.empty())
    missing += ": its source ignores ghost-level requests, so the points at the cut "
               "would miss neighbours. Split the image with RedistributeDataSet or "
               "D3 first (the filter then builds the ghost layers itself) or run on "
               "one process";
  topogpu::vtk::DistributedPiece::agree(controller, missing, false);
  if (input == nullptr || input->GetNumberOfPoints() == 0)
    outcome = Outcome::EmptyPiece; // another rank holds the data
}

// Whole-domain modules in a distributed run (collective): meshes are gathered to rank 0
// and welded there, images gathered by extent; nothing otherwise.
void vtkTopoGPUAlgorithm::DataRequest::gatherWholeDomain() {
  const topogpu::Timer meshTimer;
  const auto mesh = wholeDomain
                        ? topogpu::vtk::DistributedPiece::gatherMesh(controller, input)
                        : topogpu::vtk::DistributedPiece::Gathered();
  if (mesh.whole) {
    gathered = mesh.whole;
    input = gathered;
    // The input array chosen on the gathered mesh, as on a serial input.
    const auto wholeVector = topogpu::vtk::inputVectorOf(gathered);
    vtkInformationVector* wholeInputs[1] = {wholeVector};
    if (self.NeedsInputScalars) {
      std::string name;
      run.scalars = self.ResolveInputScalars(wholeInputs, input, name);
      run.values = topogpu::vtk::viewScalarArray(run.scalars, name);
      attachOrder(input, name, true);
    }
    stages.emplace_back("gather to rank 0", meshTimer.seconds());
    return;
  }
  if (mesh.meshes) {
    outcome = Outcome::OnRank0;
    return;
  }
  if (!wholeDomain)
    return;
  const topogpu::Timer gatherTimer;
  topogpu::vtk::GatheredDomain domain = topogpu::vtk::gatherWholeDomain(
      controller, input, self.NeedsInputScalars,
      [&](std::string& name) {
        return self.ResolveInputScalars(inputVector, input, name);
      },
      self.CheckAbort(), self.WholeDomainBytesPerPoint(), self.WholeDomainMemoryBytes);
  handOut = true;
  if (!domain.error.empty())
    throw topogpu::Error(domain.error);
  if (!domain.image) {
    outcome = Outcome::OnRank0;
    return;
  }
  if (input != nullptr &&
      input->GetPointData()->GetAbstractArray(
          topogpu::vtk::orderArrayName(domain.name).c_str()) != nullptr)
    throw topogpu::Error("the order array '" + topogpu::vtk::orderArrayName(domain.name) +
                         "' of a distributed image is not gathered with '" + domain.name +
                         "': run this filter on one process, or without the order array");
  gathered = domain.image;
  input = gathered;
  run.scalars = domain.scalars;
  run.values = topogpu::vtk::viewScalarArray(run.scalars, domain.name);
  stages.emplace_back("gather to rank 0", gatherTimer.seconds());
  progress(0.05);
}

// The Backend property, a Monitor wired to the progress bar and the abort flag, and
// the vertex orders every filter of the process shares.
void vtkTopoGPUAlgorithm::DataRequest::wireBackendAndMonitor() {
  static topogpu::frontend::VertexOrderCache orders;
  run.vertexOrder = orders.source();
  run.backend = self.Backend == BACKEND_CPU   ? topogpu::Backend::Cpu
                : self.Backend == BACKEND_GPU ? topogpu::Backend::Gpu
                                              : topogpu::Backend::Auto;
  run.monitor.progress = [this](double fraction) {
    progress(kCoreStart + (kCoreEnd - kCoreStart) * std::clamp(fraction, 0.0, 1.0));
  };
  run.monitor.abortRequested = [this]() { return self.CheckAbort(); };
}

// TTK's vertex order array of the input scalar (`<name>_Order`), when `from` has one:
// every module then takes it instead of sorting the values (a simplified field's flat
// regions are ordered by it alone). A piece of a distributed field holds the whole
// field's ranks: renumbered, their relative order kept.
void vtkTopoGPUAlgorithm::DataRequest::attachOrder(vtkDataSet* from,
                                                   const std::string& name,
                                                   bool renumber) {
  run.orderArray = topogpu::vtk::attachOrderArray(from, name, run.values, run.givenOrder,
                                                  {}, renumber);
}

void vtkTopoGPUAlgorithm::DataRequest::compute() {
  if (!self.NeedsTriangulation) {
    run.input = input;
    run.inputObject = vtkDataObject::GetData(inputVector[0], 0);
    wireBackendAndMonitor();
    self.Compute(run);
  } else if (piece && input->GetNumberOfPoints() == 0) {
    // Nothing here, but the other ranks' collective steps need this one.
    pieceAgreed = true;
    topogpu::vtk::DistributedPiece::agree(controller, "", self.CheckAbort());
    run.input = input;
    run.inputObject = input;
    run.piece = piece.get();
    self.ComputeEmptyPiece(run);
    outcome = Outcome::EmptyPiece;
  } else {
    computeOnTriangulation();
  }
}

void vtkTopoGPUAlgorithm::DataRequest::computeOnTriangulation() {
  if (input == nullptr || input->GetNumberOfPoints() == 0)
    throw topogpu::Error("the input is empty (no points)");
  run.input = input;
  run.inputObject = input;
  run.piece = piece.get();
  if (self.NeedsInputScalars && !wholeDomain) {
    std::string name;
    run.scalars =
        self.ResolveInputScalars(inputVector, piece ? piece->input() : input, name);
    if (piece)
      run.scalars = piece->carried(run.scalars);
    run.values = topogpu::vtk::viewScalarArray(run.scalars, name);
    attachOrder(input, name, piece != nullptr || byPieces);
  }

  topogpu::Timer timer;
  topogpu::gale::Parameters gale;
  gale.randomAccess = self.TriangulationRandomAccess;
  // A rebuilt piece's triangulation views its cells: this run's alone.
  triangulation = topogpu::vtk::TriangulationRegistry::shared().acquire(
      input, topogpu::vtk::TriangulationChoice(self.TriangulationChoice()), gale,
      piece == nullptr);
  stages.emplace_back(triangulation.reused() ? "triangulation (cached)" : "triangulation",
                      timer.seconds());
  if (piece) {
    // Every rank of a rebuilt piece gets here or fails in RequestData's catch: Compute
    // starts on all of them or on none.
    pieceAgreed = true;
    topogpu::vtk::DistributedPiece::agree(controller, "", self.CheckAbort());
  }
  if (!triangulation.result().notes.empty())
    vtkWarningWithObjectMacro(&self,
                              << topogpu::vtk::notesMessage(triangulation.result()));
  progress(kCoreStart);
  if (self.CheckAbort())
    throw topogpu::Aborted();

  run.triangulation = &triangulation.result().triangulation;
  wireBackendAndMonitor();
  // A gathered image is one piece: no ghosts, every point owned; a rebuilt piece
  // marks the points other ranks own as ghosts.
  const topogpu::vtk::PieceOwnership ownership(
      input, wholeDomain || piece ? nullptr : inputVector[0]->GetInformationObject(0));
  run.ownership = &ownership;
  self.Compute(run);
}

// The RunReport to the first output's field data; its warnings to vtkWarningMacro.
void vtkTopoGPUAlgorithm::DataRequest::writeReport(double seconds) {
  for (const topogpu::Warning& warning : run.report.warnings)
    vtkWarningWithObjectMacro(&self, << warning.text);
  for (const auto& stage : run.report.timings)
    stages.push_back(stage);
  auto backend = vtkSmartPointer<vtkStringArray>::New();
  backend->SetName("TopoGPUBackend");
  backend->InsertNextValue(run.report.backend);
  auto time = vtkSmartPointer<vtkDoubleArray>::New();
  time->SetName("TopoGPUTime");
  time->InsertNextValue(seconds);
  auto stageNames = vtkSmartPointer<vtkStringArray>::New();
  stageNames->SetName("TopoGPUTimingStages");
  auto stageSeconds = vtkSmartPointer<vtkDoubleArray>::New();
  stageSeconds->SetName("TopoGPUTimings");
  for (const auto& stage : stages) {
    stageNames->InsertNextValue(stage.first);
    stageSeconds->InsertNextValue(stage.second);
  }
  if (vtkDataObject* output = vtkDataObject::GetData(outputVector, 0)) {
    vtkFieldData* fd = output->GetFieldData();
    if (!run.orderArray.empty()) {
      auto order = vtkSmartPointer<vtkStringArray>::New();
      order->SetName("TopoGPUOrderArray"); // the vertex order taken (TTK's `_Order`)
      order->InsertNextValue(run.orderArray);
      fd->AddArray(order);
    }
    fd->AddArray(backend);
    fd->AddArray(time);
    fd->AddArray(stageNames);
    fd->AddArray(stageSeconds);
  }
}

int vtkTopoGPUAlgorithm::RequestData(vtkInformation* request,
                                     vtkInformationVector** inputVector,
                                     vtkInformationVector* outputVector) {
  using Outcome = DataRequest::Outcome;
  ClearOutputs(outputVector);
  const topogpu::Timer total;
  DataRequest r(*this, request, inputVector, outputVector);
  try {
    if (r.byPieces)
      r.rebuildPiece();
    r.gatherWholeDomain();
    if (r.outcome == Outcome::Computed)
      r.compute();
  } catch (const topogpu::Aborted&) {
    // The user asked for it: an empty output, no error dialog.
    if (r.piece != nullptr && !r.pieceAgreed)
      agreedFailure(r.controller, "");
    ClearOutputs(outputVector);
    r.outcome = Outcome::Failed;
  } catch (const std::exception& e) {
    const std::string message = r.piece != nullptr && !r.pieceAgreed
                                    ? agreedFailure(r.controller, e.what())
                                    : e.what();
    if (!message.empty())
      vtkErrorMacro(<< this->Label << ": " << message);
    ClearOutputs(outputVector);
    // A failed triangulation must not be reused after the input is fixed in place.
    if (r.triangulation)
      topogpu::vtk::TriangulationRegistry::shared().forget(r.triangulation);
    r.outcome = Outcome::Failed;
  }
  if (r.handOut)
    topogpu::vtk::handOutImagePieces(r.controller, outputVector, r.fromInfo);
  if (r.outcome == Outcome::Failed || r.outcome == Outcome::EmptyPiece)
    return 1;
  if (r.outcome == Outcome::OnRank0) {
    // The result is on rank 0 (and the images' pieces here): the outputs say where.
    topogpu::vtk::addResultRank(outputVector);
    r.progress(1.0);
    return 1;
  }
  r.writeReport(total.seconds());
  if (r.wholeDomain)
    topogpu::vtk::addResultRank(outputVector);
  r.progress(1.0);
  return 1;
}

bool vtkTopoGPUAlgorithm::RequestedPieceExtent(vtkInformation* outInfo, int extent[6]) {
  if (outInfo == nullptr ||
      (!outInfo->Has(vtkDataObject::ALL_PIECES_EXTENT()) &&
       !outInfo->Has(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT())))
    return false;
  const topogpu::vtk::PieceRequest wanted = topogpu::vtk::pieceRequest(outInfo, outInfo);
  std::copy(wanted.extent, wanted.extent + 6, extent);
  return true;
}

bool vtkTopoGPUAlgorithm::IsDistributedRequest(vtkInformationVector* outputVector) {
  vtkMultiProcessController* controller =
      vtkMultiProcessController::GetGlobalController();
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  const auto piecesKey = vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_PIECES();
  const int pieces =
      outInfo != nullptr && outInfo->Has(piecesKey) ? outInfo->Get(piecesKey) : 1;
  return controller != nullptr && controller->GetNumberOfProcesses() > 1 && pieces > 1;
}
