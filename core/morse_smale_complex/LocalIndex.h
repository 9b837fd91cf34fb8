// Local indices of the simplices one traversal visits (a descending or ascending wall),
// for per-thread scratch: an open-addressing hash table (linear probing) whose memory
// follows the traversal's size, not the complex's. A dense per-simplex table per thread
// costs 8 bytes x simplices x threads (on a 256x256x128 grid's 100M triangles and 16
// threads, 12.8 GB); walls are usually small. clear() costs the entries used, not the
// capacity, so one table serves every wall of a thread.
#pragma once

#include "base/Types.h"

#include <cstdint>
#include <vector>

namespace topogpu::morse_smale_complex {

class LocalIndex {
public:
  // The local index of id (0, 1, ... in first-insertion order), inserting it when new;
  // inserted tells which.
  SimplexId insert(SimplexId id, bool& inserted) {
    if (2 * (size_ + 1) > slots_.size())
      grow();
    std::size_t at = slotOf(id);
    while (slots_[at].id >= 0) {
      if (slots_[at].id == id) {
        inserted = false;
        return slots_[at].index;
      }
      at = (at + 1) & (slots_.size() - 1);
    }
    slots_[at] = {id, SimplexId(size_)};
    used_.push_back(at);
    inserted = true;
    return SimplexId(size_++);
  }
  // The local index of id, -1 when absent.
  SimplexId find(SimplexId id) const {
    if (slots_.empty())
      return -1;
    for (std::size_t at = slotOf(id);; at = (at + 1) & (slots_.size() - 1)) {
      if (slots_[at].id == id)
        return slots_[at].index;
      if (slots_[at].id < 0)
        return -1;
    }
  }
  std::size_t size() const { return size_; }
  void clear() {
    for (const std::size_t at : used_)
      slots_[at].id = -1;
    used_.clear();
    size_ = 0;
  }

private:
  struct Slot {
    SimplexId id = -1, index = -1;
  };
  std::size_t slotOf(SimplexId id) const {
    // Fibonacci hashing: consecutive ids (a wall's neighbours) spread over the table.
    return std::size_t((std::uint64_t(id) * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    const std::size_t capacity = old.empty() ? 64 : 2 * old.size();
    slots_.assign(capacity, Slot{});
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1)
      --shift_;
    used_.clear();
    for (const Slot& s : old) {
      if (s.id < 0)
        continue;
      std::size_t at = slotOf(s.id);
      while (slots_[at].id >= 0)
        at = (at + 1) & (capacity - 1);
      slots_[at] = s;
      used_.push_back(at);
    }
  }

  std::vector<Slot> slots_;
  std::vector<std::size_t> used_;
  std::size_t size_ = 0;
  int shift_ = 64;
};

} // namespace topogpu::morse_smale_complex
