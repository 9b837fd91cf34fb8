#include "ScalarArray.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <string>

#include <cmath>
#include <type_traits>

namespace topogpu {

std::size_t scalarTypeSize(ScalarType type) {
  std::size_t size = 0;
  TOPOGPU_DISPATCH_SCALAR(type, size = sizeof(ValueT));
  return size;
}

const char* scalarTypeName(ScalarType type) {
  switch (type) {
  case ScalarType::Int8:
    return "int8";
  case ScalarType::UInt8:
    return "uint8";
  case ScalarType::Int16:
    return "int16";
  case ScalarType::UInt16:
    return "uint16";
  case ScalarType::Int32:
    return "int32";
  case ScalarType::UInt32:
    return "uint32";
  case ScalarType::Int64:
    return "int64";
  case ScalarType::UInt64:
    return "uint64";
  case ScalarType::Float32:
    return "float32";
  case ScalarType::Float64:
    return "float64";
  }
  return "?";
}

SimplexId firstNonFiniteValue(const ScalarArrayView& values) {
  SimplexId first = -1;
  TOPOGPU_DISPATCH_SCALAR(values.type, {
    if constexpr (std::is_floating_point_v<ValueT>) {
      const auto* data = static_cast<const ValueT*>(values.data);
      first = tbb::parallel_reduce(
          tbb::blocked_range<SimplexId>(0, values.size), SimplexId(-1),
          [&](const tbb::blocked_range<SimplexId>& range, SimplexId found) {
            for (SimplexId i = range.begin(); i < range.end(); ++i) {
              if (!std::isfinite(data[i]) && (found < 0 || i < found)) {
                found = i;
                break;
              }
            }
            return found;
          },
          [](SimplexId a, SimplexId b) {
            return a < 0 ? b : (b < 0 ? a : std::min(a, b));
          });
    }
  });
  return first;
}

void validateVertexField(SimplexId numberOfVertices, const ScalarArrayView& values) {
  if (numberOfVertices == 0)
    throw Error("the input has no vertices");
  if (values.size != numberOfVertices)
    throw Error("scalar array has " + std::to_string(values.size) +
                " values but the domain has " + std::to_string(numberOfVertices) +
                " vertices");
  const SimplexId bad = firstNonFiniteValue(values);
  if (bad >= 0)
    throw Error("scalar array has a NaN or infinite value at vertex " +
                std::to_string(bad));
}

} // namespace topogpu
