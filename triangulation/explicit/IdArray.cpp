// IdArray: ids stored in 32 bits while they fit, else 64 (its copies, moves and storage).
#include "ExplicitTriangulation.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace topogpu {

IdArray::IdArray(const IdArray& other) {
  *this = other;
}

IdArray::IdArray(IdArray&& other) noexcept {
  *this = std::move(other);
}

IdArray& IdArray::operator=(const IdArray& other) {
  if (this == &other)
    return *this;
  release();
  wide_ = other.wide_;
  wideData_ = other.wideData_;
  narrowData_.assign(other.narrow_, other.narrow_ + other.narrowSize_);
  narrow_ = narrowData_.data();
  narrowSize_ = narrowData_.size();
  return *this;
}

IdArray& IdArray::operator=(IdArray&& other) noexcept {
  if (this == &other)
    return *this;
  wide_ = other.wide_;
  wideData_ = std::move(other.wideData_);
  narrowData_ = std::move(other.narrowData_);
  narrowBuffer_ = std::move(other.narrowBuffer_);
  narrow_ = other.narrow_;
  narrowSize_ = other.narrowSize_;
  other.narrow_ = nullptr;
  other.narrowSize_ = 0;
  other.wide_ = false;
  return *this;
}

void IdArray::allocate(std::size_t size, SimplexId maxValue, bool forceWide) {
  release();
  wide_ = forceWide || maxValue > std::numeric_limits<std::int32_t>::max();
  if (wide_) {
    wideData_.assign(size, 0);
  } else {
    narrowData_.assign(size, 0);
    narrow_ = narrowData_.data();
    narrowSize_ = size;
  }
}

std::int32_t* IdArray::allocateNarrowUninitialized(std::size_t size) {
  release();
  narrowBuffer_.reset(new std::int32_t[size]); // default-initialized: not zeroed
  narrow_ = narrowBuffer_.get();
  narrowSize_ = size;
  return narrow_;
}

void IdArray::sort(std::size_t first, std::size_t last) {
  if (wide_)
    std::sort(wideData_.begin() + first, wideData_.begin() + last);
  else
    std::sort(narrow_ + first, narrow_ + last);
}

void IdArray::release() {
  std::vector<std::int32_t>().swap(narrowData_);
  narrowBuffer_.reset();
  std::vector<std::int64_t>().swap(wideData_);
  narrow_ = nullptr;
  narrowSize_ = 0;
  wide_ = false;
}

} // namespace topogpu
