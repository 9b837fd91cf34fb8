// A typed, non-owning view of a scalar buffer, and the one place where a runtime value
// type becomes a compile-time one (TTK's dispatch idea: inner loops are monomorphic).
#pragma once

#include "Types.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace topogpu {

enum class ScalarType {
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float32,
  Float64
};

struct ScalarArrayView {
  const void* data = nullptr;
  ScalarType type = ScalarType::Float64;
  SimplexId size = 0;
  // The vertex order given with the values (TTK's `<field>_Order` array: order[v] is v's
  // rank), which every algorithm then takes instead of sorting the values: the only
  // tie-break a flattened field (topological simplification) keeps. Null: sort them.
  const SimplexId* order = nullptr;
};

std::size_t scalarTypeSize(ScalarType type);
const char* scalarTypeName(ScalarType type);

// The ScalarType of a C++ value type (the inverse of TOPOGPU_DISPATCH_SCALAR).
template <typename T> constexpr ScalarType scalarTypeOf() {
  if constexpr (std::is_same_v<T, std::int8_t>)
    return ScalarType::Int8;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return ScalarType::UInt8;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return ScalarType::Int16;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return ScalarType::UInt16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return ScalarType::Int32;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return ScalarType::UInt32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return ScalarType::Int64;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return ScalarType::UInt64;
  else if constexpr (std::is_same_v<T, float>)
    return ScalarType::Float32;
  else {
    static_assert(std::is_same_v<T, double>, "not a supported scalar type");
    return ScalarType::Float64;
  }
}

// A view of a whole vector.
template <typename T> ScalarArrayView viewOf(const std::vector<T>& values) {
  return {values.data(), scalarTypeOf<T>(), SimplexId(values.size())};
}

// Index of the first NaN or infinite value, or -1 when all values are finite.
SimplexId firstNonFiniteValue(const ScalarArrayView& values);

// The checks every vertex-field algorithm makes first: a non-empty domain, one value per
// vertex, every value finite. Throws Error naming the problem.
void validateVertexField(SimplexId numberOfVertices, const ScalarArrayView& values);

} // namespace topogpu

// Runs BODY with `ValueT` bound to the C++ type of TYPE_ENUM.
#define TOPOGPU_DISPATCH_SCALAR(TYPE_ENUM, BODY)                                         \
  switch (TYPE_ENUM) {                                                                   \
  case ::topogpu::ScalarType::Int8: {                                                    \
    using ValueT = std::int8_t;                                                          \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::UInt8: {                                                   \
    using ValueT = std::uint8_t;                                                         \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::Int16: {                                                   \
    using ValueT = std::int16_t;                                                         \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::UInt16: {                                                  \
    using ValueT = std::uint16_t;                                                        \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::Int32: {                                                   \
    using ValueT = std::int32_t;                                                         \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::UInt32: {                                                  \
    using ValueT = std::uint32_t;                                                        \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::Int64: {                                                   \
    using ValueT = std::int64_t;                                                         \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::UInt64: {                                                  \
    using ValueT = std::uint64_t;                                                        \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::Float32: {                                                 \
    using ValueT = float;                                                                \
    BODY;                                                                                \
  } break;                                                                               \
  case ::topogpu::ScalarType::Float64: {                                                 \
    using ValueT = double;                                                               \
    BODY;                                                                                \
  } break;                                                                               \
  }
