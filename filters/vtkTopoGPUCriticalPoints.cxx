#include "vtkTopoGPUCriticalPoints.h"

#include "TopoGPUDataSetAdaptor.h"

#include "core/common/Timer.h"
#include "core/critical_points/CriticalPoints.h"

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkIdList.h>
#include <vtkIdTypeArray.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkPointSet.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSignedCharArray.h>
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

vtkStandardNewMacro(vtkTopoGPUCriticalPoints);

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

template <typename ArrayT>
vtkSmartPointer<ArrayT> namedArray(const char* name, vtkIdType n) {
  auto array = vtkSmartPointer<ArrayT>::New();
  array->SetName(name);
  array->SetNumberOfTuples(n);
  return array;
}

// Which points of this piece it outputs. Ghost points belong to another piece. Pieces
// of an image also share the points of their common face; the piece on the far side
// owns them, so the near piece drops its last non-ghost layer wherever that layer is not
// the whole extent's far face.
class PieceOwnership {
public:
  PieceOwnership(vtkDataSet* input, vtkInformation* inputInfo)
      : ghosts_(input->GetPointData()->GetGhostArray()) {
    auto* image = vtkImageData::SafeDownCast(input);
    if (image == nullptr ||
        !inputInfo->Has(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT()))
      return;
    int whole[6];
    inputInfo->Get(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT(), whole);
    image->GetExtent(extent_);
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
      if (extent_[low] + lastOwned_[a] < whole[high])
        --lastOwned_[a]; // the shared face belongs to the next piece
    }
    isImage_ = true;
  }

  bool owns(vtkIdType v) const {
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

private:
  bool isGhost(vtkIdType v) const {
    return ghosts_ != nullptr &&
           (ghosts_->GetValue(v) & vtkDataSetAttributes::DUPLICATEPOINT);
  }

  vtkUnsignedCharArray* ghosts_;
  bool isImage_ = false;
  int extent_[6] = {0, 0, 0, 0, 0, 0};
  int dims_[3] = {1, 1, 1};
  int lastOwned_[3] = {0, 0, 0};
};

} // namespace

struct vtkTopoGPUCriticalPoints::TriangulationCache {
  GeometryKey key;
  topogpu::vtk::TriangulationResult result;
};

vtkTopoGPUCriticalPoints::vtkTopoGPUCriticalPoints() {
  this->SetNumberOfInputPorts(1);
  this->SetNumberOfOutputPorts(1);
  // Like TTK: the first point scalar unless the user picks one.
  this->SetInputArrayToProcess(0, 0, 0, vtkDataObject::FIELD_ASSOCIATION_POINTS,
                               vtkDataSetAttributes::SCALARS);
}

vtkTopoGPUCriticalPoints::~vtkTopoGPUCriticalPoints() = default;

void vtkTopoGPUCriticalPoints::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Backend: " << this->Backend << " (0 auto, 1 CPU, 2 GPU)\n";
  os << indent << "Cached triangulation: " << (this->Cache ? "yes" : "no") << "\n";
}

int vtkTopoGPUCriticalPoints::FillInputPortInformation(int port, vtkInformation* info) {
  if (port != 0)
    return 0;
  info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkDataSet");
  return 1;
}

int vtkTopoGPUCriticalPoints::RequestUpdateExtent(vtkInformation* request,
                                                  vtkInformationVector** inputVector,
                                                  vtkInformationVector* outputVector) {
  if (!this->Superclass::RequestUpdateExtent(request, inputVector, outputVector))
    return 0;
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
  const int requested =
      outInfo->Has(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS())
          ? outInfo->Get(
                vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS())
          : 0;
  inInfo->Set(vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS(),
              std::max(requested, 1));
  return 1;
}

int vtkTopoGPUCriticalPoints::RequestData(vtkInformation*,
                                          vtkInformationVector** inputVector,
                                          vtkInformationVector* outputVector) {
  vtkDataSet* input = vtkDataSet::GetData(inputVector[0], 0);
  vtkPolyData* output = vtkPolyData::GetData(outputVector, 0);
  if (output == nullptr)
    return 0;
  output->Initialize();

  const topogpu::Timer total;
  topogpu::critical_points::Output result;
  std::vector<std::pair<std::string, double>> stages;
  vtkDataArray* scalars = nullptr;
  try {
    if (input == nullptr || input->GetNumberOfPoints() == 0)
      throw topogpu::Error("the input is empty (no points)");

    std::string name = "(first point scalar)";
    if (vtkInformation* arrayInfo = this->GetInputArrayInformation(0)) {
      if (arrayInfo->Has(vtkDataObject::FIELD_NAME()))
        name = arrayInfo->Get(vtkDataObject::FIELD_NAME());
    }
    int association = -1;
    scalars = this->GetInputArrayToProcess(0, inputVector, association);
    if (scalars != nullptr && association != vtkDataObject::FIELD_ASSOCIATION_POINTS)
      throw topogpu::Error("array '" + name +
                           "' is not point data; select a point scalar");
    const topogpu::ScalarArrayView values = topogpu::vtk::viewScalarArray(scalars, name);

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

    topogpu::Monitor monitor;
    monitor.progress = [this](double fraction) { this->UpdateProgress(fraction); };
    monitor.abortRequested = [this]() { return this->CheckAbort(); };
    topogpu::critical_points::Parameters parameters;
    parameters.backend = this->Backend == BACKEND_CPU   ? topogpu::Backend::Cpu
                         : this->Backend == BACKEND_GPU ? topogpu::Backend::Gpu
                                                        : topogpu::Backend::Auto;
    topogpu::vtk::visit(this->Cache->result.triangulation, [&](auto& triangulation) {
      topogpu::critical_points::execute(triangulation, values, parameters, monitor,
                                        result);
    });
    if (!cacheable)
      this->Cache.reset();
  } catch (const topogpu::Aborted&) {
    // The user asked for it: an empty output, no error dialog.
    output->Initialize();
    return 1;
  } catch (const std::exception& e) {
    vtkErrorMacro(<< "TopoGPU Critical Points: " << e.what());
    output->Initialize();
    // A failed triangulation must not be reused after the input is fixed in place.
    this->Cache.reset();
    return 1;
  }
  for (const std::string& warning : result.report.warnings)
    vtkWarningMacro(<< warning);

  const topogpu::Timer outputTimer;
  // In a distributed run each point is output by exactly one piece.
  {
    const PieceOwnership owner(input, inputVector[0]->GetInformationObject(0));
    std::size_t kept = 0;
    for (std::size_t i = 0; i < result.criticalVertices.size(); ++i) {
      if (!owner.owns(result.criticalVertices[i]))
        continue;
      result.criticalVertices[kept] = result.criticalVertices[i];
      result.criticalOnBoundary[kept++] = result.criticalOnBoundary[i];
    }
    result.criticalVertices.resize(kept);
    result.criticalOnBoundary.resize(kept);
  }
  const vtkIdType n = vtkIdType(result.criticalVertices.size());
  auto points = vtkSmartPointer<vtkPoints>::New();
  if (auto* pointSet = vtkPointSet::SafeDownCast(input)) {
    if (pointSet->GetPoints())
      points->SetDataType(pointSet->GetPoints()->GetDataType());
  } else {
    points->SetDataTypeToDouble();
  }
  points->SetNumberOfPoints(n);
  auto ids = vtkSmartPointer<vtkIdList>::New();
  ids->SetNumberOfIds(n);
  auto types = namedArray<vtkSignedCharArray>("CriticalType", n);
  auto boundary = namedArray<vtkSignedCharArray>("IsOnBoundary", n);
  auto vertexIds = namedArray<vtkIdTypeArray>("ttkVertexScalarField", n);
  double x[3];
  for (vtkIdType i = 0; i < n; ++i) {
    const vtkIdType v = vtkIdType(result.criticalVertices[i]);
    input->GetPoint(v, x);
    points->SetPoint(i, x);
    ids->SetId(i, v);
    types->SetValue(i, static_cast<signed char>(result.vertexTypes[v]));
    boundary->SetValue(i, static_cast<signed char>(result.criticalOnBoundary[i] ? 1 : 0));
    vertexIds->SetValue(i, v);
  }
  auto verts = vtkSmartPointer<vtkCellArray>::New();
  verts->AllocateExact(n, n);
  for (vtkIdType i = 0; i < n; ++i)
    verts->InsertNextCell(1, &i);

  vtkSmartPointer<vtkDataArray> scalarCopy;
  scalarCopy.TakeReference(scalars->NewInstance());
  scalarCopy->SetName(scalars->GetName());
  scalarCopy->SetNumberOfComponents(1);
  scalarCopy->SetNumberOfTuples(n);
  scalars->GetTuples(ids, scalarCopy);

  output->SetPoints(points);
  output->SetVerts(verts);
  vtkPointData* pd = output->GetPointData();
  pd->AddArray(types);
  pd->AddArray(boundary);
  pd->AddArray(scalarCopy);
  pd->AddArray(vertexIds);
  pd->SetActiveScalars("CriticalType");

  for (const auto& stage : result.report.timings)
    stages.push_back(stage);
  stages.emplace_back("output", outputTimer.seconds());
  auto backend = vtkSmartPointer<vtkStringArray>::New();
  backend->SetName("TopoGPUBackend");
  backend->InsertNextValue(result.report.backend);
  auto time = namedArray<vtkDoubleArray>("TopoGPUTime", 1);
  time->SetValue(0, total.seconds());
  auto stageNames = vtkSmartPointer<vtkStringArray>::New();
  stageNames->SetName("TopoGPUTimingStages");
  auto stageSeconds =
      namedArray<vtkDoubleArray>("TopoGPUTimings", vtkIdType(stages.size()));
  for (std::size_t i = 0; i < stages.size(); ++i) {
    stageNames->InsertNextValue(stages[i].first);
    stageSeconds->SetValue(vtkIdType(i), stages[i].second);
  }
  vtkFieldData* fd = output->GetFieldData();
  fd->AddArray(backend);
  fd->AddArray(time);
  fd->AddArray(stageNames);
  fd->AddArray(stageSeconds);
  return 1;
}
