// A small hash table of 64-bit keys with occurrence counts (internal to
// triangulation/gale: the CPU producer and the edge / triangle lists use it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace topogpu::gale::detail {

// Open addressing on 64-bit keys with occurrence counts, emptied in O(1) by a stamp:
// a vertex's neighbours (VV) and link edges (boundary flags) are deduplicated or counted
// without sorting all their candidates (each cell names them again).
class StampTable {
public:
  void reset(std::size_t expected) {
    std::size_t size = 16;
    int bits = 4;
    while (size < 2 * expected) {
      size *= 2;
      ++bits;
    }
    if (keys_.size() < size) {
      keys_.resize(size);
      counts_.resize(size);
      stamps_.assign(size, 0);
      stamp_ = 0;
    }
    if (++stamp_ == 0) {
      std::fill(stamps_.begin(), stamps_.end(), 0u);
      stamp_ = 1;
    }
    mask_ = size - 1;
    shift_ = 64 - bits;
    used_.clear();
  }
  void add(std::uint64_t key) {
    std::size_t h = std::size_t((key * 0x9E3779B97F4A7C15ull) >> shift_);
    while (stamps_[h] == stamp_) {
      if (keys_[h] == key) {
        ++counts_[h];
        return;
      }
      h = (h + 1) & mask_;
    }
    stamps_[h] = stamp_;
    keys_[h] = key;
    counts_[h] = 1;
    used_.push_back(std::uint32_t(h));
  }
  std::size_t distinct() const { return used_.size(); }
  std::uint64_t key(std::size_t i) const { return keys_[used_[i]]; }
  int count(std::size_t i) const { return counts_[used_[i]]; }

private:
  std::vector<std::uint64_t> keys_;
  std::vector<int> counts_;
  std::vector<std::uint32_t> stamps_, used_;
  std::uint32_t stamp_ = 0;
  std::size_t mask_ = 15;
  int shift_ = 60;
};

} // namespace topogpu::gale::detail
