#include "TopoGPUDistributedPiece.h"
#include "TopoGPUFilterRun.h"

#include <vtkDataSet.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkPointData.h>
#include <vtkStreamingDemandDrivenPipeline.h>
#include <vtkUnsignedCharArray.h>

#include <cstddef>

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
