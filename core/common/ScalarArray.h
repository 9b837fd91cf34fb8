// A typed, non-owning view of a scalar buffer, and the one place where a runtime value
// type becomes a compile-time one (TTK's dispatch idea: inner loops are monomorphic).
#pragma once

#include "Types.h"

#include <cstddef>
#include <string>

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
};

std::size_t scalarTypeSize(ScalarType type);
const char* scalarTypeName(ScalarType type);
// Parses the CLI spellings (uint8, int16, float32, ...); throws Error on anything else.
ScalarType parseScalarType(const std::string& name);

// Index of the first NaN or infinite value, or -1 when all values are finite.
SimplexId firstNonFiniteValue(const ScalarArrayView& values);

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
