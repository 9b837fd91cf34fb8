#include "vtkTopoGPUAlgorithm.h"

#include "TopoGPUFilterRun.h"

#include "core/common/Timer.h"

#include <vtkBitArray.h>
#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkDataObjectTypes.h>
#include <vtkDataSet.h>
#include <vtkDemandDrivenPipeline.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStreamingDemandDrivenPipeline.h>
#include <vtkStringArray.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::vtk {

PieceOwnership::PieceOwnership(vtkDataSet* input, vtkInformation* inputInfo)
    : ghosts_(input->GetPointData()->GetGhostArray()) {
  auto* image = vtkImageData::SafeDownCast(input);
  if (image == nullptr || inputInfo == nullptr ||
      !inputInfo->Has(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT()))
    return;
  int whole[6];
  int extent[6];
  inputInfo->Get(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT(), whole);
  image->GetExtent(extent);
  image->GetDimensions(dims_);
  for (int a = 0; a < 3; ++a) {
    // last non-ghost index along axis a (ghost layers are whole planes)
    int center[3] = {dims_[0] / 2, dims_[1] / 2, dims_[2] / 2};
    lastOwned_[a] = dims_[a] - 1;
    for (int k = dims_[a] - 1; k >= 0 && ghosts_; --k) {
      center[a] = k;
      if (!isGhost(center[0] + dims_[0] * (center[1] + dims_[1] * center[2]))) {
        lastOwned_[a] = k;
        break;
      }
    }
    const std::size_t low = std::size_t(2) * a, high = low + 1;
    if (extent[low] + lastOwned_[a] < whole[high])
      --lastOwned_[a]; // the shared face belongs to the next piece
  }
  isImage_ = true;
}

bool PieceOwnership::owns(vtkIdType v) const {
  if (isGhost(v))
    return false;
  if (!isImage_)
    return true;
  const int ijk[3] = {int(v % dims_[0]), int((v / dims_[0]) % dims_[1]),
                      int(v / (vtkIdType(dims_[0]) * dims_[1]))};
  for (int a = 0; a < 3; ++a) {
    if (ijk[a] > lastOwned_[a])
      return false;
  }
  return true;
}

bool PieceOwnership::isGhost(vtkIdType v) const {
  return ghosts_ != nullptr &&
         (ghosts_->GetValue(v) & vtkDataSetAttributes::DUPLICATEPOINT);
}

} // namespace topogpu::vtk

namespace {

// Identifies the connectivity of a data set: the triangulation depends on the cells only,
// never on point coordinates or point data, so editing a scalar keeps the cache valid.
// Pointers are paired with MTimes, which are unique across objects, so a reallocated
// array at the same address cannot alias an old key.
struct GeometryKey {
  std::string type;
  int dims[3] = {0, 0, 0};
  vtkIdType points = 0;
  vtkIdType cells = 0;
  std::vector<std::pair<const void*, vtkMTimeType>> parts;

  bool operator==(const GeometryKey& o) const {
    return type == o.type && dims[0] == o.dims[0] && dims[1] == o.dims[1] &&
           dims[2] == o.dims[2] && points == o.points && cells == o.cells &&
           parts == o.parts;
  }
};

void addPart(GeometryKey& key, vtkObject* object) {
  key.parts.emplace_back(object, object ? object->GetMTime() : 0);
}

void addCellArray(GeometryKey& key, vtkCellArray* cells) {
  addPart(key, cells);
  if (cells) {
    addPart(key, cells->GetOffsetsArray());
    addPart(key, cells->GetConnectivityArray());
  }
}

// Returns false for data sets whose connectivity cannot be keyed (never cached).
bool makeGeometryKey(vtkDataSet* input, GeometryKey& key) {
  key.type = input->GetClassName();
  key.points = input->GetNumberOfPoints();
  key.cells = input->GetNumberOfCells();
  if (auto* image = vtkImageData::SafeDownCast(input)) {
    image->GetDimensions(key.dims);
    return true;
  }
  if (auto* grid = vtkUnstructuredGrid::SafeDownCast(input)) {
    addCellArray(key, grid->GetCells());
    addPart(key, grid->GetCellTypesArray());
    return true;
  }
  if (auto* poly = vtkPolyData::SafeDownCast(input)) {
    addCellArray(key, poly->GetVerts());
    addCellArray(key, poly->GetLines());
    addCellArray(key, poly->GetPolys());
    addCellArray(key, poly->GetStrips());
    return true;
  }
  return false;
}

// Why an array cannot be the input scalar; empty when it can (numeric, one component,
// not a bit array: the core reads whole values).
std::string unusableReason(vtkAbstractArray* array) {
  if (vtkBitArray::SafeDownCast(array))
    return "is a bit array (vtkBitArray); convert it to a numeric type first, e.g. with "
           "a Calculator";
  auto* data = vtkDataArray::SafeDownCast(array);
  if (data == nullptr)
    return std::string("is not numeric (") + array->GetClassName() + ")";
  if (data->GetNumberOfComponents() != 1)
    return "has " + std::to_string(data->GetNumberOfComponents()) +
           " components; a scalar (1 component) array is needed";
  return {};
}

std::string pointArrayList(vtkDataSet* input) {
  vtkPointData* pd = input->GetPointData();
  std::string list;
  for (int i = 0; i < pd->GetNumberOfArrays(); ++i) {
    const char* name = pd->GetArrayName(i);
    list += (list.empty() ? "" : ", ") + std::string(name ? name : "(unnamed)");
  }
  return list.empty() ? "the input has no point arrays" : "point arrays: " + list;
}

} // namespace

struct vtkTopoGPUAlgorithm::TriangulationCache {
  GeometryKey key;
  topogpu::vtk::TriangulationResult result;
};

vtkTopoGPUAlgorithm::vtkTopoGPUAlgorithm() {
  this->SetNumberOfInputPorts(1);
  this->SetNumberOfOutputPorts(1);
  // No name: the active point scalars, else the first numeric point array (as the GUI).
  this->SetInputArrayToProcess(0, 0, 0, vtkDataObject::FIELD_ASSOCIATION_POINTS,
                               vtkDataSetAttributes::SCALARS);
}

vtkTopoGPUAlgorithm::~vtkTopoGPUAlgorithm() = default;

void vtkTopoGPUAlgorithm::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Backend: " << this->Backend << " (0 auto, 1 CPU, 2 GPU)\n";
  os << indent << "Cached triangulation: " << (this->Cache ? "yes" : "no") << "\n";
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
    return this->RequestData(request, inputVector, outputVector);
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
    // An abstract port type (vtkDataSet) means "the input's type".
    const bool sameAsInput = input != nullptr && std::string(type) == "vtkDataSet";
    const char* wanted = sameAsInput ? input->GetClassName() : type;
    if (existing != nullptr && existing->IsA(wanted))
      continue;
    vtkSmartPointer<vtkDataObject> created;
    if (sameAsInput)
      created.TakeReference(input->NewInstance());
    else
      created.TakeReference(vtkDataObjectTypes::NewDataObject(type));
    if (!created)
      return 0;
    outInfo->Set(vtkDataObject::DATA_OBJECT(), created);
  }
  return 1;
}

int vtkTopoGPUAlgorithm::RequestInformation(vtkInformation*, vtkInformationVector**,
                                            vtkInformationVector*) {
  return 1;
}

int vtkTopoGPUAlgorithm::RequestUpdateExtent(vtkInformation*,
                                             vtkInformationVector** inputVector,
                                             vtkInformationVector* outputVector) {
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
  if (outInfo == nullptr || inInfo == nullptr)
    return 1;
  const int requested =
      outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS())
          ? outInfo->Get(
                vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS())
          : 0;
  inInfo->Set(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS(),
              std::max(requested, 1));
  return 1;
}

namespace {

// The point scalar the filter runs on: the named array, or without a name the active
// point scalars, else the first usable point array.
} // namespace

vtkDataArray* vtkTopoGPUAlgorithm::ResolveInputScalars(vtkInformationVector** inputVector,
                                                       vtkDataSet* input,
                                                       std::string& name) {

  std::string requested;
  if (vtkInformation* info = this->GetInputArrayInformation(0)) {
    if (info->Has(vtkDataObject::FIELD_NAME()) && info->Get(vtkDataObject::FIELD_NAME()))
      requested = info->Get(vtkDataObject::FIELD_NAME());
  }
  if (!requested.empty()) {
    name = requested;
    int association = -1;
    vtkAbstractArray* array =
        this->GetInputAbstractArrayToProcess(0, inputVector, association);
    if (array == nullptr)
      throw topogpu::Error("no point scalar array '" + name + "' on the input (" +
                           pointArrayList(input) + ")");
    if (association != vtkDataObject::FIELD_ASSOCIATION_POINTS)
      throw topogpu::Error("array '" + name +
                           "' is not point data; select a point scalar");
    const std::string reason = unusableReason(array);
    if (!reason.empty())
      throw topogpu::Error("array '" + name + "' " + reason);
    return vtkDataArray::SafeDownCast(array);
  }
  vtkPointData* pd = input->GetPointData();
  std::vector<vtkAbstractArray*> candidates;
  if (pd->GetScalars() != nullptr)
    candidates.push_back(pd->GetScalars());
  for (int i = 0; i < pd->GetNumberOfArrays(); ++i)
    candidates.push_back(pd->GetAbstractArray(i));
  for (vtkAbstractArray* array : candidates) {
    if (array != nullptr && array != pd->GetGhostArray() &&
        unusableReason(array).empty()) {
      name = array->GetName() ? array->GetName() : "(unnamed)";
      return vtkDataArray::SafeDownCast(array);
    }
  }
  throw topogpu::Error("no array selected and the input has no numeric one-component "
                       "point array (" +
                       pointArrayList(input) + ")");
}

namespace {

void clearOutputs(vtkInformationVector* outputVector) {
  for (int i = 0; i < outputVector->GetNumberOfInformationObjects(); ++i) {
    if (vtkDataObject* output = vtkDataObject::GetData(outputVector, i))
      output->Initialize();
  }
}

} // namespace

int vtkTopoGPUAlgorithm::RequestData(vtkInformation*, vtkInformationVector** inputVector,
                                     vtkInformationVector* outputVector) {
  clearOutputs(outputVector);
  vtkDataSet* input = vtkDataSet::GetData(inputVector[0], 0);
  const topogpu::Timer total;
  topogpu::vtk::FilterRun run;
  run.inputVector = inputVector;
  run.outputVector = outputVector;
  std::vector<std::pair<std::string, double>> stages;
  // Fractions of the progress bar: triangulation, then the core call, then outputs.
  constexpr double kCoreStart = 0.1, kCoreEnd = 0.95;
  double lastProgress = 0.0;
  const auto progress = [this, &lastProgress](double p) {
    // monotone: a stage restarting at 0 must not move the bar back
    if (p > lastProgress) {
      lastProgress = p;
      this->UpdateProgress(p);
    }
  };
  try {
    if (input == nullptr || input->GetNumberOfPoints() == 0)
      throw topogpu::Error("the input is empty (no points)");
    run.input = input;
    if (this->NeedsInputScalars) {
      std::string name;
      run.scalars = this->ResolveInputScalars(inputVector, input, name);
      run.values = topogpu::vtk::viewScalarArray(run.scalars, name);
    }

    topogpu::Timer timer;
    GeometryKey key;
    const bool cacheable = makeGeometryKey(input, key);
    bool reused = false;
    if (cacheable && this->Cache && this->Cache->key == key) {
      reused = true;
    } else {
      this->Cache.reset();
      auto fresh = std::make_unique<TriangulationCache>();
      fresh->result = topogpu::vtk::makeTriangulation(input);
      fresh->key = std::move(key);
      this->Cache = std::move(fresh);
    }
    stages.emplace_back(reused ? "triangulation (cached)" : "triangulation",
                        timer.seconds());
    if (!this->Cache->result.note.empty())
      vtkWarningMacro(<< "Mixed cells: " << this->Cache->result.note << ".");
    progress(kCoreStart);
    if (this->CheckAbort())
      throw topogpu::Aborted();

    run.triangulation = &this->Cache->result.triangulation;
    run.backend = this->Backend == BACKEND_CPU   ? topogpu::Backend::Cpu
                  : this->Backend == BACKEND_GPU ? topogpu::Backend::Gpu
                                                 : topogpu::Backend::Auto;
    run.monitor.progress = [&](double fraction) {
      progress(kCoreStart + (kCoreEnd - kCoreStart) * std::clamp(fraction, 0.0, 1.0));
    };
    run.monitor.abortRequested = [this]() { return this->CheckAbort(); };
    const topogpu::vtk::PieceOwnership ownership(input,
                                                 inputVector[0]->GetInformationObject(0));
    run.ownership = &ownership;
    this->Compute(run);
    if (!cacheable)
      this->Cache.reset();
  } catch (const topogpu::Aborted&) {
    // The user asked for it: an empty output, no error dialog.
    clearOutputs(outputVector);
    return 1;
  } catch (const std::exception& e) {
    vtkErrorMacro(<< this->Label << ": " << e.what());
    clearOutputs(outputVector);
    // A failed triangulation must not be reused after the input is fixed in place.
    this->Cache.reset();
    return 1;
  }
  for (const std::string& warning : run.report.warnings)
    vtkWarningMacro(<< warning);

  for (const auto& stage : run.report.timings)
    stages.push_back(stage);
  auto backend = vtkSmartPointer<vtkStringArray>::New();
  backend->SetName("TopoGPUBackend");
  backend->InsertNextValue(run.report.backend);
  auto time = vtkSmartPointer<vtkDoubleArray>::New();
  time->SetName("TopoGPUTime");
  time->InsertNextValue(total.seconds());
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
    fd->AddArray(backend);
    fd->AddArray(time);
    fd->AddArray(stageNames);
    fd->AddArray(stageSeconds);
  }
  progress(1.0);
  return 1;
}
