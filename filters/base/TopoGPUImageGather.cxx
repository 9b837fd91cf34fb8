#include "TopoGPUImageGather.h"

#include "TopoGPUDistributedPiece.h"
#include "TopoGPUGatherToRoot.h"

#include "base/HostMemory.h"
#include "base/Types.h"

#include <vtkDataArray.h>
#include <vtkDataObject.h>
#include <vtkDataSet.h>
#include <vtkExecutive.h>
#include <vtkExtentTranslator.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationIntegerKey.h>
#include <vtkInformationVector.h>
#include <vtkMatrix3x3.h>
#include <vtkMultiProcessController.h>
#include <vtkPointData.h>
#include <vtkStreamingDemandDrivenPipeline.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

namespace topogpu::vtk {

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

namespace {

// Whole-domain mode (NeedsWholeDomain): the pieces of a distributed image gathered to
// one rank. Every step is collective, and every rank learns whether the gather goes
// ahead before any data moves, so a failing rank never leaves the others blocked.
constexpr int kValuesTag = 0x7470; // "tp"
constexpr int kPieceTag = 0x7471;
// Values travel in chunks well under MPI's int counts.
constexpr vtkIdType kChunkBytes = vtkIdType(1) << 30;

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

// One rank's piece as it tells rank 0 about it: status, extent (6), VTK data type and
// value bytes; origin, spacing and direction; its values laid out contiguously.
struct LocalPiece {
  long header[kHeaderLongs] = {PIECE_EMPTY, 0, -1, 0, -1, 0, -1, VTK_VOID, 0};
  double geometry[kHeaderDoubles] = {0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::string error, name;
  vtkSmartPointer<vtkDataArray> values;
};

// Never throws: any failure here must still reach the collective steps that follow.
LocalPiece describeLocalPiece(vtkDataSet* input, bool needsScalars,
                              const std::function<vtkDataArray*(std::string&)>& resolve,
                              bool aborted) {
  LocalPiece local;
  long* header = local.header;
  double* geometry = local.geometry;
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
      vtkDataArray* scalars = resolve(local.name);
      local.values = scalars;
      if (!scalars->HasStandardMemoryLayout()) {
        local.values.TakeReference(vtkDataArray::CreateDataArray(scalars->GetDataType()));
        local.values->DeepCopy(scalars);
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
    header[0] = PIECE_ERROR;
    local.error = e.what();
  }
  return local;
}

// Rank 0's decision from every piece's header: 0 go ahead, 1 abort, 2 fail (reason
// says why); the whole extent, the first usable piece and the whole point count.
struct GatherPlan {
  long decision = 0;
  std::string reason;
  long whole[6] = {0, -1, 0, -1, 0, -1};
  int firstPiece = -1;
  vtkIdType wholePoints = 0;
};

GatherPlan planGather(const std::vector<long>& headers, int ranks, double bytesPerPoint,
                      const std::optional<double>& forcedAvailable) {
  GatherPlan plan;
  long& decision = plan.decision;
  std::string& reason = plan.reason;
  long* whole = plan.whole;
  int& firstPiece = plan.firstPiece;
  vtkIdType largestPiece = 0;
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
    plan.wholePoints = extentPoints(whole);
    const vtkIdType wholePoints = plan.wholePoints;
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
               mebibytes(available) + " available; this filter needs the whole domain " +
               "on one rank, so run it on a machine with more memory or on a " +
               "smaller (e.g. resampled) field";
      decision = 2;
    }
  }
  return plan;
}

// Rank 0, once the gather goes ahead: every usable piece's values received and placed
// in the whole image.
GatheredDomain assembleOnRank0(vtkMultiProcessController* controller,
                               const std::vector<long>& headers,
                               const std::vector<double>& geometries,
                               const GatherPlan& plan, LocalPiece& local) {
  GatheredDomain result;
  const int rank = controller->GetLocalProcessId();
  const int ranks = controller->GetNumberOfProcesses();
  const long* whole = plan.whole;
  const vtkIdType wholePoints = plan.wholePoints;
  const long* first = headers.data() + std::size_t(plan.firstPiece) * kHeaderLongs;
  const double* g = geometries.data() + std::size_t(plan.firstPiece) * kHeaderDoubles;
  const int dataType = int(first[7]);
  const int valueSize = vtkDataArray::GetDataTypeSize(dataType);
  vtkSmartPointer<vtkDataArray> values;
  values.TakeReference(vtkDataArray::CreateDataArray(dataType));
  values->SetName(local.name.c_str());
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
      piece = static_cast<const char*>(local.values->GetVoidPointer(0));
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
  std::string name = local.name;
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

} // namespace

GatheredDomain gatherWholeDomain(
    vtkMultiProcessController* controller, vtkDataSet* input, bool needsScalars,
    const std::function<vtkDataArray*(std::string&)>& resolveScalars, bool aborted,
    double bytesPerPoint, const std::optional<double>& forcedAvailable) {
  const int rank = controller->GetLocalProcessId();
  const int ranks = controller->GetNumberOfProcesses();
  LocalPiece local = describeLocalPiece(input, needsScalars, resolveScalars, aborted);
  std::vector<long> headers(std::size_t(ranks) * kHeaderLongs);
  std::vector<double> geometries(std::size_t(ranks) * kHeaderDoubles);
  controller->Gather(local.header, headers.data(), kHeaderLongs, kResultRank);
  controller->Gather(local.geometry, geometries.data(), kHeaderDoubles, kResultRank);

  GatherPlan plan;
  if (rank == kResultRank)
    plan = planGather(headers, ranks, bytesPerPoint, forcedAvailable);
  controller->Broadcast(&plan.decision, 1, kResultRank);
  if (plan.decision == 1)
    throw topogpu::Aborted();
  if (plan.decision == 2) {
    if (!local.error.empty())
      throw topogpu::Error(local.error);
    if (rank == kResultRank)
      throw topogpu::Error("whole-domain gather: " + plan.reason);
    throw topogpu::Aborted(); // rank 0 reports why; an empty output here, no second error
  }
  if (rank != kResultRank) {
    if (local.header[0] == PIECE_OK)
      sendValues(controller, static_cast<const char*>(local.values->GetVoidPointer(0)),
                 local.header[8]);
    return {};
  }
  return assembleOnRank0(controller, headers, geometries, plan, local);
}

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

} // namespace topogpu::vtk
