#include "GaleTriangulation.h"

#include "core/common/Timer.h"
#include "triangulation/explicit/MeshBuilding.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <future>
#include <limits>
#include <list>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_map>
#include <utility>

namespace topogpu {

namespace gale {

const char* servedRelationName(int relation) {
  static const char* names[kServedRelationCount] = {
      "VV", "VE", "VF", "vertex star", "EF", "ET", "FT", "TT", "boundary flags"};
  return relation >= 0 && relation < kServedRelationCount ? names[relation] : "?";
}

std::size_t SegmentRelation::bytes() const {
  auto ids = [](const IdArray& a) { return a.size() * (a.isWide() ? 8 : 4); };
  return sizeof(*this) + ids(rows.offsets) + ids(rows.data) + vertexFlags.size() +
         edgeFlags.size() + triangleFlags.size();
}

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
          mesh_.front_.load(std::memory_order_relaxed) < 0)
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
    const SimplexId front = mesh_.front_.load(std::memory_order_relaxed);
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
    at = mesh_.front_.load(std::memory_order_acquire);
    pass = mesh_.pass_.load(std::memory_order_acquire);
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

} // namespace gale

namespace {

using Range = tbb::blocked_range<SimplexId>;
using mesh_building::parallelFor;
using mesh_building::sortSmall;

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

std::atomic<std::uint64_t> nextInstance{1};

// The consumer fast path: each thread keeps its last few segments (any relation, any
// GALE object) so that a vertex in one of them needs no lock; the handle also pins the
// segment, so the cache may evict it while it is read. Inside a segment-order loop the
// task's pinned view answers first, without searching.
struct Handle {
  std::uint64_t instance = 0, generation = 0;
  int relation = -1;
  SimplexId segment = -1;
  gale::SegmentPointer data;
};
constexpr int kHandles = 8;
thread_local std::array<Handle, kHandles> tHandles;
thread_local int tNextHandle = 0;

constexpr int kTetEdgePairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
constexpr int kTetFaces[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
// Rows of simplices per lowest vertex up to this long are scanned, not bisected.
constexpr SimplexId kLinearSearch = 16;

} // namespace

// Rows from (row, value) pairs: sorted, duplicates dropped. The pairs are bucketed by
// row (a counting pass: rows are dense in [0, rowCount)), then each row, a handful of
// values, is sorted on its own: no sort of all the pairs (it was the CPU producer's
// largest cost on the coboundary relations).
CompressedRows gale::rowsFromPairs(std::vector<std::pair<SimplexId, SimplexId>>& pairs,
                                   SimplexId rowCount, SimplexId maxValue) {
  thread_local std::vector<SimplexId> start, values;
  start.assign(std::size_t(rowCount) + 1, 0);
  for (const auto& [row, value] : pairs) {
    if (row < 0 || row >= rowCount)
      throw Error("internal error: GALE relation row " + std::to_string(row) +
                  " outside its segment's " + std::to_string(rowCount) + " rows");
    ++start[std::size_t(row) + 1];
  }
  for (std::size_t r = 1; r < start.size(); ++r)
    start[r] += start[r - 1];
  values.resize(pairs.size());
  for (const auto& [row, value] : pairs)
    values[std::size_t(start[std::size_t(row)]++)] = value;
  // start[r] is now row r's end; row r begins at start[r - 1] (0 for the first)
  std::size_t kept = 0, begin = 0;
  CompressedRows rows;
  rows.offsets.allocate(std::size_t(rowCount) + 1, SimplexId(pairs.size()), false);
  rows.offsets.set(0, 0);
  for (std::size_t r = 0; r < std::size_t(rowCount); ++r) {
    const std::size_t end = std::size_t(start[r]);
    SimplexId* first = values.data() + begin;
    SimplexId* last = values.data() + end;
    if (last - first <= 16) // rows are short: an insertion sort
      sortSmall(first, int(last - first));
    else
      std::sort(first, last);
    for (SimplexId* v = first; v != last; ++v)
      if (v == first || *v != v[-1])
        values[kept++] = *v;
    rows.offsets.set(r + 1, SimplexId(kept));
    begin = end;
  }
  rows.data.allocate(kept, maxValue, false);
  for (std::size_t k = 0; k < kept; ++k)
    rows.data.set(k, values[k]);
  return rows;
}

namespace {

// The cells' count after the explicit backend's checks (ids in range, no repeated vertex,
// no identical cells), so both backends reject the same meshes with the same messages;
// its temporaries are freed on return.
template <typename Id>
SimplexId checkedCellCount(SimplexId numberOfVertices, int dimension,
                           const std::vector<Id>& cellVertices) {
  const SimplexId numberOfCells =
      mesh_building::cellCount(cellVertices.size(), dimension);
  ExplicitTriangulation::view(numberOfVertices, dimension, cellVertices.data(),
                              numberOfCells, nullptr);
  return numberOfCells;
}

} // namespace

// ---- construction: validation, segmentation, cells per segment ----------------------

GaleTriangulation::GaleTriangulation(SimplexId numberOfVertices, int cellDimension,
                                     std::vector<SimplexId> cellVertices,
                                     const std::vector<double>& points,
                                     const gale::Parameters& parameters,
                                     std::shared_ptr<gale::SegmentProducer> producer)
    : dimension_(cellDimension), numberOfVertices_(numberOfVertices),
      parameters_(parameters), instance_(nextInstance.fetch_add(1)) {
  startGpuContext(producer != nullptr);
  initialize(cellVertices, points, std::move(producer));
}

// From an explicit mesh: its cells were validated by the same checks; they are copied
// straight into GALE's 32/64-bit array (no 64-bit temporary).
GaleTriangulation::GaleTriangulation(Unchecked, const ExplicitTriangulation& mesh,
                                     const std::vector<double>& points,
                                     const gale::Parameters& parameters,
                                     std::shared_ptr<gale::SegmentProducer> producer)
    : dimension_(mesh.getDimension()), numberOfVertices_(mesh.getNumberOfVertices()),
      parameters_(parameters), instance_(nextInstance.fetch_add(1)) {
  startGpuContext(producer != nullptr);
  Timer timer;
  checkParameters(points);
  numberOfCells_ = mesh.getNumberOfCells();
  const int arity = dimension_ + 1;
  cells_.allocate(std::size_t(numberOfCells_) * arity, numberOfVertices_ - 1, false);
  parallelFor(numberOfCells_, [&](SimplexId c) {
    for (int k = 0; k < arity; ++k)
      cells_.set(std::size_t(c) * arity + k, mesh.getCellVertex(c, k));
  });
  initialization_.cellListSeconds += timer.seconds();
  finishInitialization(points, std::move(producer));
}

GaleTriangulation::GaleTriangulation(Cells32, SimplexId numberOfVertices,
                                     int cellDimension,
                                     std::vector<std::int32_t>& cellVertices,
                                     std::vector<double>& points,
                                     const gale::Parameters& parameters,
                                     std::shared_ptr<gale::SegmentProducer> producer)
    : dimension_(cellDimension), numberOfVertices_(numberOfVertices),
      parameters_(parameters), instance_(nextInstance.fetch_add(1)) {
  startGpuContext(producer != nullptr);
  checkParameters(points);
  if (numberOfVertices_ < 1 || cellVertices.empty()) // the checks name the problem
    checkedCellCount(numberOfVertices_, dimension_, cellVertices);
  // The octree first: the points are freed before the cells' checks, the peak memory
  // of the construction.
  Timer timer;
  buildSegments(points);
  std::vector<double>().swap(points);
  initialization_.segmentationSeconds += timer.seconds();
  // The GPU producer's copy of the cells goes up while the host checks them (nothing
  // reads it before they pass).
  std::future<std::shared_ptr<gale::DeviceCells>> upload;
  if (const gale::GpuProducerFactory* factory = gpuFactory(producer != nullptr))
    upload = std::async(std::launch::async, [this, factory, &cellVertices] {
      if (gpuContext_.valid())
        gpuContext_.get();
      return factory->uploadCells(cellVertices.data(), cellVertices.size());
    });
  timer.reset();
  numberOfCells_ = checkedCellCount(numberOfVertices_, dimension_, cellVertices);
  validationSeconds_ = timer.seconds();
  if (upload.valid())
    gpuCells_ = upload.get(); // before the host renumbers them in place
  cells_.adopt(std::move(cellVertices));
  finishInitialization({}, std::move(producer));
}

std::shared_ptr<GaleTriangulation> GaleTriangulation::fromCells32(
    SimplexId numberOfVertices, int cellDimension, std::vector<std::int32_t> cellVertices,
    std::vector<double> points, const gale::Parameters& parameters,
    std::shared_ptr<gale::SegmentProducer> producer) {
  return std::shared_ptr<GaleTriangulation>(
      new GaleTriangulation(Cells32{}, numberOfVertices, cellDimension, cellVertices,
                            points, parameters, std::move(producer)));
}

std::shared_ptr<GaleTriangulation> GaleTriangulation::fromExplicit(
    const ExplicitTriangulation& mesh, const std::vector<double>& points,
    const gale::Parameters& parameters, std::shared_ptr<gale::SegmentProducer> producer) {
  return std::shared_ptr<GaleTriangulation>(
      new GaleTriangulation(Unchecked{}, mesh, points, parameters, std::move(producer)));
}

// The GPU producer's first CUDA call starts the device's context: begun here on a
// thread of its own, it overlaps the validation and the segmentation. The future is
// waited on before the producer is made (and by the destructor if construction throws).
void GaleTriangulation::startGpuContext(bool producerGiven) {
  if (const gale::GpuProducerFactory* factory = gpuFactory(producerGiven))
    gpuContext_ = std::async(std::launch::async, [factory] { factory->startContext(); });
}

// The GPU producer's factory when this construction makes one (none given, a GPU
// producer asked for, a factory passed in); null otherwise.
const gale::GpuProducerFactory* GaleTriangulation::gpuFactory(bool producerGiven) const {
  return !producerGiven && parameters_.producer == gale::ProducerKind::Gpu
             ? parameters_.gpuFactory.get()
             : nullptr;
}

void GaleTriangulation::checkParameters(const std::vector<double>& points) const {
  if (dimension_ != 2 && dimension_ != 3)
    throw Error("GALE triangulation needs triangles or tetrahedra (cell dimension " +
                std::to_string(dimension_) + ")");
  if (parameters_.segmentCapacity < 1)
    throw Error("GALE segment capacity must be at least 1 vertex (got " +
                std::to_string(parameters_.segmentCapacity) + ")");
  if (!points.empty() && points.size() != std::size_t(numberOfVertices_) * 3)
    throw Error("GALE triangulation: " + std::to_string(points.size()) +
                " point coordinates for " + std::to_string(numberOfVertices_) +
                " vertices (3 per vertex expected)");
}

void GaleTriangulation::initialize(std::vector<SimplexId>& cellVertices,
                                   const std::vector<double>& points,
                                   std::shared_ptr<gale::SegmentProducer> producer) {
  Timer timer;
  if (dimension_ != 2 && dimension_ != 3)
    checkParameters(points); // names the bad dimension
  numberOfCells_ = checkedCellCount(numberOfVertices_, dimension_, cellVertices);
  checkParameters(points);
  validationSeconds_ = timer.seconds();
  timer.reset();
  cells_.allocate(cellVertices.size(), numberOfVertices_ - 1, false);
  parallelFor(SimplexId(cellVertices.size()),
              [&](SimplexId i) { cells_.set(std::size_t(i), cellVertices[i]); });
  std::vector<SimplexId>().swap(cellVertices);
  initialization_.cellListSeconds += timer.seconds();
  finishInitialization(points, std::move(producer));
}

void GaleTriangulation::finishInitialization(
    const std::vector<double>& points, std::shared_ptr<gale::SegmentProducer> producer) {
  Timer timer;
  if (segmentStart_.empty()) // (the 32-bit cells' path segmented first)
    buildSegments(points);
  initialization_.segmentationSeconds += timer.seconds();
  timer.reset();
  // The GPU producer's setup needs the cells and the segmentation only: with the cells
  // already on the device it runs while the host renumbers its own (else after) and
  // builds its cell lists.
  const gale::GpuProducerFactory* factory = gpuFactory(producer != nullptr);
  std::future<std::shared_ptr<gale::DeviceStart>> gpuStart;
  auto startGpu = [&] {
    if (factory != nullptr)
      gpuStart =
          std::async(std::launch::async, [this, factory, cells = std::move(gpuCells_)] {
            if (gpuContext_.valid())
              gpuContext_.get();
            return factory->begin(*this, cells);
          });
  };
  if (gpuCells_)
    startGpu();
  // Cells in new ids from here on: producers read them without the renumbering's
  // random lookups.
  parallelFor(SimplexId(cells_.size()),
              [&](SimplexId i) { cells_.set(std::size_t(i), newOfOld_[cells_[i]]); });
  tets32_ = dimension_ == 3 ? cells_.narrowData() : nullptr;
  if (!gpuStart.valid())
    startGpu();
  // In 3D the device's cell lists serve the host too (fetched when a CPU computation
  // first needs them): critical points on the device's relations never hold them. In 2D
  // the host sorts its lists by tuple (findTriangle), so it builds its own meanwhile.
  std::shared_ptr<gale::DeviceStart> started;
  if (gpuStart.valid() && dimension_ == 3) {
    started = gpuStart.get();
    if (factory->cellOffsets(started.get(), internalOffsets_, externalOffsets_))
      hostCellLists_.store(false);
  }
  if (hostCellLists_.load()) {
    buildCellLists(internalOffsets_, externalOffsets_, internalCells_, externalCells_);
    if (dimension_ == 2)
      sortInternalByTuple(); // findTriangle searches the cells
  }
  initialization_.cellListSeconds += timer.seconds();
  timer.reset();
  if (producer) {
    producer_ = std::move(producer);
  } else {
    if (parameters_.producer == gale::ProducerKind::Gpu) {
      std::string why = "no GPU producer was given";
      if (factory != nullptr)
        producer_ = factory->make(
            *this, gpuStart.valid() ? gpuStart.get() : std::move(started), why);
      if (!producer_)
        warnings_.push_back({WarningCode::GaleNoGpuProducer,
                             "GALE: no GPU producer (" + why +
                                 "); the relations are computed by CPU producers"});
    }
    if (!producer_)
      producer_ = gale::makeCpuProducer();
  }
  if (!producer_->traits().onDevice)
    ensureHostCellLists(); // (built here: a CPU producer reads them at once)
  initialization_.producerSeconds += timer.seconds();
}

GaleTriangulation::~GaleTriangulation() {
  for (auto& server : servers_)
    server.reset(); // joins its leader
}

namespace {

struct Box {
  double lo[3], hi[3];
};

// PR octree leaves over order[first, last): children in fixed octant order, so the leaf
// sequence (and the renumbering) is deterministic; large nodes split in parallel.
void splitOctree(const std::vector<double>& points, SimplexId* order, SimplexId first,
                 SimplexId last, const Box& box, int depth, SimplexId capacity,
                 std::vector<SimplexId>& leafStarts) {
  const SimplexId count = last - first;
  double center[3];
  bool splittable = false;
  for (int a = 0; a < 3; ++a) {
    center[a] = 0.5 * (box.lo[a] + box.hi[a]);
    splittable |= center[a] > box.lo[a] && center[a] < box.hi[a];
  }
  // Coincident points cannot be separated: such a leaf may hold more than N.
  if (count <= capacity || depth >= 48 || !splittable) {
    leafStarts.push_back(first);
    return;
  }
  SimplexId bounds[9];
  bounds[0] = first;
  bounds[8] = last;
  auto split = [&](SimplexId a, SimplexId b, int axis) {
    return SimplexId(
        std::partition(order + a, order + b,
                       [&](SimplexId v) { return points[3 * v + axis] < center[axis]; }) -
        order);
  };
  // the halves' and quarters' partitions are independent: in parallel on large nodes
  const bool wide = count > (SimplexId(1) << 17);
  auto both = [&](auto&& a, auto&& b) {
    if (wide)
      tbb::parallel_invoke(a, b);
    else {
      a();
      b();
    }
  };
  bounds[4] = split(first, last, 2);
  both([&] { bounds[2] = split(first, bounds[4], 1); },
       [&] { bounds[6] = split(bounds[4], last, 1); });
  both(
      [&] {
        both([&] { bounds[1] = split(bounds[0], bounds[2], 0); },
             [&] { bounds[3] = split(bounds[2], bounds[4], 0); });
      },
      [&] {
        both([&] { bounds[5] = split(bounds[4], bounds[6], 0); },
             [&] { bounds[7] = split(bounds[6], bounds[8], 0); });
      });
  std::array<std::vector<SimplexId>, 8> children;
  auto child = [&](int k) {
    if (bounds[k + 1] == bounds[k])
      return;
    Box sub = box;
    for (int a = 0; a < 3; ++a) {
      if ((k >> a) & 1)
        sub.lo[a] = center[a];
      else
        sub.hi[a] = center[a];
    }
    splitOctree(points, order, bounds[k], bounds[k + 1], sub, depth + 1, capacity,
                children[k]);
  };
  if (count > (SimplexId(1) << 15))
    tbb::parallel_for(0, 8, child);
  else
    for (int k = 0; k < 8; ++k)
      child(k);
  for (const auto& c : children)
    leafStarts.insert(leafStarts.end(), c.begin(), c.end());
}

} // namespace

void GaleTriangulation::buildSegments(const std::vector<double>& points) {
  const SimplexId n = numberOfVertices_;
  std::vector<SimplexId> order(n);
  std::iota(order.begin(), order.end(), SimplexId(0));
  const SimplexId capacity = parameters_.segmentCapacity;
  segmentStart_.clear();
  if (points.empty()) {
    for (SimplexId s = 0; s < n; s += capacity)
      segmentStart_.push_back(s);
  } else {
    // The bounding box, and the lowest vertex with a non-finite coordinate (if any).
    struct Bounds {
      Box box{{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
               std::numeric_limits<double>::max()},
              {std::numeric_limits<double>::lowest(),
               std::numeric_limits<double>::lowest(),
               std::numeric_limits<double>::lowest()}};
      SimplexId bad = std::numeric_limits<SimplexId>::max();
    };
    const Bounds bounds = tbb::parallel_reduce(
        tbb::blocked_range<SimplexId>(0, n), Bounds{},
        [&](const tbb::blocked_range<SimplexId>& r, Bounds b) {
          for (SimplexId v = r.begin(); v < r.end(); ++v) {
            for (int a = 0; a < 3; ++a) {
              const double x = points[3 * v + a];
              if (!std::isfinite(x))
                b.bad = std::min(b.bad, v);
              b.box.lo[a] = std::min(b.box.lo[a], x);
              b.box.hi[a] = std::max(b.box.hi[a], x);
            }
          }
          return b;
        },
        [](Bounds a, const Bounds& b) {
          for (int k = 0; k < 3; ++k) {
            a.box.lo[k] = std::min(a.box.lo[k], b.box.lo[k]);
            a.box.hi[k] = std::max(a.box.hi[k], b.box.hi[k]);
          }
          a.bad = std::min(a.bad, b.bad);
          return a;
        });
    if (bounds.bad != std::numeric_limits<SimplexId>::max())
      throw Error("GALE triangulation: vertex " + std::to_string(bounds.bad) +
                  " has a non-finite coordinate");
    const Box& box = bounds.box;
    std::vector<SimplexId> leaves;
    splitOctree(points, order.data(), 0, n, box, 0, capacity, leaves);
    // Consecutive leaves (neighbours along the octree's Z-order) packed into segments
    // of at most N vertices: on a grid the leaves are often far below N (a split of
    // 8 x 8 x 4 = 256 vertices gives leaves of 32), and each segment costs its touching
    // cells outside it and a request, so fuller segments are cheaper per vertex.
    leaves.push_back(n);
    for (std::size_t k = 0; k + 1 < leaves.size(); ++k)
      if (!parameters_.packLeaves || segmentStart_.empty() ||
          leaves[k + 1] - segmentStart_.back() > capacity)
        segmentStart_.push_back(leaves[k]);
  }
  segmentStart_.push_back(n);
  const SimplexId segments = SimplexId(segmentStart_.size()) - 1;
  newOfOld_.allocate(n, n - 1, false);
  oldOfNew_.allocate(n, n - 1, false);
  segmentOfNew_.allocate(n, segments - 1, false);
  parallelFor(n, [&](SimplexId i) {
    oldOfNew_.set(i, order[i]);
    newOfOld_.set(order[i], i);
  });
  parallelFor(segments, [&](SimplexId s) {
    for (SimplexId i = segmentStart_[s]; i < segmentStart_[s + 1]; ++i)
      segmentOfNew_.set(i, s);
  });
}

// Internal cells (lowest vertex in the segment) and external cells (touching the
// segment otherwise), each list by ascending id. The cells are cut into blocks of
// consecutive ids counted per (segment, block): the scan of those counts gives every
// block its place in each list, so the fill needs no atomics and no sort afterwards.
void GaleTriangulation::buildCellLists(std::vector<SimplexId>& internalOffsets,
                                       std::vector<SimplexId>& externalOffsets,
                                       IdArray& internalCells,
                                       IdArray& externalCells) const {
  const SimplexId segments = getNumberOfSegments();
  const int arity = dimension_ + 1;
  auto externalSegments = [&](const std::array<SimplexId, 4>& t, SimplexId* out) {
    int n = 0;
    const SimplexId own = segmentOfNew_[t[0]];
    for (int k = 1; k < arity; ++k) {
      const SimplexId s = segmentOfNew_[t[k]];
      if (s != own && std::find(out, out + n, s) == out + n)
        out[n++] = s;
    }
    return n;
  };
  // blocks: a few per core, the counts bounded to 2^21 entries (16 MiB) per list
  const SimplexId wanted =
      4 * SimplexId(std::max(1, tbb::this_task_arena::max_concurrency()));
  const SimplexId blocks = std::max<SimplexId>(
      1, std::min({wanted, (SimplexId(1) << 21) / std::max<SimplexId>(1, segments),
                   numberOfCells_}));
  auto blockBegin = [&](SimplexId b) { return numberOfCells_ * b / blocks; };
  // at[b * segments + s]: block b's count in segment s, then its fill position (a row
  // per block: no false sharing between the blocks' threads)
  std::vector<SimplexId> internalAt(std::size_t(segments * blocks), 0),
      externalAt(std::size_t(segments * blocks), 0);
  auto forBlocks = [&](auto&& body) {
    tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
      for (SimplexId c = blockBegin(b); c < blockBegin(b + 1); ++c) {
        const auto t = sortedNewCell(c);
        SimplexId others[3];
        const int n = externalSegments(t, others);
        body(b, c, segmentOfNew_[t[0]], others, n);
      }
    });
  };
  forBlocks([&](SimplexId b, SimplexId, SimplexId own, const SimplexId* others, int n) {
    ++internalAt[std::size_t(b * segments + own)];
    for (int k = 0; k < n; ++k)
      ++externalAt[std::size_t(b * segments + others[k])];
  });
  auto scan = [&](std::vector<SimplexId>& at, std::vector<SimplexId>& offsets) {
    offsets.assign(segments + 1, 0);
    SimplexId total = 0;
    for (SimplexId s = 0; s < segments; ++s) {
      offsets[s] = total;
      for (SimplexId b = 0; b < blocks; ++b) {
        const SimplexId count = at[std::size_t(b * segments + s)];
        at[std::size_t(b * segments + s)] = total;
        total += count;
      }
    }
    offsets[segments] = total;
  };
  scan(internalAt, internalOffsets);
  scan(externalAt, externalOffsets);
  internalCells.allocate(numberOfCells_, numberOfCells_ - 1, false);
  externalCells.allocate(externalOffsets.back(), numberOfCells_ - 1, false);
  forBlocks([&](SimplexId b, SimplexId c, SimplexId own, const SimplexId* others, int n) {
    internalCells.set(std::size_t(internalAt[std::size_t(b * segments + own)]++), c);
    for (int k = 0; k < n; ++k)
      externalCells.set(std::size_t(externalAt[std::size_t(b * segments + others[k])]++),
                        c);
  });
}

// The host's copy of the cell lists when the GPU producer built them (3D): fetched from
// the device, or built here if the device no longer has them, the first time a CPU
// computation needs them (a relation the device does not serve, a consumer or a
// fallback computing a segment, the edge and triangle lists). Thread-safe.
void GaleTriangulation::ensureHostCellLists() const {
  if (hostCellLists_.load(std::memory_order_acquire))
    return;
  std::lock_guard<std::mutex> lock(hostCellListsMutex_);
  if (hostCellLists_.load(std::memory_order_relaxed))
    return;
  // isolated: this thread must not pick up a consumer's task meanwhile (which could
  // come back here)
  tbb::this_task_arena::isolate([&] {
    IdArray internal, external;
    if (!producer_ || !producer_->downloadCellLists(internal, external) ||
        internal.size() != std::size_t(numberOfCells_) ||
        external.size() != std::size_t(externalOffsets_.back())) {
      std::vector<SimplexId> internalOffsets, externalOffsets;
      buildCellLists(internalOffsets, externalOffsets, internal, external);
    }
    internalCells_ = std::move(internal);
    externalCells_ = std::move(external);
  });
  hostCellLists_.store(true, std::memory_order_release);
}

// Internal cells by their sorted vertex tuple, so that a cell is found by binary search
// (TT's rows, findTriangle in 2D); done when first needed, it costs a sort of every cell.
void GaleTriangulation::sortInternalByTuple() {
  if (internalByTuple_)
    return;
  Timer timer;
  parallelFor(getNumberOfSegments(), [&](SimplexId s) {
    std::vector<std::pair<std::array<SimplexId, 4>, SimplexId>> local;
    for (SimplexId k = internalOffsets_[s]; k < internalOffsets_[s + 1]; ++k)
      local.emplace_back(sortedNewCell(internalCells_[k]), internalCells_[k]);
    std::sort(local.begin(), local.end());
    for (std::size_t k = 0; k < local.size(); ++k)
      internalCells_.set(internalOffsets_[s] + k, local[k].second);
  });
  internalByTuple_ = true;
  initialization_.simplexListSeconds += timer.seconds();
}

namespace {

// A thread's scratch for distinctRows (reused: no allocation per segment once warm).
struct RowScratch {
  std::vector<std::array<SimplexId, 4>> touching;
  std::vector<SimplexId> start, at;
  std::vector<std::uint64_t> values;
  StampTable table;
};
thread_local RowScratch tRows;

// The distinct values per vertex row (local vertex a + row of a segment [a, b)) that
// candidates(t, a, b, emit) emits for each of its touching cells' sorted tuples t
// (gatherTouching). Counting only (Write = false)
// returns their number; otherwise each row's values, ascending, go to write(k, row,
// value), k their rank in the segment. Run twice (count, then fill in place), it builds
// the edge and triangle lists without holding them all in temporaries.
void gatherTouching(const GaleTriangulation& mesh, SimplexId s, RowScratch& x) {
  x.touching.clear();
  for (SimplexId k = mesh.internalCellBegin(s); k < mesh.internalCellBegin(s + 1); ++k)
    x.touching.push_back(mesh.sortedNewCell(mesh.internalCell(k)));
  for (SimplexId k = mesh.externalCellBegin(s); k < mesh.externalCellBegin(s + 1); ++k)
    x.touching.push_back(mesh.sortedNewCell(mesh.externalCell(k)));
}

template <bool Write, typename Candidates, typename Writer>
SimplexId distinctRows(RowScratch& x, SimplexId a, SimplexId b, Candidates candidates,
                       Writer write) {
  const SimplexId rows = b - a;
  x.start.assign(std::size_t(rows) + 1, 0);
  for (const auto& t : x.touching)
    candidates(t, a, b, [&](SimplexId row, std::uint64_t) { ++x.start[row + 1]; });
  for (SimplexId r = 0; r < rows; ++r)
    x.start[r + 1] += x.start[r];
  x.values.resize(std::size_t(x.start[rows]));
  x.at.assign(x.start.begin(), x.start.end() - 1);
  for (const auto& t : x.touching)
    candidates(t, a, b, [&](SimplexId row, std::uint64_t v) {
      x.values[std::size_t(x.at[row]++)] = v;
    });
  SimplexId k = 0;
  for (SimplexId r = 0; r < rows; ++r) {
    const auto first = x.values.begin() + x.start[r],
               last = x.values.begin() + x.start[r + 1];
    x.table.reset(std::size_t(last - first));
    for (auto it = first; it != last; ++it)
      x.table.add(*it);
    const std::size_t distinct = x.table.distinct();
    if constexpr (Write) {
      for (std::size_t i = 0; i < distinct; ++i)
        first[std::ptrdiff_t(i)] = x.table.key(i);
      std::sort(first, first + std::ptrdiff_t(distinct));
      for (std::size_t i = 0; i < distinct; ++i)
        write(k + SimplexId(i), r, first[std::ptrdiff_t(i)]);
    }
    k += SimplexId(distinct);
  }
  return k;
}

} // namespace

// Edges / triangles of each segment (lowest vertex in it) from the cells touching it,
// sorted by vertex tuple: an edge's id is its rank in that order, the same for the whole
// life of the object.
// first[v]: the first simplex of `simplices` (arity ids each, sorted by their tuples per
// segment) whose lowest vertex is v or above, first[n] their number: the simplices of
// lowest vertex v are [first[v], first[v + 1]), so a search looks at a handful only.
void GaleTriangulation::indexByLowestVertex(const IdArray& simplices, int arity,
                                            const std::vector<SimplexId>& offsets,
                                            IdArray& first) const {
  const SimplexId n = numberOfVertices_;
  first.allocate(std::size_t(n) + 1, offsets.back(), false);
  parallelFor(getNumberOfSegments(), [&](SimplexId s) {
    SimplexId k = offsets[s];
    for (SimplexId v = segmentStart_[s]; v < segmentStart_[s + 1]; ++v) {
      while (k < offsets[s + 1] && simplices[std::size_t(k) * arity] < v)
        ++k;
      first.set(std::size_t(v), k);
    }
  });
  first.set(std::size_t(n), offsets.back());
}

void GaleTriangulation::buildTrianglesWide() {
  const SimplexId segments = getNumberOfSegments();
  std::vector<std::vector<std::array<SimplexId, 3>>> perSegment(segments);
  // one sort of each segment's tuples
  parallelFor(segments, [&](SimplexId s) {
    auto& local = perSegment[s];
    const SimplexId a = segmentStart_[s], b = segmentStart_[s + 1];
    std::vector<std::array<SimplexId, 4>> touching;
    auto visit = [&](SimplexId c) { touching.push_back(sortedNewCell(c)); };
    for (SimplexId k = internalOffsets_[s]; k < internalOffsets_[s + 1]; ++k)
      visit(internalCells_[k]);
    for (SimplexId k = externalOffsets_[s]; k < externalOffsets_[s + 1]; ++k)
      visit(externalCells_[k]);
    for (const auto& t : touching)
      for (const auto& face : kTetFaces)
        if (t[face[0]] >= a && t[face[0]] < b)
          local.push_back({t[face[0]], t[face[1]], t[face[2]]});
    std::sort(local.begin(), local.end());
    local.erase(std::unique(local.begin(), local.end()), local.end());
  });
  triangleOffsets_.assign(segments + 1, 0);
  for (SimplexId s = 0; s < segments; ++s)
    triangleOffsets_[s + 1] = triangleOffsets_[s] + SimplexId(perSegment[s].size());
  triangleNew_.allocate(std::size_t(triangleOffsets_.back()) * 3, numberOfVertices_ - 1,
                        false);
  parallelFor(segments, [&](SimplexId s) {
    for (std::size_t k = 0; k < perSegment[s].size(); ++k)
      for (int i = 0; i < 3; ++i)
        triangleNew_.set(3 * (triangleOffsets_[s] + k) + i, perSegment[s][k][i]);
    std::vector<std::array<SimplexId, 3>>().swap(perSegment[s]);
  });
}

void GaleTriangulation::buildEdgesAndTriangles(bool edges, bool triangles) {
  edges = edges && !edgesBuilt_;
  triangles = triangles && dimension_ == 3 && !trianglesBuilt_;
  if (!edges && !triangles)
    return;
  Timer timer;
  // Once the lists are there: each vertex's first edge / triangle as the lowest vertex.
  const auto index = [&] {
    if (edges) {
      indexByLowestVertex(edgeNew_, 2, edgeOffsets_, edgeFirst_);
      edgesBuilt_ = true;
    }
    if (triangles) {
      indexByLowestVertex(triangleNew_, 3, triangleOffsets_, triangleFirst_);
      trianglesBuilt_ = true;
    }
    initialization_.simplexListSeconds += timer.seconds();
  };
  // The GPU producer sorts every cell's edges and facets at once (the same lists).
  if (producer_ && numberOfVertices_ <= (SimplexId(1) << 31) &&
      producer_->buildSimplexLists(edges, triangles, edgeNew_, edgeOffsets_, triangleNew_,
                                   triangleOffsets_)) {
    index();
    return;
  }
  ensureHostCellLists(); // the CPU's lists are built from the cells per segment
  if (triangles && numberOfVertices_ > (SimplexId(1) << 31)) {
    buildTrianglesWide(); // the packed keys below need ids under 2^31
    indexByLowestVertex(triangleNew_, 3, triangleOffsets_, triangleFirst_);
    trianglesBuilt_ = true;
    triangles = false;
  }
  const SimplexId segments = getNumberOfSegments();
  const int dim = dimension_;
  // Per segment, the edges' upper vertices bucketed by their lower (local) vertex, each
  // short row deduplicated and sorted: the (low, high) order without sorting pairs.
  auto edgeCandidates = [dim](const std::array<SimplexId, 4>& t, SimplexId a, SimplexId b,
                              auto&& emit) {
    for (int i = 0; i < dim; ++i) {
      if (t[i] < a || t[i] >= b)
        continue;
      for (int j = i + 1; j <= dim; ++j)
        emit(t[i] - a, std::uint64_t(t[j]));
    }
  };
  // Triangles: the two upper vertices packed in one key, by the lowest (local) vertex.
  auto triangleCandidates = [](const std::array<SimplexId, 4>& t, SimplexId a,
                               SimplexId b, auto&& emit) {
    for (const auto& face : kTetFaces)
      if (t[face[0]] >= a && t[face[0]] < b)
        emit(t[face[0]] - a,
             (std::uint64_t(t[face[1]]) << 32) | std::uint64_t(t[face[2]]));
  };
  const auto none = [](SimplexId, SimplexId, std::uint64_t) {};
  // Counted, then written in place: both lists from one read of each segment's cells.
  if (edges)
    edgeOffsets_.assign(segments + 1, 0);
  if (triangles)
    triangleOffsets_.assign(segments + 1, 0);
  parallelFor(segments, [&](SimplexId s) {
    RowScratch& x = tRows;
    gatherTouching(*this, s, x);
    const SimplexId a = segmentStart_[s], b = segmentStart_[s + 1];
    if (edges)
      edgeOffsets_[s + 1] = distinctRows<false>(x, a, b, edgeCandidates, none);
    if (triangles)
      triangleOffsets_[s + 1] = distinctRows<false>(x, a, b, triangleCandidates, none);
  });
  for (SimplexId s = 0; s < segments; ++s) {
    if (edges)
      edgeOffsets_[s + 1] += edgeOffsets_[s];
    if (triangles)
      triangleOffsets_[s + 1] += triangleOffsets_[s];
  }
  if (edges)
    edgeNew_.allocate(std::size_t(edgeOffsets_.back()) * 2, numberOfVertices_ - 1, false);
  if (triangles)
    triangleNew_.allocate(std::size_t(triangleOffsets_.back()) * 3, numberOfVertices_ - 1,
                          false);
  parallelFor(segments, [&](SimplexId s) {
    RowScratch& x = tRows;
    gatherTouching(*this, s, x);
    const SimplexId a = segmentStart_[s], b = segmentStart_[s + 1];
    if (edges) {
      const SimplexId first = edgeOffsets_[s];
      distinctRows<true>(
          x, a, b, edgeCandidates, [&](SimplexId k, SimplexId row, std::uint64_t value) {
            edgeNew_.set(std::size_t(2 * (first + k)), a + row);
            edgeNew_.set(std::size_t(2 * (first + k) + 1), SimplexId(value));
          });
    }
    if (triangles) {
      const SimplexId first = triangleOffsets_[s];
      distinctRows<true>(x, a, b, triangleCandidates,
                         [&](SimplexId k, SimplexId row, std::uint64_t key) {
                           const std::size_t at = std::size_t(3 * (first + k));
                           triangleNew_.set(at, a + row);
                           triangleNew_.set(at + 1, SimplexId(key >> 32));
                           triangleNew_.set(at + 2, SimplexId(key & 0xffffffffu));
                         });
    }
  });
  index();
}

// The host's cell lists are fetched (or built) for the relations the producer computes
// on the CPU (consumers may too): the GPU producer's VV, star, VE and vertex flags never
// need them.
void GaleTriangulation::startServer(gale::ServedRelation relation) {
  if (!producer_->servesOnDevice(relation))
    ensureHostCellLists();
  if (!servers_[relation])
    servers_[relation] =
        std::make_unique<gale::RelationServer>(*this, relation, producer_);
}

void GaleTriangulation::precondition(Relations r) {
  r = expandRelations(r, dimension_);
  const bool is3D = dimension_ == 3;
  const bool needEdges = (r & (EV | VE | EF | ET | FE | TE | BoundaryEdges)) != 0;
  const bool needTriangles =
      is3D && (r & (FV | VF | EF | FE | FT | TF | BoundaryTriangles)) != 0;
  const Relations flags = r & (BoundaryEdges | BoundaryTriangles);
  const bool newFlags = (flags & ~boundaryFlagsWanted_.load()) != 0;
  const bool needTupleOrder = is3D && (r & TT) != 0 && !internalByTuple_;
  if ((needEdges && !edgesBuilt_) || (needTriangles && !trianglesBuilt_) || newFlags ||
      needTupleOrder) {
    // Segments cached so far were computed without these lists or flags (boundary
    // flags of edges, ...): finish the batches in flight, drop the caches.
    for (auto& server : servers_) {
      if (server)
        server->quiesceAndFlush();
    }
    ++generation_;
    boundaryFlagsWanted_.fetch_or(flags);
    buildEdgesAndTriangles(needEdges, needTriangles);
    if (needTupleOrder) {
      ensureHostCellLists();
      sortInternalByTuple();
    }
  }
  prepared_ |= r;
  using namespace gale;
  if (r & VV)
    startServer(kVertexNeighbors);
  if (r & VE)
    startServer(kVertexEdges);
  if (r & VF)
    startServer(is3D ? kVertexTriangles : kVertexStar);
  if (r & VertexStar)
    startServer(kVertexStar);
  if (r & EF)
    startServer(kEdgeTriangles);
  if (r & ET && is3D)
    startServer(kEdgeTets);
  if (r & FT && is3D)
    startServer(kTriangleTets);
  if (r & TT && is3D)
    startServer(kTetNeighbors);
  if (r & Boundary)
    startServer(kBoundaryFlags);
}

// ---- the consumer side ----------------------------------------------------------------

const gale::SegmentRelation* GaleTriangulation::acquire(gale::ServedRelation relation,
                                                        SimplexId segment) const {
  const auto& server = servers_[relation];
  if (!server)
    failPrecondition("GaleTriangulation::acquire",
                     std::string("relation ") + gale::servedRelationName(relation) +
                         " was not preconditioned");
  if (const gale::SegmentRelation* kept = server->kept(segment))
    return kept; // no lock, no handle (never evicted while consumers run)
  for (Handle& h : tHandles) {
    if (h.segment == segment && h.relation == relation && h.instance == instance_ &&
        h.generation == generation_)
      return h.data.get();
  }
  Handle& h = tHandles[tNextHandle];
  tNextHandle = (tNextHandle + 1) % kHandles;
  h.data = server->get(segment);
  h.instance = instance_;
  h.generation = generation_;
  h.relation = relation;
  h.segment = segment;
  return h.data.get();
}

const gale::SegmentRelation*
GaleTriangulation::vertexRelation(gale::ServedRelation relation, SimplexId v,
                                  SimplexId& row) const {
  const SimplexId n = newOfOld_[v];
  gale::PinnedView* view = gale::tPinnedView;
  if (view != nullptr && view->owner == this && n >= view->begin && n < view->end) {
    row = n - view->begin;
    gale::SegmentPointer& pinned = view->data[relation];
    if (!pinned) {
      const auto& server = servers_[relation];
      if (!server)
        failPrecondition("GaleTriangulation::acquire",
                         std::string("relation ") + gale::servedRelationName(relation) +
                             " was not preconditioned");
      pinned = server->get(view->segment);
    }
    return pinned.get();
  }
  const SimplexId s = segmentOfNew_[n];
  row = n - segmentStart_[s];
  return acquire(relation, s);
}

void GaleTriangulation::advanceFront(SimplexId segment) const {
  // Release: what the consumers' thread did before the loop (precondition's lists) is
  // visible to a leader that computes ahead of this front.
  front_.store(segment, std::memory_order_release);
  for (const auto& server : servers_)
    if (server)
      server->nudge(segment);
}

gale::SegmentPointer GaleTriangulation::cachedSegment(gale::ServedRelation relation,
                                                      SimplexId segment) const {
  return servers_[relation] ? servers_[relation]->peek(segment) : nullptr;
}

bool GaleTriangulation::siblingWanted(gale::ServedRelation relation,
                                      SimplexId segment) const {
  return servers_[relation] && servers_[relation]->wants(segment);
}

void GaleTriangulation::offerSibling(gale::ServedRelation relation, SimplexId segment,
                                     const gale::SegmentPointer& data) const {
  if (servers_[relation])
    servers_[relation]->offer(segment, data);
}

void GaleTriangulation::endPass() const {
  front_.store(-1, std::memory_order_release);
  pass_.fetch_add(1, std::memory_order_release);
}

gale::SegmentScope::SegmentScope(const GaleTriangulation& mesh, SimplexId segment) {
  view_.owner = &mesh;
  view_.segment = segment;
  view_.begin = mesh.segmentStart_[segment];
  view_.end = mesh.segmentStart_[segment + 1];
  view_.previous = tPinnedView;
  tPinnedView = &view_;
  mesh.advanceFront(segment);
}

gale::SegmentScope::~SegmentScope() {
  tPinnedView = view_.previous;
}

std::pair<SimplexId, SimplexId> GaleTriangulation::edgeRow(SimplexId e) const {
  const SimplexId s = segmentOfNew_[edgeNew_[2 * e]];
  return {s, e - edgeOffsets_[s]};
}
std::pair<SimplexId, SimplexId> GaleTriangulation::triangleRow(SimplexId f) const {
  const SimplexId s = segmentOfNew_[triangleNew_[3 * f]];
  return {s, f - triangleOffsets_[s]};
}

SimplexId GaleTriangulation::getNumberOfEdges() const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EV | VE | EF | ET | FE | TE | BoundaryEdges);
  return edgesBuilt_ ? edgeOffsets_.back() : 0;
}
SimplexId GaleTriangulation::getNumberOfTriangles() const {
  if (dimension_ == 2)
    return numberOfCells_;
  TOPOGPU_REQUIRE_RELATION(prepared_,
                           FV | VF | EF | FE | FT | TF | TT | BoundaryTriangles);
  return trianglesBuilt_ ? triangleOffsets_.back() : 0;
}

SimplexId GaleTriangulation::getCellVertex(SimplexId c, int i) const {
  TOPOGPU_REQUIRE_INDEX(c, numberOfCells_, "cell");
  TOPOGPU_REQUIRE_INDEX(i, dimension_ + 1, "vertex index");
  return cellVertexOld(c, i);
}
SimplexId GaleTriangulation::getEdgeVertex(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EV);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  TOPOGPU_REQUIRE_INDEX(i, 2, "vertex index");
  const SimplexId a = oldOfNew_[edgeNew_[2 * e]], b = oldOfNew_[edgeNew_[2 * e + 1]];
  return (i == 0) == (a < b) ? a : b; // ascending input ids, as the explicit backend
}
// Callers read a triangle's vertices or edges a few in a row (lower stars, V-paths):
// the last triangle asked on this thread is kept, its vertices in ascending input ids
// with their new ids beside them.
const GaleTriangulation::TriangleView&
GaleTriangulation::triangleView(SimplexId f) const {
  thread_local TriangleView last;
  if (last.f != f || last.instance != instance_ || last.generation != generation_) {
    SimplexId n[3] = {triangleNew_[3 * f], triangleNew_[3 * f + 1],
                      triangleNew_[3 * f + 2]};
    SimplexId o[3] = {oldOfNew_[n[0]], oldOfNew_[n[1]], oldOfNew_[n[2]]};
    // three compare-exchanges on the input ids, the new ids carried along
    auto order = [&](int i, int j) {
      if (o[j] < o[i]) {
        std::swap(o[i], o[j]);
        std::swap(n[i], n[j]);
      }
    };
    order(0, 1);
    order(1, 2);
    order(0, 1);
    for (int k = 0; k < 3; ++k) {
      last.oldIds[k] = o[k];
      last.newIds[k] = n[k];
    }
    last.f = f;
    last.instance = instance_;
    last.generation = generation_;
  }
  return last;
}

SimplexId GaleTriangulation::getTriangleVertex(SimplexId f, int i) const {
  if (dimension_ == 2)
    return getCellVertex(f, i);
  TOPOGPU_REQUIRE_RELATION(prepared_, FV);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  TOPOGPU_REQUIRE_INDEX(i, 3, "vertex index");
  return triangleView(f).oldIds[i];
}
SimplexId GaleTriangulation::getTetVertex(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  return getCellVertex(t, i);
}
SimplexId GaleTriangulation::getTriangleEdge(SimplexId f, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, FE);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  TOPOGPU_REQUIRE_INDEX(i, 3, "edge index");
  // Edge i omits vertex 2 - i of the triangle's vertex order (2D: the cell's own; 3D:
  // ascending input ids), looked up in new ids.
  static constexpr int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  SimplexId x, y;
  if (dimension_ == 2) {
    x = cellVertexNew(f, pairs[i][0]);
    y = cellVertexNew(f, pairs[i][1]);
  } else {
    const TriangleView& view = triangleView(f);
    x = view.newIds[pairs[i][0]];
    y = view.newIds[pairs[i][1]];
  }
  return findEdgeNew(std::min(x, y), std::max(x, y));
}
SimplexId GaleTriangulation::getTetEdge(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TE);
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  TOPOGPU_REQUIRE_INDEX(i, 6, "edge index");
  const SimplexId x = cellVertexNew(t, kTetEdgePairs[i][0]),
                  y = cellVertexNew(t, kTetEdgePairs[i][1]);
  return findEdgeNew(std::min(x, y), std::max(x, y));
}
SimplexId GaleTriangulation::getTetTriangle(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TF);
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  TOPOGPU_REQUIRE_INDEX(i, 4, "triangle index");
  SimplexId f[3] = {cellVertexNew(t, kTetFaces[i][0]), cellVertexNew(t, kTetFaces[i][1]),
                    cellVertexNew(t, kTetFaces[i][2])};
  sortSmall(f, 3);
  return findTriangleNew(f[0], f[1], f[2]);
}

#define TOPOGPU_GALE_ROWS(relation, rowOf)                                               \
  const auto [segment_, row_] = rowOf;                                                   \
  const gale::SegmentRelation* data_ = acquire(gale::relation, segment_)
#define TOPOGPU_GALE_VERTEX_ROWS(relation, v)                                            \
  SimplexId row_ = 0;                                                                    \
  const gale::SegmentRelation* data_ = vertexRelation(gale::relation, v, row_)

int GaleTriangulation::getVertexTriangleNumber(SimplexId v) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, VF);
  TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
  if (dimension_ == 2)
    return getVertexStarNumber(v);
  TOPOGPU_GALE_VERTEX_ROWS(kVertexTriangles, v);
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getVertexTriangle(SimplexId v, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getVertexTriangleNumber(v), "triangle index");
  if (dimension_ == 2)
    return getVertexStar(v, i);
  TOPOGPU_GALE_VERTEX_ROWS(kVertexTriangles, v);
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getVertexTetNumber(SimplexId v) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, VT);
  TOPOGPU_REQUIRE_INDEX(v, numberOfVertices_, "vertex");
  return dimension_ == 3 ? getVertexStarNumber(v) : 0;
}
SimplexId GaleTriangulation::getVertexTet(SimplexId v, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getVertexTetNumber(v), "tetrahedron index");
  return getVertexStar(v, i);
}
int GaleTriangulation::getEdgeTriangleNumber(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, EF);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  TOPOGPU_GALE_ROWS(kEdgeTriangles, edgeRow(e));
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getEdgeTriangle(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getEdgeTriangleNumber(e), "triangle index");
  TOPOGPU_GALE_ROWS(kEdgeTriangles, edgeRow(e));
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getEdgeTetNumber(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, ET);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  if (dimension_ != 3)
    return 0;
  TOPOGPU_GALE_ROWS(kEdgeTets, edgeRow(e));
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getEdgeTet(SimplexId e, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getEdgeTetNumber(e), "tetrahedron index");
  TOPOGPU_GALE_ROWS(kEdgeTets, edgeRow(e));
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getTriangleTetNumber(SimplexId f) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, FT);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  if (dimension_ != 3)
    return 0;
  TOPOGPU_GALE_ROWS(kTriangleTets, triangleRow(f));
  return data_->rows.size(row_);
}
SimplexId GaleTriangulation::getTriangleTet(SimplexId f, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getTriangleTetNumber(f), "tetrahedron index");
  TOPOGPU_GALE_ROWS(kTriangleTets, triangleRow(f));
  return data_->rows.at(row_, i);
}
int GaleTriangulation::getTetNeighborNumber(SimplexId t) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, TT);
  TOPOGPU_REQUIRE_INDEX(t, getNumberOfTets(), "tetrahedron");
  if (dimension_ != 3)
    return 0;
  const SimplexId k = findInternalCell(t);
  const SimplexId s = segmentOfNew_[sortedNewCell(t)[0]];
  return acquire(gale::kTetNeighbors, s)->rows.size(k - internalOffsets_[s]);
}
SimplexId GaleTriangulation::getTetNeighbor(SimplexId t, int i) const {
  TOPOGPU_REQUIRE_INDEX(i, getTetNeighborNumber(t), "neighbour index");
  const SimplexId k = findInternalCell(t);
  const SimplexId s = segmentOfNew_[sortedNewCell(t)[0]];
  return acquire(gale::kTetNeighbors, s)->rows.at(k - internalOffsets_[s], i);
}

bool GaleTriangulation::isEdgeOnBoundary(SimplexId e) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryEdges);
  TOPOGPU_REQUIRE_INDEX(e, getNumberOfEdges(), "edge");
  TOPOGPU_GALE_ROWS(kBoundaryFlags, edgeRow(e));
  return data_->edgeFlags[row_] != 0;
}
bool GaleTriangulation::isTriangleOnBoundary(SimplexId f) const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryTriangles);
  TOPOGPU_REQUIRE_INDEX(f, getNumberOfTriangles(), "triangle");
  if (dimension_ != 3)
    return false;
  TOPOGPU_GALE_ROWS(kBoundaryFlags, triangleRow(f));
  return data_->triangleFlags[row_] != 0;
}

#undef TOPOGPU_GALE_ROWS
#undef TOPOGPU_GALE_VERTEX_ROWS

SimplexId GaleTriangulation::findEdgeNew(SimplexId lo, SimplexId hi) const {
  // the edges of lowest vertex lo, ascending by their upper vertex
  SimplexId first = edgeFirst_[std::size_t(lo)], last = edgeFirst_[std::size_t(lo) + 1];
  const SimplexId end = last;
  if (last - first <= kLinearSearch) { // as findTriangleNew
    for (; first < last; ++first)
      if (edgeNew_[2 * first + 1] == hi)
        return first;
    return -1;
  }
  while (first < last) {
    const SimplexId mid = first + (last - first) / 2;
    if (edgeNew_[2 * mid + 1] < hi)
      first = mid + 1;
    else
      last = mid;
  }
  return first < end && edgeNew_[2 * first + 1] == hi ? first : -1;
}

SimplexId GaleTriangulation::findTriangleNew(SimplexId a, SimplexId b,
                                             SimplexId c) const {
  if (dimension_ == 2) {
    // the triangles are the cells: the internal list of a's segment, sorted by tuple
    const SimplexId s = segmentOfNew_[a];
    const std::array<SimplexId, 4> key{a, b, c, std::numeric_limits<SimplexId>::max()};
    SimplexId first = internalOffsets_[s], last = internalOffsets_[s + 1];
    const SimplexId end = last;
    while (first < last) {
      const SimplexId mid = first + (last - first) / 2;
      if (sortedNewCell(internalCells_[mid]) < key)
        first = mid + 1;
      else
        last = mid;
    }
    return first < end && sortedNewCell(internalCells_[first]) == key
               ? internalCells_[first]
               : -1;
  }
  // the triangles of lowest vertex a, ascending by their two upper vertices
  SimplexId first = triangleFirst_[std::size_t(a)],
            last = triangleFirst_[std::size_t(a) + 1];
  const SimplexId end = last;
  if (last - first <= kLinearSearch) {
    // a short row (the usual handful): scanned in order, its cache lines streamed in,
    // instead of a binary search's mispredicted probes
    for (; first < last; ++first)
      if (triangleNew_[3 * first + 1] == b && triangleNew_[3 * first + 2] == c)
        return first;
    return -1;
  }
  while (first < last) {
    const SimplexId mid = first + (last - first) / 2;
    const SimplexId y = triangleNew_[3 * mid + 1];
    if (y < b || (y == b && triangleNew_[3 * mid + 2] < c))
      first = mid + 1;
    else
      last = mid;
  }
  return first < end && triangleNew_[3 * first + 1] == b &&
                 triangleNew_[3 * first + 2] == c
             ? first
             : -1;
}

SimplexId GaleTriangulation::findInternalCell(SimplexId c) const {
  const auto key = sortedNewCell(c);
  const SimplexId s = segmentOfNew_[key[0]];
  SimplexId first = internalOffsets_[s], last = internalOffsets_[s + 1];
  while (first < last) {
    const SimplexId mid = first + (last - first) / 2;
    if (sortedNewCell(internalCells_[mid]) < key)
      first = mid + 1;
    else
      last = mid;
  }
  return first; // cells are unique, so this is c's position
}

SimplexId GaleTriangulation::findEdge(SimplexId a, SimplexId b) const {
#ifndef NDEBUG
  if (!edgesBuilt_)
    failPrecondition(__func__, "the edges were not built (precondition EV first)");
#endif
  if (a < 0 || b < 0 || a >= numberOfVertices_ || b >= numberOfVertices_ || a == b)
    return -1;
  const SimplexId x = newOfOld_[a], y = newOfOld_[b];
  return findEdgeNew(std::min(x, y), std::max(x, y));
}

SimplexId GaleTriangulation::findTriangle(SimplexId a, SimplexId b, SimplexId c) const {
#ifndef NDEBUG
  if (dimension_ == 3 && !trianglesBuilt_)
    failPrecondition(__func__, "the triangles were not built (precondition FV first)");
#endif
  for (const SimplexId v : {a, b, c}) {
    if (v < 0 || v >= numberOfVertices_)
      return -1;
  }
  SimplexId t[3] = {newOfOld_[a], newOfOld_[b], newOfOld_[c]};
  sortSmall(t, 3);
  if (t[0] == t[1] || t[1] == t[2])
    return -1;
  return findTriangleNew(t[0], t[1], t[2]);
}

SimplexId GaleTriangulation::getNumberOfNonManifoldFacets() const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryVertices);
  SimplexId known = nonManifoldFacets_.load();
  if (known >= 0)
    return known;
  // The boundary flags' segments count them (kept, never evicted): a segment-order
  // pass finds those a loop already computed and computes the others.
  const auto& server = servers_[gale::kBoundaryFlags];
  known = tbb::parallel_reduce(
      Range(0, getNumberOfSegments()), SimplexId(0),
      [&](const Range& r, SimplexId n) {
        for (SimplexId s = r.begin(); s < r.end(); ++s)
          n += server ? server->get(s)->nonManifoldFacets
                      : gale::computeSegmentCpu(*this, gale::kBoundaryFlags, s)
                            ->nonManifoldFacets;
        return n;
      },
      [](SimplexId x, SimplexId y) { return x + y; });
  nonManifoldFacets_.store(known);
  return known;
}

gale::Statistics GaleTriangulation::statistics() const {
  gale::Statistics s;
  s.initialization = initialization_;
  s.validationSeconds = validationSeconds_;
  s.initializationSeconds = initialization_.total();
  for (const auto& server : servers_) {
    if (server)
      server->addStatistics(s);
  }
  const std::array<double, 3> stages = producer_->stageSeconds();
  s.prepareSeconds = stages[0];
  s.kernelSeconds = stages[1];
  s.integrateSeconds = stages[2];
  return s;
}

std::string GaleTriangulation::producerName() const {
  return producer_->name();
}

std::vector<Warning> GaleTriangulation::warnings() const {
  std::vector<Warning> all = warnings_;
  for (Warning& w : producer_->warnings())
    all.push_back(std::move(w));
  return all;
}

std::size_t GaleTriangulation::memoryBytes() const {
  auto ids = [](const IdArray& a) { return a.size() * (a.isWide() ? 8 : 4); };
  std::size_t bytes =
      ids(cells_) + ids(newOfOld_) + ids(oldOfNew_) + ids(segmentOfNew_) +
      ids(internalCells_) + ids(externalCells_) + ids(edgeNew_) + ids(triangleNew_) +
      ids(edgeFirst_) + ids(triangleFirst_) +
      sizeof(SimplexId) *
          (segmentStart_.size() + internalOffsets_.size() + externalOffsets_.size() +
           edgeOffsets_.size() + triangleOffsets_.size());
  for (const auto& server : servers_) {
    if (server)
      bytes += server->cacheBytes();
  }
  return bytes;
}

// ---- the CPU producer ----------------------------------------------------------------

namespace gale {

namespace {

bool isVertexRelation(ServedRelation relation) {
  return relation == kVertexNeighbors || relation == kVertexEdges ||
         relation == kVertexStar || relation == kBoundaryFlags;
}

// The cells touching one segment, read once per segment: their sorted new-id tuples and
// ids (the internal cells first, then the external ones, each list in the mesh's
// order), and per vertex of the segment its star as indices into them, ascending.
struct SegmentStars {
  std::vector<std::array<SimplexId, 4>> tuples;
  std::vector<SimplexId> cells;
  std::size_t internal = 0;
  std::vector<std::int32_t> rowStart, rowItems, fill;

  void load(const GaleTriangulation& mesh, SimplexId s) {
    const int dim = mesh.getDimension();
    const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
    tuples.clear();
    cells.clear();
    auto visit = [&](SimplexId c) {
      tuples.push_back(mesh.sortedNewCell(c));
      cells.push_back(c);
    };
    for (SimplexId k = mesh.internalCellBegin(s); k < mesh.internalCellBegin(s + 1); ++k)
      visit(mesh.internalCell(k));
    internal = cells.size();
    for (SimplexId k = mesh.externalCellBegin(s); k < mesh.externalCellBegin(s + 1); ++k)
      visit(mesh.externalCell(k));
    // the stars by counting: a vertex's cells stay in touching order
    rowStart.assign(std::size_t(rows) + 1, 0);
    for (const auto& t : tuples)
      for (int i = 0; i <= dim; ++i)
        if (t[i] >= a && t[i] < a + rows)
          ++rowStart[std::size_t(t[i] - a) + 1];
    for (SimplexId r = 0; r < rows; ++r)
      rowStart[r + 1] += rowStart[r];
    rowItems.resize(std::size_t(rowStart[rows]));
    fill.assign(rowStart.begin(), rowStart.end() - 1);
    for (std::size_t k = 0; k < tuples.size(); ++k)
      for (int i = 0; i <= dim; ++i)
        if (tuples[k][i] >= a && tuples[k][i] < a + rows)
          rowItems[std::size_t(fill[tuples[k][i] - a]++)] = std::int32_t(k);
  }
};

// One thread's scratch, reused by every segment it computes (no allocation per segment
// once warm). A computation never waits nor re-enters, so nothing else uses it
// meanwhile.
struct Scratch {
  SimplexId segment = -1; // what `stars` holds (of `mesh`), -1: nothing valid
  const GaleTriangulation* mesh = nullptr;
  SegmentStars stars;
  StampTable table;
  std::vector<std::pair<SimplexId, SimplexId>> neighbors; // (input id, new id)
  std::vector<SimplexId> offsets;
};
thread_local Scratch tScratch;

const SegmentStars& starsOf(const GaleTriangulation& mesh, SimplexId s, Scratch& x) {
  if (x.segment != s || x.mesh != &mesh) {
    x.segment = -1;
    x.stars.load(mesh, s);
    x.segment = s;
    x.mesh = &mesh;
  }
  return x.stars;
}

// VV (input ids, ascending per row) and VE parallel to it, either may be null.
void computeNeighbors(const GaleTriangulation& mesh, SimplexId s, Scratch& x,
                      SegmentRelation* vv, SegmentRelation* ve) {
  const int dim = mesh.getDimension();
  const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
  const SegmentStars& st = starsOf(mesh, s, x);
  x.neighbors.clear();
  x.offsets.assign(std::size_t(rows) + 1, 0);
  for (SimplexId r = 0; r < rows; ++r) {
    const SimplexId self = a + r;
    x.table.reset(std::size_t(dim) * std::size_t(st.rowStart[r + 1] - st.rowStart[r]));
    for (std::int32_t k = st.rowStart[r]; k < st.rowStart[r + 1]; ++k) {
      const auto& t = st.tuples[std::size_t(st.rowItems[std::size_t(k)])];
      for (int j = 0; j <= dim; ++j)
        if (t[j] != self)
          x.table.add(std::uint64_t(t[j]));
    }
    const std::size_t base = x.neighbors.size();
    for (std::size_t i = 0; i < x.table.distinct(); ++i) {
      const SimplexId n = SimplexId(x.table.key(i));
      x.neighbors.emplace_back(mesh.oldId(n), n);
    }
    std::sort(x.neighbors.begin() + std::ptrdiff_t(base), x.neighbors.end());
    x.offsets[std::size_t(r) + 1] = SimplexId(x.neighbors.size());
  }
  const SimplexId total = SimplexId(x.neighbors.size());
  for (SegmentRelation* out : {vv, ve}) {
    if (out == nullptr)
      continue;
    out->rows.offsets.allocate(std::size_t(rows) + 1, total, false);
    for (SimplexId r = 0; r <= rows; ++r)
      out->rows.offsets.set(std::size_t(r), x.offsets[std::size_t(r)]);
  }
  if (vv != nullptr) {
    vv->rows.data.allocate(std::size_t(total), mesh.getNumberOfVertices() - 1, false);
    for (SimplexId k = 0; k < total; ++k)
      vv->rows.data.set(std::size_t(k), x.neighbors[std::size_t(k)].first);
  }
  if (ve != nullptr) {
    // edge i of v joins v to neighbour i
    ve->rows.data.allocate(std::size_t(total), mesh.edgeBegin(mesh.getNumberOfSegments()),
                           false);
    for (SimplexId r = 0; r < rows; ++r) {
      const SimplexId self = a + r;
      for (SimplexId k = x.offsets[std::size_t(r)]; k < x.offsets[std::size_t(r) + 1];
           ++k) {
        const SimplexId other = x.neighbors[std::size_t(k)].second;
        ve->rows.data.set(std::size_t(k),
                          mesh.findEdgeNew(std::min(self, other), std::max(self, other)));
      }
    }
  }
}

// The star (VT in 3D, VF in 2D), cell ids ascending per row: the internal and external
// runs of a row are each ascending when the internal cells are ordered by id, so the
// row is their merge; otherwise it is sorted.
void computeStar(const GaleTriangulation& mesh, SimplexId s, Scratch& x,
                 SegmentRelation& out) {
  const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
  const SegmentStars& st = starsOf(mesh, s, x);
  const std::size_t total = st.rowItems.size();
  out.rows.offsets.allocate(std::size_t(rows) + 1, SimplexId(total), false);
  out.rows.data.allocate(total, mesh.getNumberOfCells() - 1, false);
  const bool byId = mesh.internalCellsById();
  auto& row = x.offsets; // reused as the row's cells
  for (SimplexId r = 0; r <= rows; ++r)
    out.rows.offsets.set(std::size_t(r), st.rowStart[std::size_t(r)]);
  for (SimplexId r = 0; r < rows; ++r) {
    const std::int32_t first = st.rowStart[r], last = st.rowStart[r + 1];
    std::int32_t split = first;
    while (split < last && std::size_t(st.rowItems[std::size_t(split)]) < st.internal)
      ++split;
    row.clear();
    if (byId) {
      std::int32_t i = first, j = split;
      while (i < split && j < last) {
        const SimplexId ci = st.cells[std::size_t(st.rowItems[std::size_t(i)])],
                        cj = st.cells[std::size_t(st.rowItems[std::size_t(j)])];
        if (ci < cj) {
          row.push_back(ci);
          ++i;
        } else {
          row.push_back(cj);
          ++j;
        }
      }
      for (; i < split; ++i)
        row.push_back(st.cells[std::size_t(st.rowItems[std::size_t(i)])]);
      for (; j < last; ++j)
        row.push_back(st.cells[std::size_t(st.rowItems[std::size_t(j)])]);
    } else {
      for (std::int32_t k = first; k < last; ++k)
        row.push_back(st.cells[std::size_t(st.rowItems[std::size_t(k)])]);
      std::sort(row.begin(), row.end());
    }
    for (std::size_t k = 0; k < row.size(); ++k)
      out.rows.data.set(std::size_t(first) + k, row[k]);
  }
}

// Vertex flags only (ids below 2^32): per vertex, the facets of its star holding it,
// keyed by their other vertices packed in one integer (a pair of 32-bit ids in 3D) and
// counted; a facet met once is on the boundary.
void computeVertexFlags(const GaleTriangulation& mesh, SimplexId s, Scratch& x,
                        SegmentRelation& out) {
  const int dim = mesh.getDimension();
  const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
  const SegmentStars& st = starsOf(mesh, s, x);
  out.vertexFlags.assign(std::size_t(rows), 0);
  for (SimplexId r = 0; r < rows; ++r) {
    const SimplexId self = a + r;
    x.table.reset(std::size_t(dim) * std::size_t(st.rowStart[r + 1] - st.rowStart[r]));
    for (std::int32_t k = st.rowStart[r]; k < st.rowStart[r + 1]; ++k) {
      const auto& t = st.tuples[std::size_t(st.rowItems[std::size_t(k)])];
      SimplexId other[3] = {0, 0, 0};
      int m = 0;
      for (int j = 0; j <= dim; ++j)
        if (t[j] != self)
          other[m++] = t[j];
      // the facet omitting other[k]: the remaining others, ascending
      for (int o = 0; o < dim; ++o) {
        std::uint64_t key = 0;
        for (int j = 0; j < dim; ++j)
          if (j != o)
            key = (key << 32) | std::uint64_t(other[j]);
        x.table.add(key);
      }
    }
    for (std::size_t i = 0; i < x.table.distinct(); ++i) {
      const int count = x.table.count(i);
      const std::uint64_t key = x.table.key(i);
      if (count == 1)
        out.vertexFlags[std::size_t(r)] = 1;
      // counted once, by the facet's lowest vertex (the others are above it; in 3D the
      // key's high half is the lower other vertex)
      else if (count > 2 && (dim == 2 ? key : key >> 32) > std::uint64_t(self))
        ++out.nonManifoldFacets;
    }
  }
}

SegmentPointer computeSegment(const GaleTriangulation& mesh, ServedRelation relation,
                              SimplexId s);

} // namespace

SegmentPointer computeSegmentCpu(const GaleTriangulation& mesh, ServedRelation relation,
                                 SimplexId s) {
  mesh.ensureHostCellLists();
  tScratch.segment = -1; // the stars are loaded afresh once per computation
  return computeSegment(mesh, relation, s);
}

// A consumer's miss of a vertex relation: VV and VE are computed in one pass when
// consumers compute the other too and nobody has it (offered to its cache).
SegmentPointer computeSegmentForConsumerCpu(const GaleTriangulation& mesh,
                                            ServedRelation relation, SimplexId s) {
  mesh.ensureHostCellLists();
  tScratch.segment = -1;
  if (relation != kVertexNeighbors && relation != kVertexEdges)
    return computeSegment(mesh, relation, s);
  const ServedRelation other =
      relation == kVertexNeighbors ? kVertexEdges : kVertexNeighbors;
  if (relation == kVertexEdges) {
    // VV already there (a GPU producer's, ahead of the loop): VE from its rows, without
    // reading the cells
    if (const SegmentPointer vv = mesh.cachedSegment(kVertexNeighbors, s)) {
      auto ve = std::make_shared<SegmentRelation>();
      ve->rows.offsets = vv->rows.offsets;
      ve->rows.data.allocate(vv->rows.data.size(),
                             mesh.edgeBegin(mesh.getNumberOfSegments()), false);
      const SimplexId a = mesh.segmentStart(s), rows = mesh.segmentStart(s + 1) - a;
      for (SimplexId r = 0; r < rows; ++r)
        for (SimplexId k = vv->rows.offsets[r]; k < vv->rows.offsets[r + 1]; ++k) {
          const SimplexId self = a + r, n = mesh.newId(vv->rows.data[k]);
          ve->rows.data.set(std::size_t(k),
                            mesh.findEdgeNew(std::min(self, n), std::max(self, n)));
        }
      return ve;
    }
  }
  const bool both = mesh.siblingWanted(other, s);
  auto requested = std::make_shared<SegmentRelation>();
  auto sibling = both ? std::make_shared<SegmentRelation>() : nullptr;
  SegmentRelation* vv = relation == kVertexNeighbors ? requested.get() : sibling.get();
  SegmentRelation* ve = relation == kVertexEdges ? requested.get() : sibling.get();
  computeNeighbors(mesh, s, tScratch, vv, ve);
  if (both)
    mesh.offerSibling(other, s, sibling);
  return requested;
}

// Then (the requested relation published) the segment's other vertex relations that
// consumers compute and nobody has yet, from the touching cells this thread has just
// read (still in its scratch): the cells are read once.
void computeSiblingsCpu(const GaleTriangulation& mesh, ServedRelation relation,
                        SimplexId s) {
  if (!isVertexRelation(relation))
    return;
  mesh.ensureHostCellLists();
  const bool vv = relation != kVertexNeighbors && mesh.siblingWanted(kVertexNeighbors, s),
             ve = relation != kVertexEdges && mesh.siblingWanted(kVertexEdges, s);
  if (vv || ve) {
    auto pvv = vv ? std::make_shared<SegmentRelation>() : nullptr;
    auto pve = ve ? std::make_shared<SegmentRelation>() : nullptr;
    computeNeighbors(mesh, s, tScratch, pvv.get(), pve.get());
    if (vv)
      mesh.offerSibling(kVertexNeighbors, s, pvv);
    if (ve)
      mesh.offerSibling(kVertexEdges, s, pve);
  }
  for (const ServedRelation r : {kVertexStar, kBoundaryFlags})
    if (r != relation && mesh.siblingWanted(r, s))
      mesh.offerSibling(r, s, computeSegment(mesh, r, s));
}

namespace {

SegmentPointer computeSegment(const GaleTriangulation& mesh, ServedRelation relation,
                              SimplexId s) {
  const int dim = mesh.getDimension();
  const SimplexId a = mesh.segmentStart(s), b = mesh.segmentStart(s + 1);
  const SimplexId vertexRows = b - a;
  auto inSegment = [&](SimplexId n) { return n >= a && n < b; };
  auto forTouching = [&](SimplexId segment, auto&& visit) {
    for (SimplexId k = mesh.internalCellBegin(segment);
         k < mesh.internalCellBegin(segment + 1); ++k)
      visit(mesh.internalCell(k));
    for (SimplexId k = mesh.externalCellBegin(segment);
         k < mesh.externalCellBegin(segment + 1); ++k)
      visit(mesh.externalCell(k));
  };
  const SimplexId vertices = mesh.getNumberOfVertices(), cells = mesh.getNumberOfCells();
  auto out = std::make_shared<SegmentRelation>();
  std::vector<std::pair<SimplexId, SimplexId>> pairs;
  switch (relation) {
  case kVertexNeighbors:
    computeNeighbors(mesh, s, tScratch, out.get(), nullptr);
    break;
  case kVertexEdges:
    computeNeighbors(mesh, s, tScratch, nullptr, out.get());
    break;
  case kVertexStar:
    computeStar(mesh, s, tScratch, *out);
    break;
  case kVertexTriangles: // 3D
    forTouching(s, [&](SimplexId c) {
      const auto t = mesh.sortedNewCell(c);
      for (const auto& face : kTetFaces) {
        const SimplexId f = mesh.findTriangleNew(t[face[0]], t[face[1]], t[face[2]]);
        for (const int i : face)
          if (inSegment(t[i]))
            pairs.emplace_back(t[i] - a, f);
      }
    });
    out->rows =
        rowsFromPairs(pairs, vertexRows, mesh.triangleBegin(mesh.getNumberOfSegments()));
    break;
  case kEdgeTriangles:
  case kEdgeTets: {
    const SimplexId e0 = mesh.edgeBegin(s), edgeRows = mesh.edgeBegin(s + 1) - e0;
    forTouching(s, [&](SimplexId c) {
      const auto t = mesh.sortedNewCell(c);
      for (int i = 0; i <= dim; ++i) {
        if (!inSegment(t[i]))
          continue;
        for (int j = i + 1; j <= dim; ++j) {
          const SimplexId row = mesh.findEdgeNew(t[i], t[j]) - e0;
          if (relation == kEdgeTets || dim == 2) {
            pairs.emplace_back(row, c);
            continue;
          }
          for (const auto& face : kTetFaces) {
            const bool hasI = face[0] == i || face[1] == i || face[2] == i;
            const bool hasJ = face[0] == j || face[1] == j || face[2] == j;
            if (hasI && hasJ)
              pairs.emplace_back(
                  row, mesh.findTriangleNew(t[face[0]], t[face[1]], t[face[2]]));
          }
        }
      }
    });
    const SimplexId maxValue = relation == kEdgeTets || dim == 2
                                   ? cells - 1
                                   : mesh.triangleBegin(mesh.getNumberOfSegments());
    out->rows = rowsFromPairs(pairs, edgeRows, maxValue);
    break;
  }
  case kTriangleTets: {
    const SimplexId f0 = mesh.triangleBegin(s), rows = mesh.triangleBegin(s + 1) - f0;
    forTouching(s, [&](SimplexId c) {
      const auto t = mesh.sortedNewCell(c);
      for (const auto& face : kTetFaces)
        if (inSegment(t[face[0]]))
          pairs.emplace_back(
              mesh.findTriangleNew(t[face[0]], t[face[1]], t[face[2]]) - f0, c);
    });
    out->rows = rowsFromPairs(pairs, rows, cells - 1);
    break;
  }
  case kTetNeighbors: {
    // A neighbour across face f holds f's lowest vertex, so it touches that vertex's
    // segment: the faces of those segments' touching cells, sorted, answer every face.
    const SimplexId first = mesh.internalCellBegin(s);
    const SimplexId rows = mesh.internalCellBegin(s + 1) - first;
    std::vector<SimplexId> around;
    for (SimplexId k = 0; k < rows; ++k) {
      const auto t = mesh.sortedNewCell(mesh.internalCell(first + k));
      for (int i = 0; i < 2; ++i) // a face's lowest vertex is t[0] or t[1]
        around.push_back(mesh.segmentOfNewVertex(t[i]));
    }
    std::sort(around.begin(), around.end());
    around.erase(std::unique(around.begin(), around.end()), around.end());
    using Face = std::pair<std::array<SimplexId, 3>, SimplexId>;
    std::vector<Face> faces;
    for (const SimplexId other : around) {
      const SimplexId lo = mesh.segmentStart(other), hi = mesh.segmentStart(other + 1);
      forTouching(other, [&](SimplexId c) {
        const auto t = mesh.sortedNewCell(c);
        for (const auto& face : kTetFaces)
          if (t[face[0]] >= lo && t[face[0]] < hi)
            faces.push_back({{t[face[0]], t[face[1]], t[face[2]]}, c});
      });
    }
    std::sort(faces.begin(), faces.end());
    for (SimplexId k = 0; k < rows; ++k) {
      const SimplexId c = mesh.internalCell(first + k);
      const auto t = mesh.sortedNewCell(c);
      for (const auto& face : kTetFaces) {
        const std::array<SimplexId, 3> key{t[face[0]], t[face[1]], t[face[2]]};
        auto it = std::lower_bound(faces.begin(), faces.end(), Face{key, -1});
        for (; it != faces.end() && it->first == key; ++it)
          if (it->second != c)
            pairs.emplace_back(k, it->second);
      }
    }
    out->rows = rowsFromPairs(pairs, rows, cells - 1);
    break;
  }
  case kBoundaryFlags: {
    const Relations wanted = mesh.boundaryFlagsWanted();
    const bool edges = mesh.edgesBuilt() && (wanted & BoundaryEdges) != 0;
    const bool triangles =
        dim == 3 && mesh.trianglesBuilt() && (wanted & BoundaryTriangles) != 0;
    if (!edges && !triangles && vertices <= (SimplexId(1) << 32)) {
      computeVertexFlags(mesh, s, tScratch, *out);
      break;
    }
    // Facets (dim vertices) with a vertex in the segment, counted over the cells
    // touching it: every cell holding such a facet touches the segment, so the counts
    // are exact; a facet in one cell is on the boundary.
    std::vector<std::array<SimplexId, 3>> facets;
    forTouching(s, [&](SimplexId c) {
      const auto t = mesh.sortedNewCell(c);
      for (int omit = 0; omit <= dim; ++omit) {
        std::array<SimplexId, 3> f{0, 0, 0};
        int m = 0;
        bool touches = false;
        for (int i = 0; i <= dim; ++i) {
          if (i == omit)
            continue;
          touches |= inSegment(t[i]);
          f[m++] = t[i];
        }
        if (touches)
          facets.push_back(f);
      }
    });
    std::sort(facets.begin(), facets.end());
    out->vertexFlags.assign(vertexRows, 0);
    const SimplexId e0 = edges ? mesh.edgeBegin(s) : 0;
    if (edges)
      out->edgeFlags.assign(mesh.edgeBegin(s + 1) - e0, 0);
    const SimplexId t0 = triangles ? mesh.triangleBegin(s) : 0;
    if (triangles)
      out->triangleFlags.assign(mesh.triangleBegin(s + 1) - t0, 0);
    for (std::size_t i = 0; i < facets.size();) {
      std::size_t j = i + 1;
      while (j < facets.size() && facets[j] == facets[i])
        ++j;
      if (j - i > 2 && inSegment(facets[i][0]))
        ++out->nonManifoldFacets; // counted by the segment of its lowest vertex
      if (j - i == 1) {
        const auto& f = facets[i];
        for (int p = 0; p < dim; ++p) {
          if (inSegment(f[p]))
            out->vertexFlags[f[p] - a] = 1;
          if (!edges)
            continue;
          for (int q = p + 1; q < dim; ++q)
            if (inSegment(f[p]))
              out->edgeFlags[mesh.findEdgeNew(f[p], f[q]) - e0] = 1;
        }
        if (triangles && inSegment(f[0]))
          out->triangleFlags[mesh.findTriangleNew(f[0], f[1], f[2]) - t0] = 1;
      }
      i = j;
    }
    break;
  }
  default:
    throw Error("unknown GALE relation " + std::to_string(int(relation)));
  }
  return out;
}

class CpuProducer : public SegmentProducer {
public:
  std::string name() const override { return "cpu"; }
  bool consumersMayCompute(ServedRelation) const override { return true; }
  void computeSiblings(const GaleTriangulation& mesh, ServedRelation relation,
                       SimplexId segment) override {
    try {
      computeSiblingsCpu(mesh, relation, segment);
    } catch (...) {
      // a sibling is only a head start: its own request computes it (and reports)
    }
  }
  void compute(const GaleTriangulation& mesh, ServedRelation relation,
               const std::vector<SimplexId>& segments,
               std::vector<SegmentPointer>& out) override {
    out.assign(segments.size(), nullptr);
    mesh.ensureHostCellLists(); // once, before the batch's tasks read them
    if (segments.size() == 1) { // a consumer's own segment: on its thread
      out[0] = computeSegmentForConsumerCpu(mesh, relation, segments[0]);
      return;
    }
#ifdef __SANITIZE_THREAD__
    // libtbb is not instrumented: under ThreadSanitizer the leader computes its batch
    // itself, so TSan sees every hand-over (TBB's joins it cannot see).
    for (std::size_t k = 0; k < segments.size(); ++k)
      out[k] = computeSegmentCpu(mesh, relation, segments[k]);
    return;
#endif
    // Its own arena: the leader must never pick up a consumer's task (which could wait
    // on this very leader).
    arena_.execute([&] {
      tbb::parallel_for(std::size_t(0), segments.size(), [&](std::size_t k) {
        out[k] = computeSegmentCpu(mesh, relation, segments[k]);
      });
    });
  }

private:
  tbb::task_arena arena_;
};

} // namespace

std::shared_ptr<SegmentProducer> makeCpuProducer() {
  return std::make_shared<CpuProducer>();
}

} // namespace gale

} // namespace topogpu
