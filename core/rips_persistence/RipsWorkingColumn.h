// The working column of the reduction: a radix heap over the filtration order.
#pragma once

#include "RipsFiltration.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace topogpu::rips_persistence::detail {

// The working column: the entries of a coboundary column (Z/2: equal entries cancel in
// pairs) read oldest first, each pivot removed as it is read. The reduction only ever
// adds entries younger than the pivot last read (an added column's entries older than
// its pivot cancel in pairs, and its pivot cancels the one read: addCochain skips them
// all), so a monotone priority queue does: a radix heap (Ahuja, Mehlhorn, Orlin,
// Tarjan, "Faster algorithms for the shortest path problem", 1990) on the filtration
// order as a 96-bit key, the diameter's bits (a nonnegative float orders as its bit
// pattern) then the index reversed. An entry is appended to the bucket of the highest
// bit where its key differs from the last pivot's, so bucket 0 holds the copies of the
// next pivot (cancelled by their count's parity). A push is an append and an entry
// moves down at most 96 buckets in its life: a long column's millions of entries stay
// in sequential memory instead of a heap whose every level is a cache miss.
class WorkingColumn {
public:
  void clear() {
    for (std::size_t b = 0; b < kBuckets; ++b) {
      if (occupied(b))
        buckets_[b].clear();
    }
    occupied_[0] = occupied_[1] = 0;
    lastDiameter_ = 0;
    lastIndex_ = 0;
    size_ = 0;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const {
    std::size_t c = scratch_.capacity();
    for (const auto& bucket : buckets_)
      c += bucket.capacity();
    return c;
  }
  void release() {
    clear();
    for (auto& bucket : buckets_)
      bucket = {};
    scratch_ = {};
  }

  // e must be younger than the last pivot read (any entry after a clear()).
  void push(const Entry& e) {
    const std::size_t b = bucketOf(diameterKey(e), indexKey(e));
    buckets_[b].push_back(e);
    occupied_[b >> 6] |= std::uint64_t(1) << (b & 63);
    ++size_;
  }

  // Removes the oldest entry after Z/2 cancellation into `pivot`; false when the column
  // is zero.
  bool pivot(Entry& pivot) {
    while (size_ > 0) {
      if (buckets_[0].empty())
        refill();
      std::vector<Entry>& copies = buckets_[0];
      if (copies.size() % 2 == 1) {
        size_ -= copies.size();
        pivot = copies.front();
        copies.clear();
        occupied_[0] &= ~std::uint64_t(1);
        return true;
      }
      size_ -= copies.size();
      copies.clear();
      occupied_[0] &= ~std::uint64_t(1);
    }
    return false;
  }

  // Drops the entries of diameter > bound (>= the last pivot's).
  void dropAbove(float bound) {
    size_ = 0;
    occupied_[0] = occupied_[1] = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      auto& bucket = buckets_[b];
      bucket.erase(std::remove_if(bucket.begin(), bucket.end(),
                                  [bound](const Entry& e) { return e.diameter > bound; }),
                   bucket.end());
      size_ += bucket.size();
      if (!bucket.empty())
        occupied_[b >> 6] |= std::uint64_t(1) << (b & 63);
    }
  }

  // Z/2: drops the pairs of equal entries (a long column keeps every pushed pair until
  // it reaches the top).
  void compact() {
    size_ = 0;
    occupied_[0] = occupied_[1] = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      cancelEqual(buckets_[b]);
      size_ += buckets_[b].size();
      if (!buckets_[b].empty())
        occupied_[b >> 6] |= std::uint64_t(1) << (b & 63);
    }
  }

  // Sorts by index and keeps one of each odd run.
  static void cancelEqual(std::vector<Entry>& entries) {
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.index < b.index; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < entries.size();) {
      std::size_t j = i + 1;
      while (j < entries.size() && entries[j].index == entries[i].index)
        ++j;
      if ((j - i) % 2 == 1)
        entries[kept++] = entries[i];
      i = j;
    }
    entries.resize(kept);
  }

private:
  static constexpr std::size_t kBuckets = 97;
  static std::uint32_t diameterKey(const Entry& e) {
    std::uint32_t key = 0;
    static_assert(sizeof(key) == sizeof(e.diameter));
    std::memcpy(&key, &e.diameter, sizeof(key));
    return key & 0x7fffffffu; // -0 is 0
  }
  // Among equal diameters the larger index is older.
  static std::uint64_t indexKey(const Entry& e) {
    return std::uint64_t(std::numeric_limits<SimplexId>::max() - e.index);
  }
  std::size_t bucketOf(std::uint32_t diameter, std::uint64_t index) const {
    if (const std::uint32_t d = diameter ^ lastDiameter_)
      return std::size_t(96 - __builtin_clz(d));
    if (const std::uint64_t i = index ^ lastIndex_)
      return std::size_t(64 - __builtin_clzll(i));
    return 0;
  }
  bool occupied(std::size_t b) const { return (occupied_[b >> 6] >> (b & 63)) & 1; }

  // The oldest entry left becomes the key of bucket 0: the first nonempty bucket's
  // entries move down (all below it: they share its higher bits).
  void refill() {
    const std::size_t b = occupied_[0] != 0
                              ? std::size_t(__builtin_ctzll(occupied_[0]))
                              : 64 + std::size_t(__builtin_ctzll(occupied_[1]));
    std::uint32_t lowDiameter = ~std::uint32_t(0);
    std::uint64_t lowIndex = ~std::uint64_t(0);
    for (const Entry& e : buckets_[b]) {
      const std::uint32_t d = diameterKey(e);
      const std::uint64_t i = indexKey(e);
      if (d < lowDiameter || (d == lowDiameter && i < lowIndex)) {
        lowDiameter = d;
        lowIndex = i;
      }
    }
    lastDiameter_ = lowDiameter;
    lastIndex_ = lowIndex;
    scratch_.swap(buckets_[b]);
    occupied_[b >> 6] &= ~(std::uint64_t(1) << (b & 63));
    for (const Entry& e : scratch_) {
      const std::size_t to = bucketOf(diameterKey(e), indexKey(e));
      buckets_[to].push_back(e);
      occupied_[to >> 6] |= std::uint64_t(1) << (to & 63);
    }
    scratch_.clear();
  }

  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::vector<Entry> scratch_;
  std::uint64_t occupied_[2] = {0, 0}; // NOLINT: the bit of each nonempty bucket
  std::uint32_t lastDiameter_ = 0;
  std::uint64_t lastIndex_ = 0;
  std::size_t size_ = 0;
};

} // namespace topogpu::rips_persistence::detail
