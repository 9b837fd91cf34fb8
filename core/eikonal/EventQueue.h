// The exact start's queue of events (windows and pseudo-sources by distance): a
// monotone bucket queue that pops in exactly the order of one binary heap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace topogpu::eikonal::detail {

struct Event {
  double key;
  std::int64_t id; // >= 0: a window; < 0: the pseudo-source vertex -(id + 1)
  // The heap's order: smallest key first, then smallest id (every (key, id) is
  // distinct, so the order of the pops is the same whatever the heap).
  bool operator>(const Event& o) const {
    return key > o.key || (key == o.key && id > o.id);
  }
};

// The events in increasing order: those of the buckets up to the current one (a few,
// sorted; a heap when many), unordered buckets of key width `width` for the next kRing
// ones (a ring: their memory is reused, so it stays in cache) taken in one at a time,
// and a heap of the farther ones (few: a window's children are about an edge farther).
// Only a thin slice of the front of windows is ordered, not all of it. The bucket of a
// key is monotone in it, so every event in a later bucket is larger than every event of
// the current ones whatever the order of the pushes (a child window can be a rounding
// error nearer than its parent): the pops are exactly those of one heap.
class EventQueue {
public:
  static constexpr std::size_t kRing = 1024;

  std::size_t bytes() const {
    std::size_t b = (now_.capacity() + far_.capacity()) * sizeof(Event) +
                    ring_.capacity() * sizeof(Bucket);
    for (const Bucket& bucket : ring_)
      b += bucket.capacity() * sizeof(Event);
    return b;
  }

  void reset(double width) {
    now_.clear();
    far_.clear();
    ring_.resize(kRing);
    for (Bucket& bucket : ring_)
      bucket.clear();
    inverseWidth_ = width > 0 ? 1 / width : 0;
    if (!std::isfinite(inverseWidth_))
      inverseWidth_ = 0;
    current_ = 0;
    ringed_ = 0;
    sorted_ = true;
  }

  void push(const Event& e) { place(e, bucket(e.key)); }

  // The smallest event (the queue not empty).
  const Event& top() {
    if (now_.empty())
      refill();
    return sorted_ ? now_.back() : now_.front();
  }

  bool empty() const { return now_.empty() && ringed_ == 0 && far_.empty(); }

  void pop() {
    if (!sorted_)
      std::pop_heap(now_.begin(), now_.end(), std::greater<Event>());
    now_.pop_back();
  }

private:
  using Bucket = std::vector<Event>;

  std::size_t bucket(double key) const {
    const double b = key * inverseWidth_;
    constexpr double kLast = double(std::size_t(1) << 62);
    return b > 0 ? (b < kLast ? std::size_t(b) : std::size_t(kLast)) : 0;
  }

  void place(const Event& e, std::size_t b) {
    if (b <= current_ && sorted_ && now_.size() < kSorted) {
      now_.insert(std::upper_bound(now_.begin(), now_.end(), e, std::greater<Event>()),
                  e);
    } else if (b <= current_) {
      if (sorted_)
        std::make_heap(now_.begin(), now_.end(), std::greater<Event>());
      sorted_ = false;
      now_.push_back(e);
      std::push_heap(now_.begin(), now_.end(), std::greater<Event>());
    } else if (b - current_ < kRing) {
      ring_[b % kRing].push_back(e);
      ++ringed_;
    } else {
      far_.push_back(e);
      std::push_heap(far_.begin(), far_.end(), std::greater<Event>());
    }
  }

  // The current buckets empty: the next bucket with events becomes the current one.
  void refill() {
    for (;;) {
      if (ringed_ == 0) // skip to the first far event's bucket
        current_ = std::max(current_, bucket(far_.front().key) - 1);
      ++current_;
      // The far events now within the ring's reach.
      while (!far_.empty() && bucket(far_.front().key) - current_ < kRing) {
        const Event e = far_.front();
        std::pop_heap(far_.begin(), far_.end(), std::greater<Event>());
        far_.pop_back();
        place(e, bucket(e.key));
      }
      Bucket& next = ring_[current_ % kRing];
      if (!next.empty()) {
        ringed_ -= next.size();
        now_.insert(now_.end(), next.begin(), next.end());
        next.clear();
      }
      if (!now_.empty()) {
        sorted_ = now_.size() <= kSorted;
        if (sorted_)
          std::sort(now_.begin(), now_.end(), std::greater<Event>());
        else
          std::make_heap(now_.begin(), now_.end(), std::greater<Event>());
        return;
      }
    }
  }

  // now_: the current buckets' events, few and sorted in decreasing order (a pop takes
  // the last), else (a wide bucket) a heap; far_: a heap.
  static constexpr std::size_t kSorted = 32;
  std::vector<Event> now_, far_;
  bool sorted_ = true;
  std::vector<Bucket> ring_; // bucket b at b % kRing
  double inverseWidth_ = 0;
  std::size_t current_ = 0, ringed_ = 0;
};

} // namespace topogpu::eikonal::detail
