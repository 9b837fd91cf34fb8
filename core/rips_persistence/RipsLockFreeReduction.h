// The reduction of the coboundary columns of one dimension, in parallel without locks
// (Morozov and Nigmetov), with Ripser's emergent pairs, the working column truncated to
// a bound when it grows long, and the representative cocycles of the finite bars.
#pragma once

#include "RipsCofacets.h"
#include "RipsColumnAssembly.h"
#include "RipsWorkingColumn.h"

#include "base/Timer.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace topogpu::rips_persistence::detail {

// The engine of the dimensions >= 1 over one graph: the columns (their assembly and
// apparent pairs, RipsColumnAssembly.h) and their reduction, here; the cofacets and the
// apparent pairs lemma come from its base.
template <class Graph> class Engine : public Cofacets<Graph> {
  using Base = Cofacets<Graph>;
  using Base::apparentPivot;
  using Base::binomial_;
  using Base::cofacets;
  using Base::cofacetsWithin;
  using Base::findApparent;
  using Base::graph_;

public:
  Engine(const Graph& graph, const BinomialTable& binomial, float threshold,
         float largestEdge, bool boundEveryColumn, const Monitor& monitor)
      : Base(graph, binomial, threshold), largest_(largestEdge),
        boundEveryColumn_(boundEveryColumn), progress_(monitor) {}

  // Progress and abort within one dimension: its share of the caller's bar.
  void setProgress(Monitor progress) { progress_ = std::move(progress); }

  // Reduces the coboundary columns of dimension `dim` (simplices of dim+1 vertices,
  // given in reverse filtration order); fills the pivots for the next clearing.
  void reduce(int dim, const std::vector<Entry>& columns,
              std::vector<Interval>& intervals, DimensionStats& stats,
              RunReport& report) {
    const int count = dim + 1;
    Timer timer;
    // Apparent pairs: one independent test per column, by blocks between which the
    // calling thread reports progress and checks for an abort.
    std::vector<SimplexId> apparent(columns.size(), -1);
    inBlocks(
        progress_, columns.size(), 0, kAssembleShare,
        [&](std::size_t first, std::size_t last) {
          tbb::parallel_for(
              tbb::blocked_range<std::size_t>(first, last, 256),
              [&](const tbb::blocked_range<std::size_t>& r) {
                Vertices v; // NOLINT: filled before use (no 576-byte clearing per call)
                for (std::size_t c = r.begin(); c != r.end(); ++c) {
                  simplexVertices(binomial_, columns[c].index, count, v.data());
                  apparent[c] = apparentPivot(columns[c], v.data(), count);
                }
              });
        });
    reducedPivots_ = {};
    reducedPivotSet_ = {};
    apparentCount_ = std::size_t(std::count_if(apparent.begin(), apparent.end(),
                                               [](SimplexId t) { return t >= 0; }));
    report.timings.emplace_back("apparent pairs dim " + std::to_string(dim) + " (cpu)",
                                timer.seconds());
    std::vector<Entry> remaining;
    remaining.reserve(columns.size() - apparentCount_);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (apparent[c] < 0)
        remaining.push_back(columns[c]);
    }
    apparent = {};
    reduceRemaining(dim, remaining, intervals, stats, report);
  }

  // The reduction of the columns assemble() found (dimension >= 2).
  void reduceAssembled(int dim, const std::vector<Entry>& columns,
                       std::size_t apparentCount, std::vector<Interval>& intervals,
                       DimensionStats& stats, RunReport& report) {
    apparentCount_ = apparentCount;
    reducedPivots_ = {};
    reducedPivotSet_ = {};
    reduceRemaining(dim, columns, intervals, stats, report);
  }

  // The reduction of the columns a ColumnBuilder prepared.
  void reducePrepared(int dim, PreparedDimension& prepared,
                      std::vector<Interval>& intervals, DimensionStats& stats,
                      RunReport& report) {
    apparentCount_ = std::size_t(prepared.apparentCount);
    reducedPivots_ = {};
    reducedPivotSet_ = {};
    reduceRemaining(dim, prepared.columns, intervals, stats, report);
  }

  // The pivots of the reduction's pairs, sorted (with the apparent pairs, found again,
  // the pivots a builder clears in the next dimension).
  const std::vector<SimplexId>& reducedPivots() const { return reducedPivots_; }

  // The lock-free reduction of the columns that are not apparent (reverse filtration
  // order); apparent pivots are found again where met (findApparent).
  void reduceRemaining(int dim, const std::vector<Entry>& remaining,
                       std::vector<Interval>& intervals, DimensionStats& stats,
                       RunReport& report) {
    const int count = dim + 1;
    Timer timer;
    stats.apparentPairs = SimplexId(apparentCount_);

    // The remaining columns, reduced in parallel without locks (Morozov and Nigmetov,
    // "Towards lockfree persistent homology"): a column publishes an immutable snapshot
    // (cochain, pivot) and then claims its pivot in a table by compare-and-swap. Finding
    // the pivot owned by a column to the left, it adds that column's snapshot (any
    // state of a column to the left is a valid addition); owned by a column to the
    // right, it takes the pivot over and goes on reducing that column. The pivots at
    // the end are those of the serial reduction.
    const std::size_t m = remaining.size();
    std::size_t capacity = 16;
    while (capacity < 2 * m + 16)
      capacity *= 2;
    PivotTable table(capacity);
    std::vector<std::atomic<const Snapshot*>> state(m);
    for (auto& st : state)
      st.store(nullptr, std::memory_order_relaxed);
    tbb::enumerable_thread_specific<std::vector<std::unique_ptr<Snapshot>>> arenas;
    // One working column per thread, its buffers kept from column to column.
    tbb::enumerable_thread_specific<Work> works;
    // The threads take the columns in order, a few at a time, from one counter: left to
    // right (the pivots of the columns to the left are mostly settled, so takeovers stay
    // rare) with no barrier where all would wait for one long column. The abort check
    // stays on the calling thread (a worker like the others).
    constexpr std::size_t kBatch = 8;
    // The caller reports progress and checks for an abort about 256 times over the
    // columns it takes (its share of the bar's steps), at least every 4096 of them.
    const std::size_t checkEvery =
        std::clamp<std::size_t>(m / 256, kBatch, std::size_t(1) << 12);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    const auto caller = std::this_thread::get_id();
    progress_.checkAbort();
    const int workers = std::max(1, tbb::this_task_arena::max_concurrency());
    tbb::parallel_for(0, workers, [&](int) {
      auto& arena = arenas.local();
      Work& work = works.local();
      const bool onCaller = std::this_thread::get_id() == caller;
      std::size_t sinceCheck = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        const std::size_t first = next.fetch_add(kBatch, std::memory_order_relaxed);
        if (first >= m)
          break;
        const std::size_t last = std::min(m, first + kBatch);
        for (std::size_t i = first; i < last; ++i) {
          reduceLockFree(i, remaining, count, table, state, arena, work);
          // A rare long column's buffers are not kept by every thread.
          if (work.column.capacity() > kKeptColumn)
            work.column.release();
        }
        sinceCheck += last - first;
        if (onCaller && sinceCheck >= checkEvery) {
          sinceCheck = 0;
          try {
            progress_.checkAbort();
            progress_.report(kAssembleShare + (1 - kAssembleShare) *
                                                  double(std::min(first, m)) / double(m));
          } catch (...) {
            stop.store(true, std::memory_order_relaxed);
            throw;
          }
        }
      }
    });
    progress_.checkAbort();
    SimplexId emergent = 0, reduced = 0, essential = 0;
    // The finite bars' columns and their places among the intervals (representatives).
    std::vector<std::pair<std::size_t, std::size_t>> bars;
    for (std::size_t i = 0; i < m; ++i) {
      const Snapshot* snap = state[i].load(std::memory_order_acquire);
      const Entry& column = remaining[i];
      if (!snap->hasPivot) {
        intervals.push_back({column.diameter, kInfinity});
        ++essential;
        continue;
      }
      if (table.owner(snap->pivot.index) != SimplexId(i))
        throw std::logic_error(
            "rips: parallel reduction left a column without its pivot");
      ++(snap->emergent ? emergent : reduced);
      reducedPivots_.push_back(snap->pivot.index);
      if (snap->pivot.diameter > column.diameter) {
        bars.emplace_back(i, intervals.size());
        intervals.push_back({column.diameter, snap->pivot.diameter});
      }
    }
    std::sort(reducedPivots_.begin(), reducedPivots_.end());
    reducedPivotSet_.assign(reducedPivots_);
    stats.emergentPairs = emergent;
    stats.essential = essential;
    stats.pairs = stats.apparentPairs + emergent + reduced;
    report.timings.emplace_back("reduction dim " + std::to_string(dim) + " (cpu)",
                                timer.seconds());
    if (representatives_ != nullptr) {
      timer.reset();
      // One thread reduced the columns in order: its cochains are the serial ones.
      std::vector<std::vector<Entry>> cochains;
      if (workers > 1) {
        std::vector<std::size_t> wanted;
        wanted.reserve(bars.size());
        for (const auto& bar : bars)
          wanted.push_back(bar.first);
        cochains = serialCochains(remaining, count, table, state, wanted);
      }
      for (const auto& [i, interval] : bars) {
        representatives_->push_back(representative(
            dim, interval,
            workers > 1 ? cochains[i]
                        : state[i].load(std::memory_order_acquire)->cochain));
      }
      report.timings.emplace_back("cocycles dim " + std::to_string(dim) + " (cpu)",
                                  timer.seconds());
    }
  }

  // Keeps the representative cocycle of every finite bar from now on.
  void keepRepresentatives(std::vector<Representative>* representatives) {
    representatives_ = representatives;
  }

  // The working state of one column: its coboundary entries, its cochain, and its
  // current pivot.
  struct Work {
    enum State { Emergent, Pivot, Zero };
    WorkingColumn column;
    std::vector<Entry> cochain;
    Entry pivot;
    State state = Zero;
    std::size_t compactAt = kCompactMinimum;
    // The column holds the entries of diameter <= bound only (largest_: all of them);
    // the others are enumerated again from the cochain when it runs out of entries.
    float bound = std::numeric_limits<float>::infinity();
    std::size_t additions = 0;
    bool truncated = false; // once per column: an extension costs a whole expansion
    int extensions = 0;
  };
  // Bounded extensions of a truncated column before it takes all its entries.
  static constexpr int kBoundedExtensions = 3;
  // A column with that many additions and entries keeps only its entries up to a bound
  // (a long column's entries of diameter far above its pivot are mostly never read).
  // Parameters::boundEveryColumn (a test knob) bounds every column of a dense input
  // after its first addition, so that small inputs exercise that path.
  static constexpr std::size_t kTruncateAdditions = 32;
  static constexpr std::size_t kTruncateEntries = std::size_t(1) << 15;
  std::size_t truncateAdditions() const {
    return boundEveryColumn_ ? 1 : kTruncateAdditions;
  }
  std::size_t truncateEntries() const { return boundEveryColumn_ ? 0 : kTruncateEntries; }
  static constexpr std::size_t kCompactMinimum = 1 << 22;
  static constexpr std::size_t kKeptColumn = 1 << 16;

  void nextPivot(Work& work, int count) const {
    while (!work.column.pivot(work.pivot)) {
      if (!(work.bound < largest_)) {
        work.state = Work::Zero;
        return;
      }
      // No entry up to the bound is left: the next ones, from the cochain, up to a
      // higher bound, and after a few such extensions all of them (a column that
      // empties, as a zero one does, pays a few more expansions, not many).
      const float lower = work.bound;
      work.bound = work.extensions++ < kBoundedExtensions ? nextBound(lower) : largest_;
      WorkingColumn::cancelEqual(work.cochain);
      work.column.clear();
      for (const Entry& s : work.cochain) {
        Vertices sv{}; // an extension is rare
        simplexVertices(binomial_, s.index, count, sv.data());
        if (work.bound < largest_) {
          cofacetsWithin(sv.data(), count, s.diameter, lower, work.bound,
                         [&](const Entry& e) { work.column.push(e); });
          continue;
        }
        cofacets(sv.data(), count, s.diameter, -1, [&](const Entry& e, SimplexId) {
          if (e.diameter > lower)
            work.column.push(e);
          return true;
        });
      }
    }
    work.state = Work::Pivot;
  }

  // The bound after `from` (the pivot's diameter, or the last bound): a quarter of the
  // way to the largest diameter; all of it when that is close.
  float nextBound(float from) const {
    const float gap = largest_ - from;
    const float bound = from + gap / 4;
    return bound < largest_ && bound > from && gap > largest_ * 1e-3f ? bound : largest_;
  }

  // A column that has grown long keeps only its entries up to a bound from now on.
  void maybeTruncate(Work& work) const {
    if (++work.additions < truncateAdditions() || work.truncated ||
        work.column.size() < truncateEntries() || !graph_.hasNear())
      return;
    work.truncated = true;
    work.extensions = 0;
    work.bound = nextBound(work.pivot.diameter);
    if (work.bound < largest_)
      work.column.dropAbove(work.bound);
  }

  void fullColumn(const Entry& column, int count, Work& work) const {
    Vertices v{}; // rare (an emergent column expanded after all)
    simplexVertices(binomial_, column.index, count, v.data());
    work.column.clear();
    work.bound = largest_;
    work.additions = 0;
    work.truncated = false;
    // Without the pivot (the emergent cofacet, its oldest), as if it had been read.
    cofacets(v.data(), count, column.diameter, -1, [&](const Entry& e, SimplexId) {
      if (e.index != work.pivot.index)
        work.column.push(e);
      return true;
    });
    work.cochain.assign(1, column);
  }

  // A published state of a column: immutable once visible to other threads.
  struct Snapshot {
    std::vector<Entry> cochain;
    Entry pivot;
    bool hasPivot = false;
    bool emergent = false;
  };

  // Pivot (a simplex index) -> owning column (position among the reduced columns), open
  // addressing with atomic keys and values; keys are never removed.
  class PivotTable {
  public:
    explicit PivotTable(std::size_t capacity)
        : keys_(capacity), values_(capacity), mask_(capacity - 1) {
      for (std::size_t h = 0; h < capacity; ++h) {
        keys_[h].store(-1, std::memory_order_relaxed);
        values_[h].store(-1, std::memory_order_relaxed);
      }
    }
    std::atomic<SimplexId>& slot(SimplexId key) {
      std::size_t h = hash(key);
      while (true) {
        SimplexId k = keys_[h].load(std::memory_order_acquire);
        if (k == key)
          return values_[h];
        if (k == -1) {
          if (keys_[h].compare_exchange_strong(k, key, std::memory_order_acq_rel))
            return values_[h];
          if (k == key)
            return values_[h];
        }
        h = (h + 1) & mask_;
      }
    }
    SimplexId owner(SimplexId key) const {
      for (std::size_t h = hash(key);; h = (h + 1) & mask_) {
        const SimplexId k = keys_[h].load(std::memory_order_acquire);
        if (k == key)
          return values_[h].load(std::memory_order_acquire);
        if (k == -1)
          return -1;
      }
    }

  private:
    std::size_t hash(SimplexId key) const {
      return std::size_t((std::uint64_t(key) * 0x9E3779B97F4A7C15ull) >> 17) & mask_;
    }
    std::vector<std::atomic<SimplexId>> keys_, values_;
    std::size_t mask_;
  };

  void publish(std::size_t i, const Work& work, bool emergent,
               std::vector<std::atomic<const Snapshot*>>& state,
               std::vector<std::unique_ptr<Snapshot>>& arena) const {
    auto snap = std::make_unique<Snapshot>();
    snap->cochain = work.cochain;
    WorkingColumn::cancelEqual(snap->cochain); // Z/2: a simplex added twice is not there
    snap->hasPivot = work.state != Work::Zero;
    snap->pivot = work.pivot;
    snap->emergent = emergent;
    state[i].store(snap.get(), std::memory_order_release);
    arena.push_back(std::move(snap));
  }

  // A column's final cochain (its published snapshot, already cancelled) as vertices.
  // A column's final cochain (Z/2-cancelled: sorted by index) as vertices.
  Representative representative(int dim, std::size_t interval,
                                const std::vector<Entry>& cochain) const {
    Representative r;
    r.dimension = dim;
    r.interval = interval;
    r.simplices.resize(cochain.size() * std::size_t(dim + 1));
    for (std::size_t s = 0; s < cochain.size(); ++s)
      simplexVertices(binomial_, cochain[s].index, dim + 1,
                      r.simplices.data() + s * std::size_t(dim + 1));
    return r;
  }

  // Work on a fresh column: its cochain the column alone, no entries, no bound yet.
  void startWork(const Entry& column, Work& work) const {
    work.column.clear();
    work.compactAt = kCompactMinimum;
    work.bound = largest_;
    work.additions = 0;
    work.truncated = false;
    work.cochain.assign(1, column);
  }

  // A column's whole coboundary as its working column (no emergent shortcut).
  void startColumnSerial(const Entry& column, int count, Work& work) const {
    Vertices v{}; // once per column reduced again
    simplexVertices(binomial_, column.index, count, v.data());
    startWork(column, work);
    cofacets(v.data(), count, column.diameter, -1, [&](const Entry& e, SimplexId) {
      work.column.push(e);
      return true;
    });
    nextPivot(work, count);
  }

  // The cochains of the serial left-to-right reduction of the columns `wanted`
  // (positions in `columns`), indexed by position (the others empty). The lock-free
  // reduction's cochains are valid but depend on the timing (a column adds whatever
  // state the owner of its pivot has then); its pivots are the serial ones. So each
  // wanted column is reduced again, serially: for each pivot it meets it adds the
  // serial cochain of the column owning it in the final table: an apparent pair's
  // column, a column whose final cochain is itself (no addition: the serial one too), or
  // one reduced again here first (an explicit stack: the owners are to the left).
  std::vector<std::vector<Entry>>
  serialCochains(const std::vector<Entry>& columns, int count, const PivotTable& table,
                 const std::vector<std::atomic<const Snapshot*>>& state,
                 const std::vector<std::size_t>& wanted) const {
    const std::size_t m = columns.size();
    std::vector<std::vector<Entry>> cochains(m);
    std::vector<char> done(m, 0);
    const auto ownCochain = [&](std::size_t j) {
      const Snapshot* snap = state[j].load(std::memory_order_acquire);
      return snap->cochain.size() == 1 && snap->cochain[0].index == columns[j].index;
    };
    struct Frame {
      std::size_t column;
      std::unique_ptr<Work> work;
    };
    std::vector<Frame> stack;
    const auto open = [&](std::size_t i) {
      stack.push_back({i, std::make_unique<Work>()});
      startColumnSerial(columns[i], count, *stack.back().work);
    };
    std::size_t steps = 0;
    for (const std::size_t target : wanted) {
      if (done[target])
        continue;
      open(target);
      while (!stack.empty()) {
        const std::size_t i = stack.back().column;
        Work& work = *stack.back().work;
        std::size_t first = m; // an owner whose serial cochain is needed first
        while (true) {
          if (++steps % 1024 == 0)
            progress_.checkAbort();
          if (work.state == Work::Zero)
            throw std::logic_error("rips: a reduced column lost its pivot when reduced "
                                   "again");
          const SimplexId owner = table.owner(work.pivot.index);
          if (owner == SimplexId(i)) {
            WorkingColumn::cancelEqual(work.cochain);
            cochains[i] = std::move(work.cochain);
            done[i] = 1;
            break;
          }
          if (owner < 0) {
            // Apparent pivots are never claimed: the pair's column adds.
            PivotRecord record;
            if (!findApparent(work.pivot, count, record))
              throw std::logic_error("rips: a pivot of the reduction has no owner");
            addCochain(&record.column, 1, work.pivot, false, count, work);
          } else {
            const auto j = std::size_t(owner);
            if (j >= i)
              throw std::logic_error("rips: a column met a pivot owned to its right");
            if (ownCochain(j)) {
              addCochain(&columns[j], 1, work.pivot, false, count, work);
            } else if (done[j]) {
              addCochain(cochains[j].data(), cochains[j].size(), work.pivot, false, count,
                         work);
            } else {
              first = j;
              break;
            }
          }
          maybeTruncate(work);
          nextPivot(work, count);
        }
        if (first < m)
          open(first);
        else
          stack.pop_back();
      }
    }
    return cochains;
  }

  // Adds the coboundary of a cochain whose coboundary's oldest entry (after Z/2
  // cancellation) is `pivot`: the entries older than it cancel in pairs, so they are
  // skipped (which keeps the working column's pushes monotone), and so are the copies
  // of the pivot unless withPivot (they cancel the working column's pivot, removed
  // when it was read).
  void addCochain(const Entry* cochain, std::size_t size, const Entry& pivot,
                  bool withPivot, int count, Work& work) const {
    const bool bounded = work.bound < largest_;
    const auto add = [&](const Entry& e) {
      if (before(pivot, e) || (withPivot && e.index == pivot.index))
        work.column.push(e);
    };
    for (std::size_t c = 0; c < size; ++c) {
      const Entry& s = cochain[c];
      work.cochain.push_back(s);
      Vertices sv; // NOLINT: filled before use (no 576-byte clearing per call)
      simplexVertices(binomial_, s.index, count, sv.data());
      if (bounded) {
        cofacetsWithin(sv.data(), count, s.diameter, -kInfinity, work.bound, add);
      } else {
        cofacets(sv.data(), count, s.diameter, -1, [&](const Entry& e, SimplexId) {
          add(e);
          return true;
        });
      }
      // Entries cancel only when they reach the top: a long column would keep every
      // pushed pair. Compact when the column has doubled since the last time.
      if (work.column.size() > work.compactAt) {
        work.column.compact();
        WorkingColumn::cancelEqual(work.cochain);
        work.compactAt = std::max<std::size_t>(kCompactMinimum, 2 * work.column.size());
      }
    }
  }

  // Reduces column i (and the columns whose pivots it takes over) to the end.
  void reduceLockFree(std::size_t i, const std::vector<Entry>& columns, int count,
                      PivotTable& table, std::vector<std::atomic<const Snapshot*>>& state,
                      std::vector<std::unique_ptr<Snapshot>>& arena, Work& work) const {
    startColumnLockFree(columns[i], count, table, work);
    while (true) {
      if (work.state == Work::Zero) {
        publish(i, work, false, state, arena);
        return;
      }
      const bool emergent = work.state == Work::Emergent;
      // An apparent pivot is never claimed (it is tested before each claim): look for
      // an owner first, the cheaper test.
      PivotRecord apparentOwner;
      if (table.owner(work.pivot.index) == -1 &&
          findApparent(work.pivot, count, apparentOwner)) {
        // Apparent pivots belong to columns to the left (lemma: no later column has
        // that cofacet), and apparent columns are never reduced: add it.
        if (emergent)
          fullColumn(columns[i], count, work);
        addCochain(&apparentOwner.column, 1, work.pivot, false, count, work);
        maybeTruncate(work);
        nextPivot(work, count);
        continue;
      }
      std::atomic<SimplexId>& owner = table.slot(work.pivot.index);
      SimplexId j = owner.load(std::memory_order_acquire);
      if (j == -1) {
        publish(i, work, emergent, state, arena);
        if (owner.compare_exchange_strong(j, SimplexId(i), std::memory_order_acq_rel))
          return;
        continue; // someone else claimed it first: look again
      }
      if (j == SimplexId(i))
        return; // cannot happen (a column owns one pivot and stops): kept safe
      if (j < SimplexId(i)) {
        const Snapshot* snap = state[std::size_t(j)].load(std::memory_order_acquire);
        if (snap == nullptr || !snap->hasPivot || snap->pivot.index != work.pivot.index)
          continue; // j is being taken over: the table will name the new owner
        if (emergent)
          fullColumn(columns[i], count, work);
        addCochain(snap->cochain.data(), snap->cochain.size(), work.pivot, false, count,
                   work);
        maybeTruncate(work);
        nextPivot(work, count);
        continue;
      }
      // j is to the right: take its pivot, then go on with column j.
      publish(i, work, emergent, state, arena);
      if (!owner.compare_exchange_strong(j, SimplexId(i), std::memory_order_acq_rel))
        continue;
      i = std::size_t(j);
      const Snapshot* taken = state[i].load(std::memory_order_acquire);
      work.column.clear();
      work.cochain.clear();
      work.compactAt = kCompactMinimum;
      // A long column taken over is expanded again up to a bound only.
      work.additions = 0;
      work.truncated = taken->cochain.size() >= truncateAdditions() && graph_.hasNear();
      work.extensions = 0;
      work.bound = work.truncated ? nextBound(taken->pivot.diameter) : largest_;
      addCochain(taken->cochain.data(), taken->cochain.size(), taken->pivot, true, count,
                 work);
      nextPivot(work, count);
    }
  }

  // The column's own coboundary, or only its oldest cofacet when that has the column's
  // diameter and nobody owns it yet (emergent pair, Bauer: the rest is not needed).
  void startColumnLockFree(const Entry& column, int count, const PivotTable& table,
                           Work& work) const {
    Vertices v; // NOLINT: filled before use (no 576-byte clearing per call)
    simplexVertices(binomial_, column.index, count, v.data());
    startWork(column, work);
    bool sawOldest = false, emergent = false;
    PivotRecord record;
    cofacets(v.data(), count, column.diameter, -1, [&](const Entry& e, SimplexId) {
      if (!sawOldest && e.diameter == column.diameter) {
        sawOldest = true;
        if (table.owner(e.index) == -1 && !findApparent(e, count, record)) {
          emergent = true;
          work.pivot = e;
          return false;
        }
      }
      work.column.push(e);
      return true;
    });
    if (emergent) {
      work.column.clear();
      work.state = Work::Emergent;
      return;
    }
    nextPivot(work, count);
  }

  // Simplices of one dimension more, each made once from its facet without its largest
  // vertex: the columns among them that are neither cleared nor apparent (sorted,
  // reverse filtration order) and the number of apparent pairs.
  // More than columnLimit columns is an Error (the memory budget's share for them).
  SimplexId assemble(int dim, const std::vector<Entry>& simplices,
                     std::vector<Entry>* next, std::vector<Entry>& columns,
                     std::size_t& apparentCount, std::size_t columnLimit) const {
    return assembleColumns(*this, reducedPivotSet_, progress_, dim, simplices, next,
                           columns, apparentCount, columnLimit);
  }

private:
  float largest_; // the largest edge diameter: no cofacet is above it
  const bool boundEveryColumn_;
  Monitor progress_; // this dimension's share of the bar (setProgress)
  std::vector<SimplexId> reducedPivots_; // the pivots of the reduction's pairs, sorted
  IndexSet reducedPivotSet_;             // the same, for the clearing's lookups
  std::size_t apparentCount_ = 0;
  std::vector<Representative>* representatives_ = nullptr;
};

} // namespace topogpu::rips_persistence::detail
