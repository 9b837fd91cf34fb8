// The input's points as the core's PointGeometry (an image's own geometry, a mesh's
// points): where the core's records place critical cells and diagram points.
#pragma once

#include "core/morse_smale_complex/OutputRecords.h"

#include <vtkDataSet.h>

namespace topogpu::vtk {

class DataSetPoints final : public morse_smale_complex::PointGeometry {
public:
  explicit DataSetPoints(vtkDataSet* input) : input_(input) {}
  void position(SimplexId v, double p[3]) const override {
    input_->GetPoint(vtkIdType(v), p);
  }

private:
  vtkDataSet* input_;
};

} // namespace topogpu::vtk
