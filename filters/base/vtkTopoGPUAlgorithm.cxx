#include "vtkTopoGPUAlgorithm.h"

#include "TopoGPUDistributedPiece.h"
#include "TopoGPUFilterRun.h"

#include "base/HostMemory.h"
#include "base/Timer.h"
#include "frontend/EnvironmentKnobs.h"

#include <vtkBitArray.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataObjectTypes.h>
#include <vtkDataSet.h>
#include <vtkDemandDrivenPipeline.h>
#include <vtkDoubleArray.h>
#include <vtkExecutive.h>
#include <vtkExtentTranslator.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationIntegerKey.h>
#include <vtkInformationVector.h>
#include <vtkIntArray.h>
#include <vtkMatrix3x3.h>
#include <vtkMultiProcessController.h>
#include <vtkPointData.h>
#include <vtkPointSet.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkRectilinearGrid.h>
#include <vtkSmartPointer.h>
#include <vtkStreamingDemandDrivenPipeline.h>
#include <vtkStringArray.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
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
  return isGhostPoint(ghosts_, v);
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
  int choice = 0; // the TriangulationChoice it was built with
  topogpu::vtk::TriangulationResult result;
};

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

namespace {

// The output port a request came from (port 0 when the request does not say).
int requestingPort(vtkInformation* request, vtkInformationVector* outputVector) {
  int port = 0;
  if (request != nullptr && request->Has(vtkExecutive::FROM_OUTPUT_PORT()))
    port = request->Get(vtkExecutive::FROM_OUTPUT_PORT());
  if (port < 0 || port >= outputVector->GetNumberOfInformationObjects())
    port = 0;
  return port;
}

int updateValue(vtkInformation* info, vtkInformationIntegerKey* key, int fallback) {
  return info != nullptr && info->Has(key) ? info->Get(key) : fallback;
}

} // namespace

int vtkTopoGPUAlgorithm::RequestUpdateExtent(vtkInformation* request,
                                             vtkInformationVector** inputVector,
                                             vtkInformationVector* outputVector) {
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

vtkInformationKeyMacro(vtkTopoGPUAlgorithm, LABEL_ARRAY, Integer);

namespace {

bool isLabelArray(vtkAbstractArray* array) {
  return array->HasInformation() &&
         array->GetInformation()->Has(vtkTopoGPUAlgorithm::LABEL_ARRAY());
}

// Where the input holds an array of that name ("cell data", "field data"), for messages.
std::string whereElse(vtkDataSet* input, const std::string& name) {
  std::string where;
  if (input->GetCellData()->GetAbstractArray(name.c_str()) != nullptr)
    where = "cell data";
  if (input->GetFieldData()->GetAbstractArray(name.c_str()) != nullptr)
    where += (where.empty() ? "" : " and ") + std::string("field data");
  return where;
}

const char* associationName(int association) {
  switch (association) {
  case vtkDataObject::FIELD_ASSOCIATION_POINTS:
    return "point data";
  case vtkDataObject::FIELD_ASSOCIATION_CELLS:
    return "cell data";
  case vtkDataObject::FIELD_ASSOCIATION_NONE:
    return "field data";
  default:
    return "another association";
  }
}

} // namespace

// The point scalar the filter runs on: the named array, or without a name the active
// point scalars, else the first usable point array; TopoGPU's own label arrays are no
// default.
vtkDataArray* vtkTopoGPUAlgorithm::ResolveInputScalars(vtkInformationVector** inputVector,
                                                       vtkDataSet* input,
                                                       std::string& name) {
  std::string requested;
  int asked = vtkDataObject::FIELD_ASSOCIATION_POINTS;
  if (vtkInformation* info = this->GetInputArrayInformation(0)) {
    if (info->Has(vtkDataObject::FIELD_NAME()) && info->Get(vtkDataObject::FIELD_NAME()))
      requested = info->Get(vtkDataObject::FIELD_NAME());
    if (info->Has(vtkDataObject::FIELD_ASSOCIATION()))
      asked = info->Get(vtkDataObject::FIELD_ASSOCIATION());
  }
  vtkPointData* pd = input->GetPointData();
  if (!requested.empty()) {
    name = requested;
    int association = -1;
    vtkAbstractArray* array =
        this->GetInputAbstractArrayToProcess(0, inputVector, association);
    if (array == nullptr && pd->GetAbstractArray(name.c_str()) != nullptr)
      throw topogpu::Error("array '" + name + "' was selected as " +
                           associationName(asked) +
                           ", but the input has it as point data: select it as a point "
                           "array, e.g. SelectInputScalars = ['POINTS', '" +
                           name + "']");
    const std::string elsewhere = whereElse(input, name);
    if (array == nullptr)
      throw topogpu::Error("no point scalar array '" + name + "' on the input" +
                           (elsewhere.empty() ? ""
                                              : " ('" + name + "' is " + elsewhere +
                                                    "; a point array is needed)") +
                           " (" + pointArrayList(input) + ")");
    if (association != vtkDataObject::FIELD_ASSOCIATION_POINTS)
      throw topogpu::Error("array '" + name + "' is " + associationName(association) +
                           ", not point data; select a point scalar (" +
                           pointArrayList(input) + ")");
    const std::string reason = unusableReason(array);
    if (!reason.empty())
      throw topogpu::Error("array '" + name + "' " + reason);
    return vtkDataArray::SafeDownCast(array);
  }
  std::vector<vtkAbstractArray*> candidates;
  if (pd->GetScalars() != nullptr)
    candidates.push_back(pd->GetScalars());
  for (int i = 0; i < pd->GetNumberOfArrays(); ++i)
    candidates.push_back(pd->GetAbstractArray(i));
  std::string labels;
  for (vtkAbstractArray* array : candidates) {
    if (array == nullptr || array == pd->GetGhostArray() ||
        !unusableReason(array).empty())
      continue;
    const std::string arrayName = array->GetName() ? array->GetName() : "(unnamed)";
    if (isLabelArray(array)) {
      if (labels.find("'" + arrayName + "'") == std::string::npos)
        labels += (labels.empty() ? "'" : ", '") + arrayName + "'";
      continue;
    }
    name = arrayName;
    return vtkDataArray::SafeDownCast(array);
  }
  if (!labels.empty())
    throw topogpu::Error("no array selected, and the input's numeric point arrays (" +
                         labels +
                         ") are labels that a TopoGPU filter outputs (types, ids, "
                         "manifold indices), not a scalar field; select one with "
                         "SelectInputScalars to use it anyway");
  throw topogpu::Error("no array selected and the input has no numeric one-component "
                       "point array (" +
                       pointArrayList(input) + ")");
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

// Whole-domain mode (NeedsWholeDomain): the pieces of a distributed image gathered to
// one rank. Every step is collective, and every rank learns whether the gather goes
// ahead before any data moves, so a failing rank never leaves the others blocked.
constexpr int kResultRank = 0;
constexpr int kValuesTag = 0x7470; // "tp"
constexpr int kPieceTag = 0x7471;
// Values travel in chunks well under MPI's int counts.
constexpr vtkIdType kChunkBytes = vtkIdType(1) << 30;

// Whole-domain mode: every rank's outputs name the rank holding the result.
void addResultRank(vtkInformationVector* outputVector) {
  for (int i = 0; i < outputVector->GetNumberOfInformationObjects(); ++i) {
    if (vtkDataObject* output = vtkDataObject::GetData(outputVector, i)) {
      auto rank = vtkSmartPointer<vtkIntArray>::New();
      rank->SetName("TopoGPUResultRank");
      rank->InsertNextValue(kResultRank);
      output->GetFieldData()->AddArray(rank);
    }
  }
}

enum PieceStatus : long {
  PIECE_OK = 0,
  PIECE_EMPTY = 1,
  PIECE_ERROR = 2,
  PIECE_ABORTED = 3
};
// Header of one piece: status, extent (6), VTK data type, value bytes.
constexpr int kHeaderLongs = 9;
// Geometry of one piece: origin (3), spacing (3), direction (9).
constexpr int kHeaderDoubles = 15;

// Memory rank 0 may use: the host's available memory, or `forced` when set (the
// filter's TOPOGPU_WHOLE_DOMAIN_MEMORY_BYTES).
double availableMemoryBytes(const std::optional<double>& forced) {
  return forced ? *forced : topogpu::availableHostMemory();
}

std::string mebibytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

vtkIdType extentPoints(const long* e) {
  vtkIdType n = 1;
  for (std::size_t a = 0; a < 3; ++a)
    n *= std::max<vtkIdType>(0, vtkIdType(e[2 * a + 1] - e[2 * a] + 1));
  return n;
}

void sendValues(vtkMultiProcessController* controller, const char* data,
                vtkIdType bytes) {
  for (vtkIdType at = 0; at < bytes; at += kChunkBytes)
    controller->Send(data + at, std::min(kChunkBytes, bytes - at), kResultRank,
                     kValuesTag);
}

void receiveValues(vtkMultiProcessController* controller, char* data, vtkIdType bytes,
                   int from) {
  for (vtkIdType at = 0; at < bytes; at += kChunkBytes)
    controller->Receive(data + at, std::min(kChunkBytes, bytes - at), from, kValuesTag);
}

// Copies a piece's values (x fastest, over its extent) into the whole image's array and
// marks the points it covers. Ghost and shared points are written by several pieces
// with the same values.
void placePiece(const long* piece, const long* whole, const char* values, int valueSize,
                char* target, std::vector<unsigned char>& covered) {
  const vtkIdType nx = whole[1] - whole[0] + 1, ny = whole[3] - whole[2] + 1;
  const vtkIdType rowPoints = piece[1] - piece[0] + 1;
  const std::size_t rowBytes = std::size_t(rowPoints) * std::size_t(valueSize);
  for (long k = piece[4]; k <= piece[5]; ++k) {
    for (long j = piece[2]; j <= piece[3]; ++j) {
      const vtkIdType to =
          (piece[0] - whole[0]) + nx * ((j - whole[2]) + ny * (k - whole[4]));
      std::memcpy(target + std::size_t(to) * std::size_t(valueSize), values, rowBytes);
      std::memset(covered.data() + to, 1, std::size_t(rowPoints));
      values += rowBytes;
    }
  }
}

struct GatheredDomain {
  vtkSmartPointer<vtkImageData> image; // rank 0 only
  vtkDataArray* scalars = nullptr;
  std::string name;
  std::string error; // rank 0: the gather went ahead but its result is unusable
};

// Collective over all ranks. Returns the whole image on rank 0 and nothing elsewhere;
// throws topogpu::Error (on rank 0 and on a rank whose own piece is bad) or
// topogpu::Aborted (everywhere) when the gather does not go ahead. Once it returns on
// one rank it returns on every rank (rank 0 may carry an error), so the collective
// steps that follow are reached by all of them.
GatheredDomain gatherWholeDomain(
    vtkMultiProcessController* controller, vtkDataSet* input, bool needsScalars,
    const std::function<vtkDataArray*(std::string&)>& resolveScalars, bool aborted,
    double bytesPerPoint, const std::optional<double>& forcedAvailable) {
  const int rank = controller->GetLocalProcessId();
  const int ranks = controller->GetNumberOfProcesses();
  long header[kHeaderLongs] = {PIECE_EMPTY, 0, -1, 0, -1, 0, -1, VTK_VOID, 0};
  double geometry[kHeaderDoubles] = {0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::string localError, name;
  vtkSmartPointer<vtkDataArray> contiguous;
  try {
    auto* image = vtkImageData::SafeDownCast(input);
    if (aborted)
      header[0] = PIECE_ABORTED;
    else if (input == nullptr || input->GetNumberOfPoints() == 0)
      header[0] = PIECE_EMPTY;
    else if (image == nullptr)
      throw topogpu::Error(std::string("a distributed ") + input->GetClassName() +
                           " cannot be gathered to one rank (only images, vtkImageData, "
                           "are); run this filter on one process or on an image");
    else if (!needsScalars)
      throw topogpu::Error("whole-domain mode gathers the input scalar; this filter "
                           "has none");
    else {
      vtkDataArray* scalars = resolveScalars(name);
      contiguous = scalars;
      if (!scalars->HasStandardMemoryLayout()) {
        contiguous.TakeReference(vtkDataArray::CreateDataArray(scalars->GetDataType()));
        contiguous->DeepCopy(scalars);
      }
      int extent[6];
      image->GetExtent(extent);
      for (int i = 0; i < 6; ++i)
        header[1 + i] = extent[i];
      header[0] = PIECE_OK;
      header[7] = scalars->GetDataType();
      header[8] = long(scalars->GetNumberOfTuples()) * scalars->GetDataTypeSize();
      image->GetOrigin(geometry);
      image->GetSpacing(geometry + 3);
      const double* direction = image->GetDirectionMatrix()->GetData();
      std::copy(direction, direction + 9, geometry + 6);
    }
  } catch (const std::exception& e) {
    // Any failure here must still reach the collective steps below.
    header[0] = PIECE_ERROR;
    localError = e.what();
  }

  std::vector<long> headers(std::size_t(ranks) * kHeaderLongs);
  std::vector<double> geometries(std::size_t(ranks) * kHeaderDoubles);
  controller->Gather(header, headers.data(), kHeaderLongs, kResultRank);
  controller->Gather(geometry, geometries.data(), kHeaderDoubles, kResultRank);

  // Rank 0 decides: 0 go ahead, 1 abort, 2 fail.
  long decision = 0;
  std::string reason;
  long whole[6] = {0, -1, 0, -1, 0, -1};
  int firstPiece = -1;
  vtkIdType wholePoints = 0, largestPiece = 0;
  if (rank == kResultRank) {
    std::vector<int> bad;
    for (int r = 0; r < ranks; ++r) {
      const long* h = headers.data() + std::size_t(r) * kHeaderLongs;
      if (h[0] == PIECE_ABORTED)
        decision = std::max(decision, 1L);
      if (h[0] == PIECE_ERROR)
        bad.push_back(r);
      if (h[0] != PIECE_OK)
        continue;
      if (firstPiece < 0) {
        firstPiece = r;
        std::copy(h + 1, h + 7, whole);
      }
      const long* f = headers.data() + std::size_t(firstPiece) * kHeaderLongs;
      if (h[7] != f[7]) {
        reason = "the pieces' scalar arrays differ in type (rank " + std::to_string(r) +
                 " vs rank " + std::to_string(firstPiece) + ")";
        decision = 2;
      }
      for (std::size_t a = 0; a < 3; ++a) {
        whole[2 * a] = std::min(whole[2 * a], h[1 + 2 * a]);
        whole[2 * a + 1] = std::max(whole[2 * a + 1], h[2 + 2 * a]);
      }
      if (h[8] != extentPoints(h + 1) * vtkDataArray::GetDataTypeSize(int(h[7]))) {
        reason = "the piece on rank " + std::to_string(r) +
                 " has a scalar array whose size does not match its extent";
        decision = 2;
      }
      largestPiece = std::max<vtkIdType>(largestPiece, h[8]);
    }
    if (!bad.empty()) {
      reason = "the piece";
      reason += bad.size() > 1 ? "s on ranks" : " on rank";
      for (std::size_t i = 0; i < bad.size(); ++i)
        reason += (i ? ", " : " ") + std::to_string(bad[i]);
      reason += bad.size() > 1 ? " are not usable (see their errors)"
                               : " is not usable (see its error)";
      decision = 2;
    } else if (firstPiece < 0 && decision == 0) {
      reason = "the input is empty (no points on any rank)";
      decision = 2;
    }
    if (decision == 0) {
      wholePoints = extentPoints(whole);
      const int valueSize = vtkDataArray::GetDataTypeSize(
          int(headers[7 + std::size_t(firstPiece) * kHeaderLongs]));
      const double field = double(wholePoints) * valueSize;
      const double needed = field + double(largestPiece) + double(wholePoints) +
                            double(wholePoints) * bytesPerPoint;
      const double available = availableMemoryBytes(forcedAvailable);
      if (needed > available) {
        reason = "the whole field (" + std::to_string(wholePoints) + " points, " +
                 mebibytes(field) + ") gathered to rank 0 with what the computation " +
                 "needs there takes about " + mebibytes(needed) + ", more than the " +
                 mebibytes(available) +
                 " available; this filter needs the whole domain " +
                 "on one rank, so run it on a machine with more memory or on a " +
                 "smaller (e.g. resampled) field";
        decision = 2;
      }
    }
  }
  controller->Broadcast(&decision, 1, kResultRank);
  if (decision == 1)
    throw topogpu::Aborted();
  if (decision == 2) {
    if (!localError.empty())
      throw topogpu::Error(localError);
    if (rank == kResultRank)
      throw topogpu::Error("whole-domain gather: " + reason);
    throw topogpu::Aborted(); // rank 0 reports why; an empty output here, no second error
  }

  GatheredDomain result;
  if (rank != kResultRank) {
    if (header[0] == PIECE_OK)
      sendValues(controller, static_cast<const char*>(contiguous->GetVoidPointer(0)),
                 header[8]);
    return result;
  }
  const long* first = headers.data() + std::size_t(firstPiece) * kHeaderLongs;
  const double* g = geometries.data() + std::size_t(firstPiece) * kHeaderDoubles;
  const int dataType = int(first[7]);
  const int valueSize = vtkDataArray::GetDataTypeSize(dataType);
  vtkSmartPointer<vtkDataArray> values;
  values.TakeReference(vtkDataArray::CreateDataArray(dataType));
  values->SetName(name.c_str());
  values->SetNumberOfTuples(wholePoints);
  char* target = static_cast<char*>(values->GetVoidPointer(0));
  std::vector<unsigned char> covered(std::size_t(wholePoints), 0);
  std::vector<char> buffer;
  for (int r = 0; r < ranks; ++r) {
    const long* h = headers.data() + std::size_t(r) * kHeaderLongs;
    if (h[0] != PIECE_OK)
      continue;
    const char* piece = nullptr;
    if (r == rank) {
      piece = static_cast<const char*>(contiguous->GetVoidPointer(0));
    } else {
      buffer.resize(std::size_t(h[8]));
      receiveValues(controller, buffer.data(), h[8], r);
      piece = buffer.data();
    }
    placePiece(h + 1, whole, piece, valueSize, target, covered);
  }
  const auto missing = std::count(covered.begin(), covered.end(), 0);
  if (missing > 0) {
    // Past the decision the other ranks are on their way to handOutImagePieces: rank 0
    // reports this there, not by leaving them waiting.
    result.error = "whole-domain gather: the pieces leave " + std::to_string(missing) +
                   " of the " + std::to_string(wholePoints) +
                   " points of their extent uncovered";
    return result;
  }
  if (name.empty())
    name = "(unnamed)";
  result.image = vtkSmartPointer<vtkImageData>::New();
  result.image->SetExtent(int(whole[0]), int(whole[1]), int(whole[2]), int(whole[3]),
                          int(whole[4]), int(whole[5]));
  result.image->SetOrigin(g[0], g[1], g[2]);
  result.image->SetSpacing(g[3], g[4], g[5]);
  result.image->SetDirectionMatrix(g + 6);
  result.image->GetPointData()->SetScalars(values);
  result.scalars = values;
  result.name = name;
  return result;
}

// Whole-domain mode: which extent of an image output this rank holds. VTK's piece
// protocol: the rank's piece (with its ghost layers) of the total extent asked for on
// the port (ALL_PIECES_EXTENT, which the executive stores there for a request in
// pieces), else of the whole extent, with the piece numbers of the port or, for a port
// nobody asked for in pieces, of the port that made the request.
struct PieceRequest {
  int total[6] = {0, -1, 0, -1, 0, -1};
  int extent[6] = {0, -1, 0, -1, 0, -1};    // with ghost layers
  int zeroGhost[6] = {0, -1, 0, -1, 0, -1}; // without
  int ghostLevels = 0;
};

PieceRequest pieceRequest(vtkInformation* outInfo, vtkInformation* fromInfo) {
  using SDDP = vtkStreamingDemandDrivenPipeline;
  PieceRequest r;
  vtkInformation* pieces =
      updateValue(outInfo, SDDP::UPDATE_NUMBER_OF_PIECES(), 1) > 1 ? outInfo : fromInfo;
  const int piece = updateValue(pieces, SDDP::UPDATE_PIECE_NUMBER(), 0);
  const int count = std::max(1, updateValue(pieces, SDDP::UPDATE_NUMBER_OF_PIECES(), 1));
  r.ghostLevels =
      std::max(0, updateValue(pieces, SDDP::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0));
  if (outInfo->Has(vtkDataObject::ALL_PIECES_EXTENT()))
    outInfo->Get(vtkDataObject::ALL_PIECES_EXTENT(), r.total);
  else if (outInfo->Has(SDDP::WHOLE_EXTENT()))
    outInfo->Get(SDDP::WHOLE_EXTENT(), r.total);
  auto translator = vtkSmartPointer<vtkExtentTranslator>::New();
  translator->PieceToExtentThreadSafe(piece, count, r.ghostLevels, r.total, r.extent,
                                      vtkExtentTranslator::BLOCK_MODE, 0);
  translator->PieceToExtentThreadSafe(piece, count, 0, r.total, r.zeroGhost,
                                      vtkExtentTranslator::BLOCK_MODE, 0);
  return r;
}

bool intersect(const int* a, const int* b, int* out) {
  for (std::size_t i = 0; i < 6; i += 2) {
    out[i] = std::max(a[i], b[i]);
    out[i + 1] = std::min(a[i + 1], b[i + 1]);
    if (out[i] > out[i + 1])
      return false;
  }
  return true;
}

// The piece of rank 0's image covering extent (empty where they do not meet).
vtkSmartPointer<vtkImageData> cropped(vtkImageData* whole, const int* extent) {
  auto piece = vtkSmartPointer<vtkImageData>::New();
  int wholeExtent[6], common[6];
  whole->GetExtent(wholeExtent);
  if (whole->GetNumberOfPoints() > 0 && intersect(wholeExtent, extent, common)) {
    piece->ShallowCopy(whole);
    piece->Crop(common); // new arrays: whole's stay as they are
  } else {
    piece->GetFieldData()->ShallowCopy(whole->GetFieldData());
  }
  return piece;
}

// Whole-domain mode, collective over all ranks, after rank 0 computed (or failed: its
// outputs are then empty). Every image output is split by VTK's piece protocol: each
// rank receives the piece it asks for and rank 0 keeps its own. Each image records the
// total extent it is a piece of (ALL_PIECES_EXTENT), against which the executive checks
// later requests: a consumer asking this rank for a sub-extent of it (a contour, an
// extract of a VOI) does not re-execute the filter, so no rank ever re-enters the gather
// alone (a hang). Non-image outputs stay on rank 0.
void handOutImagePieces(vtkMultiProcessController* controller,
                        vtkInformationVector* outputVector, vtkInformation* fromInfo) {
  const int rank = controller->GetLocalProcessId();
  const int ranks = controller->GetNumberOfProcesses();
  for (int port = 0; port < outputVector->GetNumberOfInformationObjects(); ++port) {
    vtkInformation* outInfo = outputVector->GetInformationObject(port);
    // Port types are the same on every rank, so every rank takes the same branches.
    auto* image = vtkImageData::SafeDownCast(outInfo->Get(vtkDataObject::DATA_OBJECT()));
    if (image == nullptr)
      continue;
    const PieceRequest wanted = pieceRequest(outInfo, fromInfo);
    std::vector<int> extents(std::size_t(ranks) * 6);
    controller->Gather(wanted.extent, extents.data(), 6, kResultRank);
    // Origin, spacing and direction from rank 0 (the transfer format drops the last).
    double geometry[kHeaderDoubles];
    image->GetOrigin(geometry);
    image->GetSpacing(geometry + 3);
    const double* direction = image->GetDirectionMatrix()->GetData();
    std::copy(direction, direction + 9, geometry + 6);
    controller->Broadcast(geometry, kHeaderDoubles, kResultRank);
    if (rank == kResultRank) {
      for (int r = 0; r < ranks; ++r) {
        if (r != rank)
          controller->Send(cropped(image, extents.data() + std::size_t(r) * 6), r,
                           kPieceTag);
      }
      image->ShallowCopy(cropped(image, wanted.extent));
    } else {
      auto piece = vtkSmartPointer<vtkImageData>::New();
      controller->Receive(piece, kResultRank, kPieceTag);
      image->ShallowCopy(piece);
    }
    if (image->GetNumberOfPoints() > 0) {
      image->SetOrigin(geometry);
      image->SetSpacing(geometry + 3);
      image->SetDirectionMatrix(geometry + 6);
      if (wanted.ghostLevels > 0) {
        int zeroGhost[6];
        std::copy(wanted.zeroGhost, wanted.zeroGhost + 6, zeroGhost);
        image->GenerateGhostArray(zeroGhost);
      }
    }
    image->GetInformation()->Set(vtkDataObject::ALL_PIECES_EXTENT(), wanted.total, 6);
    if (outInfo->Has(vtkDataObject::ALL_PIECES_EXTENT())) // the executive copies it over
      outInfo->Set(vtkDataObject::ALL_PIECES_EXTENT(), wanted.total, 6);
  }
}

// A piece of a distributed image is classified with the pipeline's ghost layers: it
// must come with the `needed` layers asked for below each face where it is cut from a
// neighbour (the face above is shared with the next piece, which owns it, so one layer
// less there). A source that ignores ghost-level requests gives none. Returns what is
// missing, or nothing.
std::string missingImageGhosts(vtkImageData* image, vtkInformation* inInfo, int needed) {
  if (inInfo == nullptr || !inInfo->Has(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT()))
    return {};
  int whole[6], extent[6], dims[3];
  inInfo->Get(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT(), whole);
  image->GetExtent(extent);
  image->GetDimensions(dims);
  vtkUnsignedCharArray* ghosts = image->GetPointData()->GetGhostArray();
  const auto ghost = [&](std::size_t axis, int k) {
    int ijk[3] = {dims[0] / 2, dims[1] / 2, dims[2] / 2};
    ijk[axis] = k;
    return topogpu::vtk::isGhostPoint(
        ghosts, ijk[0] + vtkIdType(dims[0]) * (ijk[1] + vtkIdType(dims[1]) * ijk[2]));
  };
  for (std::size_t a = 0; a < 3; ++a) {
    const std::size_t low = 2 * a, high = low + 1;
    int below = 0, above = 0;
    while (below < dims[a] && ghost(a, below))
      ++below;
    while (above < dims[a] && ghost(a, dims[a] - 1 - above))
      ++above;
    const auto shortOf = [&](int layers, const char* side, int wanted) {
      return "the image piece " + std::to_string(extent[low]) + ".." +
             std::to_string(extent[high]) + " along " + char('x' + a) + " has " +
             std::to_string(layers) + " ghost layers " + side + " it, " +
             std::to_string(wanted) + " are needed";
    };
    if (extent[low] > whole[low] && below < needed)
      return shortOf(below, "below", needed);
    if (extent[high] < whole[high] && above < needed - 1)
      return shortOf(above, "above", needed - 1);
  }
  return {};
}

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

int vtkTopoGPUAlgorithm::RequestData(vtkInformation* request,
                                     vtkInformationVector** inputVector,
                                     vtkInformationVector* outputVector) {
  ClearOutputs(outputVector);
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
  vtkMultiProcessController* controller =
      vtkMultiProcessController::GetGlobalController();
  // The pieces asked for on the port that made the request (the same on every rank).
  vtkInformation* fromInfo =
      outputVector->GetInformationObject(requestingPort(request, outputVector));
  const int pieces = updateValue(
      fromInfo, vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_PIECES(), 1);
  const bool wholeDomain = this->NeedsWholeDomain() && controller != nullptr &&
                           controller->GetNumberOfProcesses() > 1 && pieces > 1;
  const bool byPieces = this->LocalResult && !wholeDomain && controller != nullptr &&
                        controller->GetNumberOfProcesses() > 1 && pieces > 1;
  std::unique_ptr<topogpu::vtk::DistributedPiece> piece;
  vtkSmartPointer<vtkDataSet> gathered;
  // Past a gather that went ahead, every rank takes part in handing out the image
  // pieces, whatever happens to the computation on rank 0.
  bool handOut = false;
  enum class Outcome {
    Computed,
    OnRank0,
    EmptyPiece,
    Failed
  } outcome = Outcome::Computed;
  bool pieceAgreed = false; // a rebuilt piece's ranks agreed to compute (see below)
  try {
    if (byPieces) {
      // Collective: meshes are rebuilt with their ghost layers (as many as the module
      // or a consumer needs); images keep the pipeline's.
      const topogpu::Timer pieceTimer;
      piece = topogpu::vtk::DistributedPiece::build(
          controller, input,
          std::max(this->LocalGhostLayers,
                   updateValue(
                       fromInfo,
                       vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS(),
                       0)));
      if (piece) {
        input = piece->mesh();
        stages.emplace_back("ghost layers (distributed)", pieceTimer.seconds());
      } else {
        // Images: every rank checks its piece's ghost layers, and all go on or none.
        vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
        auto* image = vtkImageData::SafeDownCast(input);
        std::string missing =
            image == nullptr || image->GetNumberOfPoints() == 0
                ? std::string()
                : missingImageGhosts(image, inInfo,
                                     updateValue(inInfo,
                                                 vtkStreamingDemandDrivenPipeline::
                                                     UPDATE_NUMBER_OF_GHOST_LEVELS(),
                                                 0));
        if (!missing.empty())
          missing +=
              ": its source ignores ghost-level requests, so the points at the cut "
              "would miss neighbours. Split the image with RedistributeDataSet or "
              "D3 first (the filter then builds the ghost layers itself) or run on "
              "one process";
        topogpu::vtk::DistributedPiece::agree(controller, missing, false);
        if (input == nullptr || input->GetNumberOfPoints() == 0)
          outcome = Outcome::EmptyPiece; // another rank holds the data
      }
    }
    // Meshes: gathered to rank 0 and welded there (collective; nothing when the pieces
    // are images).
    const topogpu::Timer meshTimer;
    const auto mesh = wholeDomain
                          ? topogpu::vtk::DistributedPiece::gatherMesh(controller, input)
                          : topogpu::vtk::DistributedPiece::Gathered();
    if (mesh.whole) {
      gathered = mesh.whole;
      input = gathered;
      // The input array chosen on the gathered mesh, as on a serial input.
      auto wholeInfo = vtkSmartPointer<vtkInformation>::New();
      wholeInfo->Set(vtkDataObject::DATA_OBJECT(), gathered);
      auto wholeVector = vtkSmartPointer<vtkInformationVector>::New();
      wholeVector->Append(wholeInfo);
      vtkInformationVector* wholeInputs[1] = {wholeVector};
      if (this->NeedsInputScalars) {
        std::string name;
        run.scalars = this->ResolveInputScalars(wholeInputs, input, name);
        run.values = topogpu::vtk::viewScalarArray(run.scalars, name);
      }
      stages.emplace_back("gather to rank 0", meshTimer.seconds());
    } else if (mesh.meshes) {
      outcome = Outcome::OnRank0;
    } else if (wholeDomain) {
      const topogpu::Timer gatherTimer;
      GatheredDomain domain = gatherWholeDomain(
          controller, input, this->NeedsInputScalars,
          [&](std::string& name) {
            return this->ResolveInputScalars(inputVector, input, name);
          },
          this->CheckAbort(), this->WholeDomainBytesPerPoint(),
          this->WholeDomainMemoryBytes);
      handOut = true;
      if (!domain.error.empty())
        throw topogpu::Error(domain.error);
      if (domain.image) {
        gathered = domain.image;
        input = gathered;
        run.scalars = domain.scalars;
        run.values = topogpu::vtk::viewScalarArray(run.scalars, domain.name);
        stages.emplace_back("gather to rank 0", gatherTimer.seconds());
        progress(0.05);
      } else {
        outcome = Outcome::OnRank0;
      }
    }
    if (outcome == Outcome::Computed && !this->NeedsTriangulation) {
      run.input = input;
      run.inputObject = vtkDataObject::GetData(inputVector[0], 0);
      run.backend = this->Backend == BACKEND_CPU   ? topogpu::Backend::Cpu
                    : this->Backend == BACKEND_GPU ? topogpu::Backend::Gpu
                                                   : topogpu::Backend::Auto;
      run.monitor.progress = [&](double fraction) {
        progress(kCoreStart + (kCoreEnd - kCoreStart) * std::clamp(fraction, 0.0, 1.0));
      };
      run.monitor.abortRequested = [this]() { return this->CheckAbort(); };
      this->Compute(run);
    } else if (outcome == Outcome::Computed && piece && input->GetNumberOfPoints() == 0) {
      // Nothing here, but the other ranks' collective steps need this one.
      pieceAgreed = true;
      topogpu::vtk::DistributedPiece::agree(controller, "", this->CheckAbort());
      run.input = input;
      run.inputObject = input;
      run.piece = piece.get();
      this->ComputeEmptyPiece(run);
      outcome = Outcome::EmptyPiece;
    } else if (outcome == Outcome::Computed) {
      if (input == nullptr || input->GetNumberOfPoints() == 0)
        throw topogpu::Error("the input is empty (no points)");
      run.input = input;
      run.inputObject = input;
      run.piece = piece.get();
      if (this->NeedsInputScalars && !wholeDomain) {
        std::string name;
        run.scalars =
            this->ResolveInputScalars(inputVector, piece ? piece->input() : input, name);
        if (piece)
          run.scalars = piece->carried(run.scalars);
        run.values = topogpu::vtk::viewScalarArray(run.scalars, name);
      }

      topogpu::Timer timer;
      GeometryKey key;
      const bool cacheable = makeGeometryKey(input, key);
      bool reused = false;
      const int choice = this->TriangulationChoice();
      if (cacheable && this->Cache && this->Cache->key == key &&
          this->Cache->choice == choice) {
        reused = true;
      } else {
        this->Cache.reset();
        auto fresh = std::make_unique<TriangulationCache>();
        topogpu::gale::Parameters gale;
        gale.randomAccess = this->TriangulationRandomAccess();
        fresh->result = topogpu::vtk::makeTriangulation(
            input, topogpu::vtk::TriangulationChoice(choice), gale);
        fresh->choice = choice;
        fresh->key = std::move(key);
        this->Cache = std::move(fresh);
      }
      stages.emplace_back(reused ? "triangulation (cached)" : "triangulation",
                          timer.seconds());
      if (piece) {
        // Every rank of a rebuilt piece gets here or fails in the catch below: Compute
        // starts on all of them or on none.
        pieceAgreed = true;
        topogpu::vtk::DistributedPiece::agree(controller, "", this->CheckAbort());
      }
      if (!this->Cache->result.notes.empty())
        vtkWarningMacro(<< topogpu::vtk::notesMessage(this->Cache->result));
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
      // A gathered image is one piece: no ghosts, every point owned; a rebuilt piece
      // marks the points other ranks own as ghosts.
      const topogpu::vtk::PieceOwnership ownership(
          input,
          wholeDomain || piece ? nullptr : inputVector[0]->GetInformationObject(0));
      run.ownership = &ownership;
      this->Compute(run);
      if (!cacheable || piece) // the triangulation views the rebuilt piece's cells
        this->Cache.reset();
    }
  } catch (const topogpu::Aborted&) {
    // The user asked for it: an empty output, no error dialog.
    if (piece != nullptr && !pieceAgreed)
      agreedFailure(controller, "");
    ClearOutputs(outputVector);
    outcome = Outcome::Failed;
  } catch (const std::exception& e) {
    const std::string message =
        piece != nullptr && !pieceAgreed ? agreedFailure(controller, e.what()) : e.what();
    if (!message.empty())
      vtkErrorMacro(<< this->Label << ": " << message);
    ClearOutputs(outputVector);
    // A failed triangulation must not be reused after the input is fixed in place.
    this->Cache.reset();
    outcome = Outcome::Failed;
  }
  if (handOut)
    handOutImagePieces(controller, outputVector, fromInfo);
  if (outcome == Outcome::Failed || outcome == Outcome::EmptyPiece)
    return 1;
  if (outcome == Outcome::OnRank0) {
    // The result is on rank 0 (and the images' pieces here): the outputs say where.
    addResultRank(outputVector);
    progress(1.0);
    return 1;
  }
  for (const topogpu::Warning& warning : run.report.warnings)
    vtkWarningMacro(<< warning.text);

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
  if (wholeDomain)
    addResultRank(outputVector);
  progress(1.0);
  return 1;
}

bool vtkTopoGPUAlgorithm::RequestedPieceExtent(vtkInformation* outInfo, int extent[6]) {
  if (outInfo == nullptr ||
      (!outInfo->Has(vtkDataObject::ALL_PIECES_EXTENT()) &&
       !outInfo->Has(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT())))
    return false;
  const PieceRequest wanted = pieceRequest(outInfo, outInfo);
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
