#include "ScalarFieldSmoother.h"

#include "core/scalar_field_smoother/ScalarFieldSmootherGpu.h"

#include <cmath>
#include <string>

namespace topogpu::scalar_field_smoother::detail {

void validate(SimplexId numberOfVertices, const ScalarArrayView& values,
              const Parameters& parameters) {
  if (parameters.numberOfIterations < 0 || parameters.numberOfIterations > kMaxIterations)
    throw Error("the number of iterations must be between 0 and " +
                std::to_string(kMaxIterations) + ", got " +
                std::to_string(parameters.numberOfIterations));
  validateVertexField(numberOfVertices, values);
  if (values.type == ScalarType::Float64) {
    // A sum of up to 15 values must stay finite.
    const auto* x = static_cast<const double*>(values.data);
    for (SimplexId v = 0; v < values.size; ++v) {
      if (std::fabs(x[v]) > 1e307)
        throw Error("scalar array has a value of magnitude above 1e307 at vertex " +
                    std::to_string(v) + "; the smoother's sums would overflow");
    }
  }
}

std::size_t gridDeviceBytes(const ScalarArrayView& values, bool masked) {
  // input and output in their type, two buffers of the working type (double for
  // floating-point fields, the input's type for integers), the mask
  const std::size_t size = scalarTypeSize(values.type);
  const bool floating =
      values.type == ScalarType::Float32 || values.type == ScalarType::Float64;
  return values.size *
         (2 * size + 2 * (floating ? sizeof(double) : size) + (masked ? 1 : 0));
}

void smoothGridOnGpu(const grid::Dims& dims, const ScalarArrayView& values,
                     const Parameters& parameters, const Monitor& monitor, void* smoothed,
                     RunReport& report) {
  gpu::smoothGrid(dims, values, parameters.numberOfIterations, parameters.mask, monitor,
                  smoothed, report);
}

} // namespace topogpu::scalar_field_smoother::detail
