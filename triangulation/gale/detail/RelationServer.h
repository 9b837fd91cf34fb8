// GALE's relation server (section 4.2 of the paper): one request queue per relation,
// its leader thread, and the bounded cache of computed segments. Internal to
// triangulation/gale (GaleTriangulation holds one per preconditioned relation).
#pragma once

#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/gale/detail/GaleRuntime.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace topogpu::gale {

// The CPU's computation of a segment a consumer missed (CpuProducer.cpp).
SegmentPointer computeSegmentForConsumerCpu(const GaleTriangulation& mesh,
                                            ServedRelation relation, SimplexId s);

// One request queue, its leader thread and its cache. Consumers call get(); the leader
// pops every pending request, adds the following segments for precomputation and the
// segments ahead of a segment-order loop's front, has the producer compute the batch,
// caches it and fulfils the consumers' futures. A consumer that misses a segment
// nobody computes yet computes it itself when the producer allows it (no deadlock: a
// segment's computation reads only the immutable mesh, never another segment).
class RelationServer {
public:
  RelationServer(const GaleTriangulation& mesh, ServedRelation relation,
                 std::shared_ptr<SegmentProducer> producer)
      : mesh_(mesh), relation_(relation), producer_(std::move(producer)),
        segments_(mesh.getNumberOfSegments()), cache_(std::size_t(segments_)),
        position_(std::size_t(segments_)) {
    const Parameters& p = mesh.parameters();
    batch_ = p.segmentsPerRequest > 0 ? p.segmentsPerRequest
                                      : producer_->traits().segmentsPerRequest;
    help_ = p.consumersHelp && producer_->consumersMayCompute(relation);
    // Random access (V-paths) outside segment-order loops: a request for a lone segment
    // would wait for a device round trip, so consumers compute it on the CPU there.
    randomHelp_ = !help_ && p.consumersHelp && p.randomAccess;
    // Consumers that compute their own segments keep every core busy already: a leader
    // running ahead on the same cores would only take turns with them (and make them
    // wait for its segment); it runs ahead of them when asked to.
    const int lookahead = p.lookaheadSegments > 0 ? p.lookaheadSegments
                          : help_                 ? 0
                                                  : 2 * batch_;
    // A loop's consumers need their own segments and the window ahead; the rest is
    // dropped (the paper's just-in-time relations).
    const std::size_t cache =
        p.cacheSegments > 0 ? std::size_t(p.cacheSegments)
        : p.randomAccess
            ? std::size_t(segments_) + 1
            : std::max<std::size_t>(
                  256, std::size_t(2 * lookahead) +
                           64 * std::size_t(std::max(
                                    1, tbb::this_task_arena::max_concurrency())));
    // The boundary flags (a byte per simplex) are kept: later passes (the summary,
    // the non-manifold count) read them in any order.
    maxSegments_ = relation == kBoundaryFlags ? std::size_t(segments_) + 1 : cache;
    if (relation == kBoundaryFlags) {
      kept_ =
          std::make_unique<std::atomic<const SegmentRelation*>[]>(std::size_t(segments_));
      for (SimplexId k = 0; k < segments_; ++k)
        kept_[std::size_t(k)].store(nullptr, std::memory_order_relaxed);
    }
    lookahead_ =
        SimplexId(std::min<std::size_t>(std::size_t(lookahead), maxSegments_ / 2));
    leader_ = std::thread([this] { lead(); });
  }
  ~RelationServer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    leader_.join();
  }
  RelationServer(const RelationServer&) = delete;
  RelationServer& operator=(const RelationServer&) = delete;

  SegmentPointer get(SimplexId segment) {
    if (kept(segment) != nullptr)
      return cache_[segment]; // published after it was stored, never replaced
    // A hit without the server's lock (the leader publishes under it, and consumers
    // pin a segment per relation as they reach it): the LRU order is then the order
    // the segments came in, which is the loop's.
    if (SegmentPointer hit = std::atomic_load(&cache_[segment]))
      return hit;
    std::shared_future<SegmentPointer> future;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (const SegmentPointer& cached = cache_[segment]) {
        lru_.splice(lru_.begin(), lru_, position_[segment]);
        return cached;
      }
      if (failure_)
        std::rethrow_exception(failure_);
      auto waiting = waiting_.find(segment);
      if (waiting == waiting_.end() && help_)
        return computeHere(segment, lock, false);
      if (waiting == waiting_.end() && randomHelp_ &&
          mesh_.runtime_->front.load(std::memory_order_relaxed) < 0)
        return computeHere(segment, lock, true);
      if (waiting == waiting_.end()) {
        waiting = waiting_.emplace(segment, std::make_shared<Pending>()).first;
        queue_.push_back(segment);
        ++requests_;
        wake_.notify_one();
      }
      future = waiting->second->future;
    }
    const auto start = std::chrono::steady_clock::now();
    SegmentPointer result = future.get(); // rethrows the producer's error
    waitNanos_.fetch_add(nanosSince(start), std::memory_order_relaxed);
    return result;
  }

  // The segment if cached now (no request, no LRU update), else null.
  SegmentPointer peek(SimplexId segment) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cache_[segment];
  }

  // A kept relation's segment (the boundary flags: never evicted) without the lock,
  // or null: valid until the object dies or precondition flushes the caches (neither
  // runs alongside a consumer).
  const SegmentRelation* kept(SimplexId segment) const {
    return kept_ ? kept_[std::size_t(segment)].load(std::memory_order_acquire) : nullptr;
  }

  // The consumers' front moved (a segment-order loop): compute ahead of it.
  // Only a leader that computes ahead is woken (consumers that compute their own
  // segments leave it asleep: waking it would only take the lock from them).
  // A leader woken at every step would compute a few segments per launch and take the
  // lock from the consumers: it is woken each eighth of its window (at most 64 segments).
  void nudge(SimplexId front) {
    if (lookahead_ > 0 && front % std::clamp<SimplexId>(lookahead_ / 8, 1, 64) == 0)
      wake_.notify_one();
  }

  // A sibling relation's segment computed by a consumer along with its own: taken when
  // consumers compute this relation and nobody has it yet.
  bool wants(SimplexId segment) const {
    // Far ahead of a segment-order loop's front, the sibling would be evicted before
    // the loop reaches it (computed twice): left to the loop. The boundary flags are
    // kept.
    const SimplexId front = mesh_.runtime_->front.load(std::memory_order_relaxed);
    if (front >= 0 && relation_ != kBoundaryFlags &&
        std::size_t(std::max<SimplexId>(0, segment - front)) > maxSegments_ / 2)
      return false;
    std::lock_guard<std::mutex> lock(mutex_);
    return help_ && !failure_ && !cache_[segment] && waiting_.count(segment) == 0;
  }
  void offer(SimplexId segment, const SegmentPointer& data) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!help_ || failure_ || cache_[segment] || waiting_.count(segment) != 0)
      return;
    ++helped_;
    ++computed_;
    insert(segment, data);
  }

  // Waits until the leader is idle (no batch in flight), then drops the cache: called by
  // precondition when it adds lists the cached segments were computed without.
  void quiesceAndFlush() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return !busy_ && queue_.empty() && waiting_.empty(); });
    for (const SimplexId s : lru_) {
      if (kept_)
        kept_[std::size_t(s)].store(nullptr, std::memory_order_relaxed);
      std::atomic_store(&cache_[s], SegmentPointer());
    }
    lru_.clear();
    cacheBytes_ = 0;
  }

  void addStatistics(Statistics& s) const {
    std::lock_guard<std::mutex> lock(mutex_);
    s.consumerWaitSeconds += double(waitNanos_.load()) * 1e-9;
    s.queueSeconds += double(queueNanos_) * 1e-9;
    s.producerSeconds += double(producerNanos_) * 1e-9;
    s.consumerComputeSeconds += double(helpNanos_) * 1e-9;
    s.requests += requests_;
    s.batches += batches_;
    s.segmentsComputed += computed_;
    s.segmentsComputedByConsumers += helped_;
    s.segmentsAhead += ahead_;
    s.peakCacheBytes += peakBytes_;
  }
  std::size_t cacheBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cacheBytes_;
  }

private:
  struct Pending {
    Pending() : future(promise.get_future().share()) {}
    std::promise<SegmentPointer> promise;
    std::shared_future<SegmentPointer> future;
    std::chrono::steady_clock::time_point queued = std::chrono::steady_clock::now();
  };

  static std::uint64_t nanosSince(std::chrono::steady_clock::time_point start) {
    return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count());
  }

  std::exception_ptr describe(const std::vector<SimplexId>& batch, const char* what) {
    return std::make_exception_ptr(Error(
        "GALE producer '" + producer_->name() + "' failed computing " +
        servedRelationName(relation_) + " (segment " + std::to_string(batch[0]) +
        (batch.size() > 1 ? " and " + std::to_string(batch.size() - 1) + " more" : "") +
        "): " + what));
  }

  // Runs the producer on a batch outside the lock; the error (if any) is returned.
  std::exception_ptr produce(const std::vector<SimplexId>& batch,
                             std::vector<SegmentPointer>& out,
                             const SegmentProducer::Ready* ready = nullptr) {
    try {
      if (ready != nullptr)
        producer_->computeStreaming(mesh_, relation_, batch, out, *ready);
      else
        producer_->compute(mesh_, relation_, batch, out);
      if (out.size() != batch.size())
        throw Error("it returned " + std::to_string(out.size()) + " segments for " +
                    std::to_string(batch.size()));
      return nullptr;
    } catch (const std::exception& e) {
      return describe(batch, e.what());
    } catch (...) {
      return describe(batch, "an unknown exception");
    }
  }

  // A consumer computes the segment it missed (claimed as pending, so others wait on
  // it rather than computing it twice).
  // onCpu: the CPU's computation, whatever the producer.
  SegmentPointer computeHere(SimplexId segment, std::unique_lock<std::mutex>& lock,
                             bool onCpu) {
    const auto pending = std::make_shared<Pending>();
    waiting_.emplace(segment, pending);
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    std::vector<SegmentPointer> out;
    const std::vector<SimplexId> one{segment};
    std::exception_ptr error;
    if (onCpu) {
      try {
        out = {computeSegmentForConsumerCpu(mesh_, relation_, segment)};
      } catch (const std::exception& e) {
        error = describe(one, e.what());
      }
    } else {
      error = produce(one, out);
    }
    lock.lock();
    helpNanos_ += nanosSince(start);
    if (error) {
      fail(segment, error);
      failAll(error);
      std::rethrow_exception(error);
    }
    ++helped_;
    ++computed_;
    insert(segment, out[0]);
    pending->promise.set_value(out[0]);
    waiting_.erase(segment);
    idle_.notify_all();
    lock.unlock();
    // The segment's sibling relations after it is published: a consumer waiting on it
    // (a neighbour's boundary flags) does not wait for them too.
    const auto siblings = std::chrono::steady_clock::now();
    producer_->computeSiblings(mesh_, relation_, segment);
    const std::uint64_t spent = nanosSince(siblings);
    lock.lock();
    helpNanos_ += spent;
    return out[0];
  }

  // The consumers' front, or -1 before the first segment-order loop (the leader primes
  // that loop's first window as soon as it starts); nothing outside a loop after it.
  bool front(SimplexId& at, std::uint64_t& pass) const {
    at = mesh_.runtime_->front.load(std::memory_order_acquire);
    pass = mesh_.runtime_->pass.load(std::memory_order_acquire);
    return at >= 0 || pass == 0;
  }
  // Segments after the consumers' front not cached nor pending, up to `room`.
  // Each segment is computed ahead at most once per pass (a cursor), so a cache too
  // small for the window cannot make the leader recompute what it evicted.
  SimplexId aheadStart() {
    SimplexId at = 0;
    std::uint64_t pass = 0;
    if (!front(at, pass) || lookahead_ <= 0 || failure_)
      return segments_;
    if (pass != pass_) {
      pass_ = pass;
      cursor_ = -1;
    }
    return std::max(at + 1, cursor_ + 1);
  }
  SimplexId aheadEnd() const {
    SimplexId at = 0;
    std::uint64_t pass = 0;
    front(at, pass);
    return std::min(segments_, at + 1 + lookahead_);
  }
  void addAhead(std::vector<SimplexId>& batch, std::size_t room) {
    const SimplexId last = aheadEnd();
    for (SimplexId s = aheadStart(); s < last && batch.size() < room; ++s) {
      cursor_ = s;
      if (cache_[s] || waiting_.count(s) != 0)
        continue;
      waiting_.emplace(s, std::make_shared<Pending>());
      batch.push_back(s);
      ++ahead_;
    }
  }
  bool aheadWanted() {
    const SimplexId last = aheadEnd();
    for (SimplexId s = aheadStart(); s < last; ++s) {
      if (!cache_[s] && waiting_.count(s) == 0)
        return true;
      cursor_ = s;
    }
    return false;
  }

  void lead() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || !queue_.empty() || aheadWanted(); });
      if (stop_)
        break;
      std::vector<SimplexId> batch;
      batch.swap(queue_);
      const auto picked = std::chrono::steady_clock::now();
      for (const SimplexId s : batch)
        queueNanos_ += std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         picked - waiting_[s]->queued)
                                         .count());
      const std::size_t requested = batch.size();
      for (std::size_t k = 0; k < requested; ++k) {
        for (int j = 1; j < batch_; ++j) {
          const SimplexId next = batch[k] + j;
          if (next >= segments_)
            break;
          if (cache_[next] || waiting_.count(next) != 0)
            continue;
          waiting_.emplace(next, std::make_shared<Pending>());
          batch.push_back(next);
        }
      }
      // When consumers compute what they miss (CPU producers), the leader is one more
      // worker ahead of them: one segment at a time, published at once, so a consumer
      // never waits on a whole batch for the segment it needs.
      addAhead(batch, help_ ? std::max<std::size_t>(1, requested)
                            : std::max<std::size_t>(std::size_t(batch_), requested));
      if (batch.empty())
        continue;
      busy_ = true;
      ++batches_;
      lock.unlock();
      const auto start = std::chrono::steady_clock::now();
      std::vector<SegmentPointer> out;
      // Segments [first, last) of the batch handed out as soon as the producer has them
      // (the GPU producer's launches), each once: a segment no longer pending was.
      const SegmentProducer::Ready ready = [&](std::size_t first, std::size_t last) {
        std::lock_guard<std::mutex> guard(mutex_);
        publish(batch, out, first, last);
      };
      const std::exception_ptr error = produce(batch, out, &ready);
      const std::uint64_t spent = nanosSince(start);
      lock.lock();
      producerNanos_ += spent;
      busy_ = false;
      if (error) {
        for (const SimplexId s : batch)
          fail(s, error);
        failAll(error);
      } else {
        publish(batch, out, 0, batch.size());
      }
      idle_.notify_all();
    }
    const auto destroyed = std::make_exception_ptr(
        Error("the GALE triangulation was destroyed while a request was pending"));
    for (auto& entry : waiting_)
      entry.second->promise.set_exception(destroyed);
    waiting_.clear();
    queue_.clear();
    idle_.notify_all();
  }

  // Caches and hands out the batch's segments [first, last) still pending (under the
  // lock); requested segments last, so a tiny cache keeps them rather than the
  // precomputed ones.
  void publish(const std::vector<SimplexId>& batch,
               const std::vector<SegmentPointer>& out, std::size_t first,
               std::size_t last) {
    for (std::size_t k = last; k-- > first;) {
      if (out[k] && waiting_.count(batch[k]) != 0)
        insert(batch[k], out[k]);
    }
    for (std::size_t k = first; k < last; ++k) {
      const auto waiting = waiting_.find(batch[k]);
      if (waiting == waiting_.end() || !out[k])
        continue;
      waiting->second->promise.set_value(out[k]);
      waiting_.erase(waiting);
      ++computed_;
    }
  }

  // Every queued request fails with the error, and every later one.
  void failAll(const std::exception_ptr& error) {
    failure_ = error;
    for (const SimplexId s : queue_)
      fail(s, error);
    queue_.clear();
  }
  void fail(SimplexId segment, const std::exception_ptr& error) {
    const auto waiting = waiting_.find(segment);
    if (waiting == waiting_.end())
      return;
    waiting->second->promise.set_exception(error);
    waiting_.erase(waiting);
  }

  // LRU with a segment and a byte cap; a segment a consumer still holds (its
  // shared_ptr is pinned by the reference count) is evicted only when every cached one
  // is, and then stays alive until the last consumer lets it go.
  void insert(SimplexId segment, const SegmentPointer& data) {
    if (kept_ && cache_[segment])
      return;              // its pointer is published: keep the first
    if (cache_[segment]) { // computed twice (a flush raced): keep the first
      cacheBytes_ -= cache_[segment]->bytes();
      lru_.erase(position_[segment]);
    }
    lru_.push_front(segment);
    position_[segment] = lru_.begin();
    std::atomic_store(&cache_[segment], data); // (read without the lock by get())
    cacheBytes_ += data->bytes();
    if (kept_) {
      kept_[std::size_t(segment)].store(data.get(), std::memory_order_release);
      peakBytes_ = std::max(peakBytes_, cacheBytes_);
      return; // kept: never evicted (the byte cap does not apply)
    }
    const std::size_t maxBytes = mesh_.parameters().cacheBytes;
    auto over = [&] {
      return lru_.size() > maxSegments_ ||
             (maxBytes > 0 && cacheBytes_ > maxBytes && lru_.size() > 1);
    };
    while (over()) {
      auto victim = std::prev(lru_.end());
      for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
        if (cache_[*it].use_count() == 1) {
          victim = std::prev(it.base());
          break;
        }
      }
      cacheBytes_ -= cache_[*victim]->bytes();
      std::atomic_store(&cache_[*victim], SegmentPointer());
      lru_.erase(victim);
    }
    peakBytes_ = std::max(peakBytes_, cacheBytes_);
  }

  const GaleTriangulation& mesh_;
  const ServedRelation relation_;
  std::shared_ptr<SegmentProducer> producer_;
  const SimplexId segments_;
  int batch_ = 16;
  std::size_t maxSegments_ = 1;
  SimplexId lookahead_ = 0, cursor_ = -1;
  std::uint64_t pass_ = 0;
  bool help_ = false, randomHelp_ = false;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::vector<SimplexId> queue_;
  std::unordered_map<SimplexId, std::shared_ptr<Pending>> waiting_; // queued or computing
  std::list<SimplexId> lru_;
  std::vector<SegmentPointer> cache_; // per segment, null if absent
  std::unique_ptr<std::atomic<const SegmentRelation*>[]> kept_; // kept relations only
  std::vector<std::list<SimplexId>::iterator> position_;        // in lru_, when cached
  std::size_t cacheBytes_ = 0, peakBytes_ = 0;
  std::exception_ptr failure_;
  bool stop_ = false, busy_ = false;
  std::uint64_t requests_ = 0, batches_ = 0, computed_ = 0, helped_ = 0, ahead_ = 0;
  std::uint64_t queueNanos_ = 0, producerNanos_ = 0, helpNanos_ = 0;
  std::atomic<std::uint64_t> waitNanos_{0};
  std::thread leader_;
};

} // namespace topogpu::gale
