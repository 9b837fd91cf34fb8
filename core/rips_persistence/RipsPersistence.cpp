#include "RipsPersistence.h"

#include "RipsCombinatorics.h"
#include "RipsDistances.h"
#include "RipsEstimate.h"

#include "core/common/BackendSelection.h"
#include "core/common/Fallback.h"
#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "cuda/rips_persistence/RipsDeviceLogic.h"
#include "core/rips_persistence/RipsPersistenceGpu.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

namespace topogpu::rips_persistence {

namespace {

using detail::denseEnclosingRadius;
using detail::sparseEnclosingRadius;
using detail::streamedEnclosingRadius;
using detail::validate;

constexpr float kInfinity = std::numeric_limits<float>::infinity();
constexpr int kMaxVertices = 72; // the overflow check keeps simplices far below this

// A simplex in the filtration: its diameter and combinatorial index (the type the GPU
// backend hands over, RipsPersistence.h).
using Entry = Simplex;

// The filtration order within one dimension: diameter, then the larger combinatorial
// index first (Ripser's tie-break; with it the first equal-diameter cofacet met in
// decreasing index order is the oldest one). Any tie-break gives the same nonzero bars.
inline bool before(const Entry& a, const Entry& b) {
  return a.diameter < b.diameter || (a.diameter == b.diameter && a.index > b.index);
}

using Vertices = std::array<SimplexId, kMaxVertices>;

// The complete graph of a dense matrix: every vertex is a cofacet candidate.
// candidates() calls f(w, j, d): d is w's distance to vertex j of the simplex when the
// graph knows it already (j >= 0), which saves that lookup.
class DenseGraph {
public:
  // Up to kFullBytes the matrix is also kept square: a lookup is then one load without
  // branches, and the candidates w of one vertex v are consecutive (row v).
  static constexpr std::size_t kFullBytes = std::size_t(64) << 20;
  DenseGraph(SimplexId n, const float* lower) : n_(n), lower_(lower) {
    if (std::size_t(n) * std::size_t(n) * sizeof(float) > kFullBytes)
      return;
    full_.assign(std::size_t(n) * std::size_t(n), 0.0f);
    for (SimplexId a = 1; a < n; ++a) {
      for (SimplexId b = 0; b < a; ++b) {
        const float d = lower[a * (a - 1) / 2 + b];
        full_[std::size_t(a * n + b)] = d;
        full_[std::size_t(b * n + a)] = d;
      }
    }
  }
  // Callers pass the candidate first: row b, consecutive over candidates a.
  float distance(SimplexId a, SimplexId b) const {
    if (!full_.empty())
      return full_[std::size_t(b * n_ + a)];
    if (a == b)
      return 0;
    if (a < b)
      std::swap(a, b);
    return lower_[a * (a - 1) / 2 + b];
  }
  // The distances of candidates (asked for in decreasing order) to a simplex's vertices.
  class Rows {
  public:
    Rows(const DenseGraph& graph, const SimplexId* v) : graph_(graph), v_(v) {}
    float operator()(int j, SimplexId c) { return graph_.distance(c, v_[j]); }

  private:
    const DenseGraph& graph_;
    const SimplexId* v_;
  };
  Rows rows(const SimplexId* v, int) const { return Rows(*this, v); }

  // f(w) for the candidate new vertices w > floor, decreasing; f returns false to stop.
  template <class F>
  void candidates(const SimplexId*, int, SimplexId floor, F&& f) const {
    for (SimplexId w = n_ - 1; w > floor; --w) {
      if (!f(w, -1, 0.0f))
        return;
    }
  }

  // Up to kNearBytes, each vertex's others sorted by distance (built on first use): the
  // candidates within a bound of a simplex are a prefix of one of its vertices' lists.
  static constexpr std::size_t kNearBytes = std::size_t(64) << 20;
  bool hasNear() const {
    return std::size_t(n_) * std::size_t(n_) * sizeof(Near) <= kNearBytes;
  }
  // f(w, j, d) for every vertex w (maybe in the simplex) at distance d <= bound of v_j,
  // in no particular order; the others' distances are the caller's to check.
  template <class F>
  void candidatesWithin(const SimplexId* v, int count, float bound, F&& f) const {
    std::call_once(nearBuilt_, [this] { buildNear(); });
    const std::size_t row = std::size_t(n_ - 1);
    const Near* best = nullptr;
    std::size_t size = 0;
    int jbest = 0;
    for (int j = 0; j < count; ++j) {
      const Near* list = near_.data() + std::size_t(v[j]) * row;
      const std::size_t k =
          std::size_t(std::upper_bound(list, list + row, bound,
                                       [](float b, const Near& x) { return b < x.d; }) -
                      list);
      if (best == nullptr || k < size) {
        best = list;
        size = k;
        jbest = j;
      }
    }
    for (std::size_t k = 0; k < size; ++k)
      f(SimplexId(best[k].w), jbest, best[k].d);
  }

private:
  struct Near {
    float d;
    std::uint32_t w;
  };
  void buildNear() const {
    const std::size_t row = std::size_t(n_ - 1);
    near_.resize(std::size_t(n_) * row);
    // Isolated: this thread, inside call_once, must not pick up another column's task
    // while it waits (that one could call call_once again).
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(SimplexId(0), n_, [&](SimplexId v) {
        Near* list = near_.data() + std::size_t(v) * row;
        std::size_t k = 0;
        for (SimplexId w = 0; w < n_; ++w) {
          if (w != v)
            list[k++] = Near{distance(w, v), std::uint32_t(w)};
        }
        std::sort(list, list + row,
                  [](const Near& a, const Near& b) { return a.d < b.d; });
      });
    });
  }

  SimplexId n_;
  const float* lower_;
  std::vector<float> full_;
  mutable std::once_flag nearBuilt_;
  mutable std::vector<Near> near_;
};

// The edges under the threshold as sorted adjacency lists: candidates are the
// neighbours of the simplex's vertex of smallest degree.
class SparseGraph {
public:
  using Neighbor = std::pair<SimplexId, float>;
  explicit SparseGraph(std::vector<std::vector<Neighbor>> adjacency)
      : adjacency_(std::move(adjacency)) {}
  float distance(SimplexId a, SimplexId b) const {
    if (a == b)
      return 0;
    const auto* list = &adjacency_[a];
    if (adjacency_[b].size() < list->size()) {
      list = &adjacency_[b];
      b = a;
    }
    const auto it =
        std::lower_bound(list->begin(), list->end(), b,
                         [](const Neighbor& x, SimplexId key) { return x.first < key; });
    return it != list->end() && it->first == b ? it->second : kInfinity;
  }
  // The distances of candidates (asked for in decreasing order) to a simplex's vertices:
  // one cursor per vertex walks its list down, instead of a binary search per lookup.
  class Rows {
  public:
    Rows(const SparseGraph& graph, const SimplexId* v, int count) {
      for (int j = 0; j < count; ++j) {
        const auto& list = graph.adjacency_[std::size_t(v[j])];
        begin_[j] = list.data();
        end_[j] = list.data() + list.size();
      }
    }
    float operator()(int j, SimplexId c) {
      const Neighbor* b = begin_[j];
      const Neighbor* e = end_[j];
      while (e != b && (e - 1)->first > c)
        --e;
      end_[j] = e;
      return e != b && (e - 1)->first == c ? (e - 1)->second : kInfinity;
    }

  private:
    std::array<const Neighbor*, kMaxVertices> begin_, end_; // NOLINT: first count set
  };
  Rows rows(const SimplexId* v, int count) const { return Rows(*this, v, count); }

  // No lists by distance: a sparse input's long columns are mostly essential classes
  // (its threshold is below the enclosing radius), which a bound would not shorten.
  bool hasNear() const { return false; }
  template <class F> void candidatesWithin(const SimplexId*, int, float, F&&) const {}

  template <class F>
  void candidates(const SimplexId* vertices, int count, SimplexId floor, F&& f) const {
    int jmin = 0;
    for (int j = 1; j < count; ++j) {
      if (adjacency_[vertices[j]].size() < adjacency_[vertices[jmin]].size())
        jmin = j;
    }
    const std::vector<Neighbor>& smallest = adjacency_[vertices[jmin]];
    for (auto it = smallest.rbegin(); it != smallest.rend() && it->first > floor; ++it) {
      if (!f(it->first, jmin, it->second))
        return;
    }
  }

private:
  std::vector<std::vector<Neighbor>> adjacency_;
};

// A set of simplex indices (open addressing): the clearing's membership test, asked for
// every simplex of the next dimension, without the branches of a binary search.
class IndexSet {
public:
  void assign(const std::vector<SimplexId>& keys) {
    std::size_t capacity = 16;
    while (capacity < 2 * keys.size())
      capacity *= 2;
    slots_.assign(capacity, -1);
    mask_ = capacity - 1;
    for (const SimplexId key : keys) {
      std::size_t h = hash(key);
      while (slots_[h] != -1 && slots_[h] != key)
        h = (h + 1) & mask_;
      slots_[h] = key;
    }
  }
  bool contains(SimplexId key) const {
    if (slots_.empty())
      return false;
    for (std::size_t h = hash(key);; h = (h + 1) & mask_) {
      if (slots_[h] == key)
        return true;
      if (slots_[h] == -1)
        return false;
    }
  }

private:
  std::size_t hash(SimplexId key) const {
    return std::size_t((std::uint64_t(key) * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
  }
  std::vector<SimplexId> slots_;
  std::size_t mask_ = 0;
};

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

// The column of a pair (the pivot is the key it is stored under).
struct PivotRecord {
  Entry column;
};

// The assembly's refusal, out of line: kept out of the hot loop it is thrown from, so
// that the apparent-pair tests there stay inlined.
[[noreturn, gnu::cold, gnu::noinline]] void columnsOutgrowBudget(int dim,
                                                                 std::size_t limit) {
  throw Error("the columns of dimension " + std::to_string(dim) +
              " outgrow the memory budget: more than " + std::to_string(limit) +
              " columns (" + byteSize(double(limit) * 2 * sizeof(Entry)) +
              ") beside the estimated simplices; lower the dimension or the threshold, "
              "or raise the memory budget");
}

template <class Graph> class Engine {
public:
  Engine(const Graph& graph, const BinomialTable& binomial, float threshold,
         float largestEdge, bool boundEveryColumn, const Monitor& monitor)
      : graph_(graph), binomial_(binomial), threshold_(threshold), largest_(largestEdge),
        boundEveryColumn_(boundEveryColumn), progress_(monitor) {}

  // Progress and abort within one dimension: its share of the caller's bar. The
  // columns (assembly, apparent pairs) take the first kAssembleShare of it, the
  // reduction the rest.
  void setProgress(Monitor progress) { progress_ = std::move(progress); }
  static constexpr double kAssembleShare = 0.3;

  // f(first, last) over [0, size) by at most 16 blocks of at least 65536 items;
  // between them the calling thread checks for an abort and reports from + (to - from)
  // * done. Each block is a parallel loop of its own: smaller ones would leave the
  // cores idle at every barrier (a small dimension runs as one block).
  template <class F>
  void inBlocks(std::size_t size, double from, double to, F&& f) const {
    const std::size_t block = std::max<std::size_t>(std::size_t(1) << 16, size / 16 + 1);
    for (std::size_t first = 0; first < size; first += block) {
      progress_.checkAbort();
      const std::size_t last = std::min(size, first + block);
      f(first, last);
      progress_.report(from + (to - from) * double(last) / double(size));
    }
    progress_.checkAbort();
  }

  // The cofacets of diameter in (lower, bound] (the simplex's diameter is <= bound), in
  // no particular order; f(Entry). Only the candidates within the bound of one vertex
  // are visited: far fewer than all when the bound is well below the threshold.
  template <class F>
  void cofacetsWithin(const SimplexId* v, int count, float diameter, float lower,
                      float bound, F&& f) const {
    // The index of v + w, w between v[p-1] and v[p]: the vertices above w move up one
    // place in the combinatorial number system.
    std::array<SimplexId, kMaxVertices + 1> above{}, below{};
    for (int j = 0; j < count; ++j)
      above[std::size_t(j) + 1] = above[std::size_t(j)] + binomial_(v[j], count + 1 - j);
    below[std::size_t(count)] = 0;
    for (int j = count; j-- > 0;)
      below[std::size_t(j)] = below[std::size_t(j) + 1] + binomial_(v[j], count - j);
    graph_.candidatesWithin(v, count, bound, [&](SimplexId w, int known, float dKnown) {
      float d = std::max(diameter, dKnown);
      int p = 0;
      for (int j = 0; j < count; ++j) {
        if (v[j] == w)
          return;
        if (v[j] > w)
          p = j + 1;
        if (j != known) {
          d = std::max(d, graph_.distance(w, v[j]));
          if (d > bound)
            return;
        }
      }
      if (d > lower)
        f(Entry{d, above[std::size_t(p)] + binomial_(w, count + 1 - p) +
                       below[std::size_t(p)]});
    });
  }

  // Cofacets (diameter <= threshold) whose new vertex exceeds `floor`, in decreasing
  // index order; f(Entry, new vertex) returns false to stop. The index is updated
  // incrementally: the vertices above the new one move up one place in the combinatorial
  // number system.
  template <class F>
  void cofacets(const SimplexId* v, int count, float diameter, SimplexId floor,
                F&& f) const {
    SimplexId above = 0;
    SimplexId below = simplexIndex(binomial_, v, count);
    int p = 0;
    auto rows = graph_.rows(v, count);
    graph_.candidates(v, count, floor, [&](SimplexId w, int known, float dKnown) {
      while (p < count && v[p] > w) {
        below -= binomial_(v[p], count - p);
        above += binomial_(v[p], count - p + 1);
        ++p;
      }
      if (p < count && v[p] == w)
        return true;
      if (known >= 0 && dKnown > threshold_)
        return true;
      float d = diameter;
      for (int j = 0; j < count; ++j) {
        d = std::max(d, j == known ? dKnown : rows(j, w));
        // A missing edge of a sparse graph (infinite) is no simplex, whatever the
        // threshold (an infinite one included).
        if (d > threshold_ || d == kInfinity)
          return true;
      }
      return f(Entry{d, above + binomial_(w, count - p + 1) + below}, w);
    });
  }

  // Lemma 7 of the Ripser++ paper: t, the oldest cofacet of s, has s's diameter, and no
  // facet of t with that diameter is younger than s (a smaller index, in our order).
  // v: s's vertices, decreasing. t = s + w is the first cofacet in decreasing index
  // order whose new edges are all <= s's diameter. t - v_j is older-indexed than s
  // (smaller index) exactly when v_j > w (colexicographic order), so only those facets
  // are tested, and each has t's diameter iff one of its edges does.
  SimplexId apparentPivot(const Entry& s, const SimplexId* v, int count) const {
    SimplexId w = -1;
    float dw[kMaxVertices];
    auto rows = graph_.rows(v, count);
    graph_.candidates(v, count, -1, [&](SimplexId c, int known, float dKnown) {
      if (known >= 0 && !(dKnown <= s.diameter))
        return true;
      int j = 0;
      for (; j < count; ++j) {
        if (v[j] == c)
          return true;
        const float d = j == known ? dKnown : rows(j, c);
        // A missing edge of a sparse graph is infinite: no simplex.
        if (!(d <= s.diameter))
          return true;
        dw[j] = d;
      }
      w = c;
      return false;
    });
    if (w < 0)
      return -1;
    return apparentCofacet(graph_, binomial_, v, count, s.diameter, w, dw);
  }

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
    inBlocks(columns.size(), 0, kAssembleShare, [&](std::size_t first, std::size_t last) {
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

  // The apparent pair with pivot t (count + 1 vertices tv, decreasing), found without a
  // store: s is t's youngest facet of t's diameter (the smallest index: the largest
  // vertex dropped first), and t must be s's oldest cofacet.
  bool apparentFacet(const Entry& t, const SimplexId* tv, int count, Entry& s) const {
    Vertices sv; // NOLINT: filled before use (no 576-byte clearing per call)
    const SimplexId index =
        youngestFacet(graph_, binomial_, tv, count + 1, t.diameter, sv.data());
    if (index < 0)
      return false;
    s = Entry{t.diameter, index};
    return apparentPivot(s, sv.data(), count) == t.index;
  }

  // The apparent pair whose pivot is t (a cofacet of a column with count vertices),
  // found again from t's vertices (no store of the apparent pairs: Ripser's way).
  bool findApparent(const Entry& t, int count, PivotRecord& record) const {
    Vertices tv; // NOLINT: filled before use (no 576-byte clearing per call)
    simplexVertices(binomial_, t.index, count + 1, tv.data());
    return apparentFacet(t, tv.data(), count, record.column);
  }

  // True when a (dim+1)-simplex (count + 1 vertices ev) is the pivot of a pair of the
  // last reduction (clearing).
  bool isPivot(const Entry& e, const SimplexId* ev, int count) const {
    if (reducedPivotSet_.contains(e.index))
      return true;
    Entry s;
    return apparentFacet(e, ev, count, s);
  }

  // Simplices of one dimension more, each made once from its facet without its largest
  // vertex: the columns among them that are neither cleared nor apparent (sorted,
  // reverse filtration order) and the number of apparent pairs.
  // More than columnLimit columns is an Error (the memory budget's share for them).
  SimplexId assemble(int dim, const std::vector<Entry>& simplices,
                     std::vector<Entry>* next, std::vector<Entry>& columns,
                     std::size_t& apparentCount, std::size_t columnLimit) const {
    const int count = dim + 1;
    // Each thread adds its columns to the total by chunks (small ones for a small
    // limit, so that it is never passed by much).
    const std::size_t chunk = std::clamp<std::size_t>(columnLimit / 64, 1, 4096);
    std::atomic<std::size_t> columnTotal{0};
    struct Local {
      std::vector<Entry> next, columns;
      SimplexId generated = 0;
      std::size_t apparentCount = 0;
    };
    tbb::enumerable_thread_specific<Local> locals;
    inBlocks(simplices.size(), 0, kAssembleShare, [&](std::size_t from, std::size_t to) {
      tbb::parallel_for(
          tbb::blocked_range<std::size_t>(from, to, 1024),
          [&](const tbb::blocked_range<std::size_t>& r) {
            Local& local = locals.local();
            Vertices v; // NOLINT: filled before use (no 576-byte clearing per call)
            for (std::size_t s = r.begin(); s != r.end(); ++s) {
              // v[1..count]: the facet; v[0]: the new (largest) vertex.
              simplexVertices(binomial_, simplices[s].index, count, v.data() + 1);
              cofacets(v.data() + 1, count, simplices[s].diameter, v[1],
                       [&](const Entry& e, SimplexId w) {
                         ++local.generated;
                         if (next != nullptr)
                           local.next.push_back(e);
                         v[0] = w;
                         // A simplex is in one persistence pair at most: an apparent
                         // column is no pivot of the last dimension, so the (cheaper,
                         // far more frequent) apparent test comes first.
                         if (apparentPivot(e, v.data(), count + 1) >= 0) {
                           ++local.apparentCount;
                         } else if (!isPivot(e, v.data(), count)) {
                           local.columns.push_back(e);
                           if (local.columns.size() % chunk == 0 &&
                               columnTotal.fetch_add(chunk) + chunk > columnLimit)
                             columnsOutgrowBudget(dim + 1, columnLimit);
                         }
                         return true;
                       });
            }
          });
    });
    columns.clear();
    SimplexId generated = 0;
    std::size_t columnCount = 0, nextCount = 0;
    apparentCount = 0;
    for (auto& local : locals) {
      columnCount += local.columns.size();
      apparentCount += local.apparentCount;
      nextCount += local.next.size();
    }
    if (locals.size() == 1) {
      // One thread: its arrays are the results (no second copy at the peak).
      Local& local = *locals.begin();
      columns.swap(local.columns);
      if (next != nullptr)
        next->swap(local.next);
      generated = local.generated;
      local = Local{};
      tbb::parallel_sort(columns.begin(), columns.end(),
                         [](const Entry& a, const Entry& b) { return before(b, a); });
      return generated;
    }
    columns.reserve(columnCount);
    if (next != nullptr)
      next->reserve(nextCount);
    for (auto& local : locals) {
      generated += local.generated;
      columns.insert(columns.end(), local.columns.begin(), local.columns.end());
      if (next != nullptr)
        next->insert(next->end(), local.next.begin(), local.next.end());
      local = Local{};
    }
    tbb::parallel_sort(columns.begin(), columns.end(),
                       [](const Entry& a, const Entry& b) { return before(b, a); });
    return generated;
  }

private:
  const Graph& graph_;
  const BinomialTable& binomial_;
  float threshold_;
  float largest_; // the largest edge diameter: no cofacet is above it
  const bool boundEveryColumn_;
  Monitor progress_; // this dimension's share of the bar (setProgress)
  std::vector<SimplexId> reducedPivots_; // the pivots of the reduction's pairs, sorted
  IndexSet reducedPivotSet_;             // the same, for the clearing's lookups
  std::size_t apparentCount_ = 0;
  std::vector<Representative>* representatives_ = nullptr;
};

// Dimension 0: Kruskal over the edges in filtration order. The edges that join two
// components are the deaths (and are cleared from dimension 1); the others, youngest
// first, are the columns of dimension 1.
void dimensionZero(SimplexId n, const BinomialTable& binomial, std::vector<Entry>& edges,
                   std::vector<Interval>& intervals, DimensionStats& stats,
                   std::vector<Entry>& columns, const Monitor& monitor) {
  tbb::parallel_sort(edges.begin(), edges.end(), before);
  monitor.checkAbort();
  monitor.report(0.5);
  UnionFind components(n);
  columns.clear();
  SimplexId merges = 0;
  std::size_t seen = 0;
  for (const Entry& e : edges) {
    if (++seen % (std::size_t(1) << 20) == 0) {
      monitor.checkAbort();
      monitor.report(0.5 + 0.5 * double(seen) / double(edges.size()));
    }
    SimplexId v[2];
    simplexVertices(binomial, e.index, 2, v);
    if (components.unite(v[0], v[1])) {
      ++merges;
      if (e.diameter > 0)
        intervals.push_back({0.0f, e.diameter});
    } else {
      columns.push_back(e);
    }
  }
  std::reverse(columns.begin(), columns.end());
  for (SimplexId c = 0; c < n - merges; ++c)
    intervals.push_back({0.0f, kInfinity});
  stats.simplices = n;
  stats.columns = n;
  stats.pairs = merges;
  stats.essential = n - merges;
}

RipsGraph graphView(SimplexId n, float threshold, int maxDimension,
                    const BinomialTable& binomial) {
  RipsGraph view;
  view.n = n;
  view.threshold = threshold;
  view.maxDimension = maxDimension;
  view.binomial = binomial.data();
  return view;
}

// A builder's dimension (the GPU's): the columns to reduce and the number of apparent
// pairs from it, the reduction here (the apparent pairs found again where met). False
// when it declined (the CPU builds the dimension).
template <class Graph>
bool preparedDimension(ColumnBuilder& builder, Engine<Graph>& engine, int dim,
                       int maxDimension, std::vector<Entry>& simplices,
                       const std::vector<Entry>& columns, Result& result,
                       RunReport& report) {
  DimensionStats& stats = result.stats[std::size_t(dim)];
  PreparedDimension prepared;
  static const std::vector<SimplexId> none;
  const std::vector<SimplexId>& reduced = dim > 1 ? engine.reducedPivots() : none;
  if (!builder.prepare(dim, simplices, dim == 1 ? &columns : nullptr,
                       dim < maxDimension && dim > 1, reduced, prepared, report))
    return false;
  if (dim > 1) {
    stats.simplices = prepared.simplexCount;
    simplices.swap(prepared.simplices); // empty when the builder kept them
  } else {
    stats.simplices = SimplexId(simplices.size());
  }
  stats.columns = SimplexId(prepared.columns.size()) + prepared.apparentCount;
  stats.columnsBackend = "gpu";
  stats.batches = prepared.batches;
  if (prepared.batches > 1) {
    // The batches' sorted runs, joined (the budget-bound case only).
    Timer timer;
    tbb::parallel_sort(prepared.columns.begin(), prepared.columns.end(),
                       [](const Entry& a, const Entry& b) { return before(b, a); });
    report.timings.emplace_back("join batches dim " + std::to_string(dim) + " (cpu)",
                                timer.seconds());
  }
  engine.reducePrepared(dim, prepared, result.intervals[std::size_t(dim)], stats, report);
  return true;
}

template <class Graph>
void higherDimensions(const Graph& graph, const BinomialTable& binomial, float threshold,
                      int maxDimension, std::vector<Entry>& edges,
                      std::vector<Entry>& columns, ColumnBuilder* builder,
                      const Monitor& monitor, Result& result, RunReport& report,
                      const Parameters& parameters, std::size_t columnLimit) {
  float largestEdge = 0;
  for (const Entry& e : edges)
    largestEdge = std::max(largestEdge, e.diameter);
  Engine<Graph> engine(graph, binomial, threshold, largestEdge,
                       parameters.boundEveryColumn, monitor);
  if (parameters.cocycles)
    engine.keepRepresentatives(&result.representatives);
  std::vector<Entry> simplices = std::move(edges); // all edges: the dimension-1 simplices
  for (int dim = 1; dim <= maxDimension; ++dim) {
    monitor.checkAbort();
    const double share = 0.9 / double(maxDimension);
    const double begin = 0.1 + share * double(dim - 1);
    monitor.report(begin);
    engine.setProgress(monitor.stage(begin, begin + share));
    DimensionStats& stats = result.stats[std::size_t(dim)];
    if (builder != nullptr && preparedDimension(*builder, engine, dim, maxDimension,
                                                simplices, columns, result, report))
      continue;
    if (dim > 1) {
      Timer timer;
      std::vector<Entry> next;
      std::size_t apparentCount = 0;
      columns = {};
      stats.simplices =
          engine.assemble(dim - 1, simplices, dim < maxDimension ? &next : nullptr,
                          columns, apparentCount, columnLimit);
      simplices.swap(next);
      next = {};
      report.timings.emplace_back("columns dim " + std::to_string(dim) + " (cpu)",
                                  timer.seconds());
      stats.columns = SimplexId(columns.size() + apparentCount);
      engine.reduceAssembled(dim, columns, apparentCount,
                             result.intervals[std::size_t(dim)], stats, report);
      continue;
    }
    stats.simplices = SimplexId(simplices.size());
    stats.columns = SimplexId(columns.size());
    engine.reduce(dim, columns, result.intervals[std::size_t(dim)], stats, report);
  }
}

// The device starting on another thread, seen from the run (its thread only): ready()
// never waits; usable() waits for it (abort checked) and settles the backend once, with
// resolveBackend's warnings where it would have put them and the start's timing.
class DeviceGate {
public:
  DeviceGate(std::shared_future<detail::DeviceStart> device, std::size_t baseBytes,
             const Monitor& monitor, RunReport& report)
      : device_(std::move(device)), baseBytes_(baseBytes), monitor_(monitor),
        report_(report), warningsAt_(report.warnings.size()) {}
  bool ready() const {
    return settled_ ||
           device_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
  bool usable() {
    if (settled_)
      return usable_;
    while (device_.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
      monitor_.checkAbort();
    const detail::DeviceStart& start = device_.get();
    report_.timings.emplace_back("device start (gpu)", start.seconds);
    RunReport choice;
    usable_ = chooseBackend(Backend::Gpu, start.usable, start.whyNot, baseBytes_,
                            start.budgetBytes, choice) == Backend::Gpu;
    const std::size_t at = std::min(warningsAt_, report_.warnings.size());
    report_.warnings.insert(report_.warnings.begin() + std::ptrdiff_t(at),
                            choice.warnings.begin(), choice.warnings.end());
    settled_ = true;
    return usable_;
  }

private:
  std::shared_future<detail::DeviceStart> device_;
  std::size_t baseBytes_;
  const Monitor& monitor_;
  RunReport& report_;
  std::size_t warningsAt_;
  bool settled_ = false, usable_ = false;
};

// A ColumnBuilder that declines (the CPU builds the dimension) while the device starts,
// unless the dimension is big enough to wait for it (WaitRule), and hands every
// dimension from the first that finds the device ready to the builder it then makes.
class StartingBuilder final : public ColumnBuilder {
public:
  StartingBuilder(const RipsGraph& graph, const ColumnBuilderFactory& factory,
                  DeviceGate& gate, SimplexId waitSimplices)
      : graph_(graph), factory_(factory), gate_(gate),
        waitSimplices_(waitSimplices), counts_{double(graph.n)} {}
  bool prepare(int dim, std::vector<Simplex>& facets, const std::vector<Simplex>* given,
               bool keepSimplices, const std::vector<SimplexId>& clearedReduced,
               PreparedDimension& out, RunReport& report) override {
    if (!builder_) {
      if (!gate_.ready() &&
          expectedSimplices(dim, facets.size()) <= double(waitSimplices_))
        return false;
      if (!gate_.usable())
        return false;
      builder_ = factory_(graph_, report);
    }
    return builder_->prepare(dim, facets, given, keepSimplices, clearedReduced, out,
                             report);
  }

private:
  // The simplices of `dim` before they are made: dimension 1 gets its own simplices
  // (the edges), a higher one its facets (all of them while no builder kept any). From
  // the counts c of the two dimensions below, c[d-1]^2 / c[d-2] * d / (d+1): a complete
  // complex's count times (n-d+1)/(n-d), and the growth of the last dimension for a
  // partial one.
  double expectedSimplices(int dim, std::size_t facets) {
    const std::size_t below = std::size_t(std::max(dim, 1));
    if (counts_.size() <= below)
      counts_.resize(below + 1, 0.0);
    counts_[below] = double(facets);
    if (dim <= 1)
      return double(facets);
    const double older = counts_[below - 1];
    return older > 0
               ? double(facets) * double(facets) / older * double(dim) / double(dim + 1)
               : 0.0;
  }

  const RipsGraph& graph_;
  const ColumnBuilderFactory& factory_;
  DeviceGate& gate_;
  SimplexId waitSimplices_;
  std::vector<double> counts_; // simplices per dimension seen so far (0: the points)
  std::unique_ptr<ColumnBuilder> builder_;
};

// The device's start on a background thread; synchronous once a call of this process
// found it usable (the context exists: the checks then take microseconds, and every
// dimension goes to the device as soon as the run asks).
std::shared_future<detail::DeviceStart> startDevice() {
  static std::atomic<bool> started{false};
  const auto start = [] {
    detail::DeviceStart state;
    const Timer timer;
    state.usable = gpuAvailable(&state.whyNot);
    state.budgetBytes = state.usable ? deviceMemoryBudget(gpu::freeDeviceMemory()) : 0;
    state.seconds = timer.seconds();
    if (state.usable)
      started.store(true);
    return state;
  };
  if (!started.load()) {
    try {
      return std::async(std::launch::async, start).share();
    } catch (const std::system_error&) {
      // no thread to be had: start it here
    }
  }
  std::promise<detail::DeviceStart> now;
  now.set_value(start());
  return now.get_future().share();
}

} // namespace

double enclosingRadius(const RipsInput& input) {
  const float stored =
      input.format == InputFormat::Sparse
          ? sparseEnclosingRadius(input.numberOfPoints, input.edges)
      : input.format == InputFormat::PointCloud
          ? streamedEnclosingRadius(input, Monitor{})
          : denseEnclosingRadius(input.numberOfPoints, input.lowerDistances, Monitor{});
  return std::ldexp(double(stored), input.scaleExponent);
}

namespace detail {

void validate(const RipsInput& input, const Parameters& parameters) {
  if (parameters.maxDimension < 0 || parameters.maxDimension > kMaxDimensionLimit)
    throw Error("the maximum dimension must be >= 0 and at most " +
                std::to_string(kMaxDimensionLimit) + ", got " +
                std::to_string(parameters.maxDimension));
  if (std::isnan(parameters.threshold) || parameters.threshold <= 0)
    throw Error("the threshold must be > 0, got " + std::to_string(parameters.threshold));
  if (parameters.threads < 0 || parameters.threads > kMaxThreads)
    throw Error("the number of threads must be >= 0 (0: all cores) and at most " +
                std::to_string(kMaxThreads) + ", got " +
                std::to_string(parameters.threads));
  const SimplexId n = input.numberOfPoints;
  if (n < 2)
    throw Error(n == 0
                    ? "the input is empty: no points or distances"
                    : "the input has a single point: Rips persistence needs at least 2");
  if (SimplexId(parameters.maxDimension) + 2 > n)
    throw Error("dimension " + std::to_string(parameters.maxDimension) +
                " needs at least " + std::to_string(parameters.maxDimension + 2) +
                " points (simplices of " + std::to_string(parameters.maxDimension + 2) +
                " vertices), the input has " + std::to_string(n));
  const bool dense = input.format != InputFormat::Sparse;
  if (dense && input.format != InputFormat::PointCloud &&
      input.lowerDistances.size() != std::size_t(n) * std::size_t(n - 1) / 2)
    throw Error("the distance matrix has " + std::to_string(input.lowerDistances.size()) +
                " entries, not n(n-1)/2 for n = " + std::to_string(n));
  if (input.format == InputFormat::PointCloud &&
      input.points.size() != std::size_t(n) * std::size_t(input.pointDimension))
    throw Error("the point cloud's coordinates do not match its size");
  if (!(parameters.memoryBudget > 0))
    throw Error("the memory budget must be > 0 bytes, got " +
                std::to_string(parameters.memoryBudget));
  // Simplex indices must fit in 63 bits: checked before anything is allocated.
  BinomialTable::checkIndexRange(n, parameters.maxDimension + 2);
}

void executeWith(const RipsInput& input, const Parameters& parameters,
                 const Monitor& monitor, const ColumnBuilderFactory& factory,
                 const DistanceFunction& deviceDistances, Result& result,
                 RunReport& report) {
  result = Result{};
  validate(input, parameters);
  std::unique_ptr<tbb::global_control> threads;
  if (parameters.threads > 0)
    threads = std::make_unique<tbb::global_control>(
        tbb::global_control::max_allowed_parallelism, std::size_t(parameters.threads));
  const SimplexId n = input.numberOfPoints;
  const int maxDimension = parameters.maxDimension;
  result.numberOfPoints = n;
  result.intervals.assign(std::size_t(maxDimension) + 1, {});
  result.stats.assign(std::size_t(maxDimension) + 1, {});

  Timer timer;
  // A point cloud's matrix is streamed (never stored) until the dense path needs it.
  bool cloud = input.format == InputFormat::PointCloud;
  std::vector<float> computed;
  const std::vector<float>* lower = &input.lowerDistances;
  // The device's matrix is stored on the host too: not when it alone passes the budget.
  const double matrixBytes = double(n) * double(n - 1) / 2 * sizeof(float);
  if (cloud && deviceDistances && matrixBytes <= parameters.memoryBudget) {
    // The device's matrix (the same floats: double sums, one rounding) replaces the
    // streamed distances from here on.
    deviceDistances(input, computed, report);
    lower = &computed;
    cloud = false;
  }
  // The progress bar: distances, estimate, edges and dimension 0 take the first tenth,
  // the dimensions above share the rest (higherDimensions).
  const bool sparseInput = input.format == InputFormat::Sparse;
  const Monitor radiusStage = monitor.stage(0, 0.02);
  // Distances as stored (times 2^-scaleExponent); the results in the input's units.
  const int scale = input.scaleExponent;
  const float radius = sparseInput ? sparseEnclosingRadius(n, input.edges)
                       : cloud     ? streamedEnclosingRadius(input, radiusStage)
                                   : denseEnclosingRadius(n, *lower, radiusStage);
  const float threshold = detail::runThreshold(input, parameters.threshold, radius);
  result.enclosingRadius = std::ldexp(double(radius), scale);
  result.threshold = std::ldexp(double(threshold), scale);
  report.timings.emplace_back("distances (cpu)", timer.seconds());
  monitor.checkAbort();
  timer.reset();

  // The run's size before anything large is allocated: refused when it does not fit.
  const std::vector<float>* stored = sparseInput || cloud ? nullptr : lower;
  const Monitor estimateStage = monitor.stage(0.02, 0.04);
  const Estimate size = detail::estimateAt(input, stored, parameters, threshold, radius,
                                           estimateStage, false);
  detail::refuseUnlessItFits(input, stored, parameters, size, estimateStage);
  // What is left for the columns of dimensions >= 2 (stored twice while gathered).
  const double columnBytes =
      parameters.memoryBudget - size.bytes[std::size_t(maxDimension)];
  const std::size_t columnLimit =
      columnBytes / (2 * sizeof(Entry)) >= double(std::numeric_limits<std::size_t>::max())
          ? std::numeric_limits<std::size_t>::max()
          : std::size_t(columnBytes / (2 * sizeof(Entry)));
  report.timings.emplace_back("estimate (cpu)", timer.seconds());
  timer.reset();
  const BinomialTable binomial(n, maxDimension + 2);

  // The edges under the threshold, named by their combinatorial index.
  std::vector<Entry> edges;
  if (sparseInput) {
    for (const auto& e : input.edges) {
      if (e.distance <= threshold)
        edges.push_back({e.distance, e.i * (e.i - 1) / 2 + e.j});
    }
  } else {
    tbb::enumerable_thread_specific<std::vector<Entry>> locals;
    detail::forRowsInBlocks(n, monitor.stage(0.04, 0.07), [&](SimplexId i) {
      auto& local = locals.local();
      for (SimplexId j = 0; j < i; ++j) {
        const SimplexId e = i * (i - 1) / 2 + j;
        const float d = cloud ? pointDistance(input, i, j) : (*lower)[std::size_t(e)];
        if (d <= threshold)
          local.push_back({d, e});
      }
    });
    for (auto& local : locals)
      edges.insert(edges.end(), local.begin(), local.end());
  }
  result.edges = SimplexId(edges.size());
  const double allPairs = double(n) * double(n - 1) / 2;
  result.sparse =
      sparseInput || parameters.sparse == SparseMode::Sparse ||
      (parameters.sparse == SparseMode::Auto && double(edges.size()) * 4 < allPairs);

  std::vector<Entry> columns;
  dimensionZero(n, binomial, edges, result.intervals[0], result.stats[0], columns,
                monitor.stage(0.07, 0.1));
  report.timings.emplace_back("dim 0 (cpu)", timer.seconds());
  monitor.report(0.1);
  if (maxDimension >= 1) {
    if (result.sparse) {
      timer.reset();
      std::vector<std::vector<SparseGraph::Neighbor>> adjacency;
      adjacency.resize(std::size_t(n));
      for (const Entry& e : edges) {
        SimplexId v[2];
        simplexVertices(binomial, e.index, 2, v);
        adjacency[std::size_t(v[0])].push_back({v[1], e.diameter});
        adjacency[std::size_t(v[1])].push_back({v[0], e.diameter});
      }
      tbb::parallel_for(std::size_t(0), adjacency.size(), [&](std::size_t v) {
        std::sort(adjacency[v].begin(), adjacency[v].end());
      });
      RipsGraph view; // outlives the builder
      std::unique_ptr<ColumnBuilder> builder;
      if (factory) {
        view = graphView(n, threshold, maxDimension, binomial);
        view.sparse = true;
        view.offsets.assign(std::size_t(n) + 1, 0);
        for (SimplexId v = 0; v < n; ++v)
          view.offsets[std::size_t(v) + 1] =
              view.offsets[std::size_t(v)] + SimplexId(adjacency[std::size_t(v)].size());
        view.neighbors.reserve(std::size_t(view.offsets.back()));
        view.distances.reserve(std::size_t(view.offsets.back()));
        for (const auto& list : adjacency) {
          for (const auto& [w, d] : list) {
            view.neighbors.push_back(w);
            view.distances.push_back(d);
          }
        }
        builder = factory(view, report);
      }
      const SparseGraph graph(std::move(adjacency));
      report.timings.emplace_back("sparse graph (cpu)", timer.seconds());
      higherDimensions(graph, binomial, threshold, maxDimension, edges, columns,
                       builder.get(), monitor, result, report, parameters, columnLimit);
    } else {
      if (cloud) {
        timer.reset();
        computed = pointDistances(input, monitor.stage(0.1, 0.1));
        lower = &computed;
        report.timings.emplace_back("distance matrix (cpu)", timer.seconds());
      }
      const DenseGraph graph(n, lower->data());
      RipsGraph view; // outlives the builder
      std::unique_ptr<ColumnBuilder> builder;
      if (factory) {
        view = graphView(n, threshold, maxDimension, binomial);
        view.lower = lower->data();
        builder = factory(view, report);
      }
      higherDimensions(graph, binomial, threshold, maxDimension, edges, columns,
                       builder.get(), monitor, result, report, parameters, columnLimit);
    }
  }
  if (scale != 0) {
    for (auto& bars : result.intervals) {
      for (Interval& bar : bars) {
        bar.birth = std::ldexp(bar.birth, scale);
        bar.death = std::ldexp(bar.death, scale);
      }
    }
  }
  monitor.report(1.0);
}

std::size_t gpuBaseBytes(const RipsInput& input, const Parameters& parameters) {
  const std::size_t n = std::size_t(std::max<SimplexId>(input.numberOfPoints, 0));
  const std::size_t table =
      (std::size_t(std::max(parameters.maxDimension, 0)) + 3) * (n + 1) * 8;
  const std::size_t graph = input.format == InputFormat::Sparse
                                ? (n + 1) * 8 + input.edges.size() * 2 * 12
                                : n * (n - (n > 0 ? 1 : 0)) / 2 * 4;
  // One smallest batch: the cofacets of one simplex (at most n), at the builder's bytes
  // per simplex, plus a little for the facets and the scans.
  return table + graph + n * device::kBytesPerSimplex + (std::size_t(1) << 16);
}

void executeStarting(const RipsInput& input, const Parameters& parameters,
                     const Monitor& monitor, std::shared_future<DeviceStart> device,
                     const ColumnBuilderFactory& factory,
                     const DistanceFunction& deviceDistances, Result& result,
                     RunReport& report, const WaitRule& wait) {
  result = Result{};
  validate(input, parameters);
  DeviceGate gate(std::move(device), gpuBaseBytes(input, parameters), monitor, report);
  // executeWith asks for the distances first thing: the device's when it is ready by now
  // or the matrix is worth waiting for.
  DistanceFunction distances;
  const double entries =
      double(input.numberOfPoints) * double(input.numberOfPoints - 1) / 2;
  if (deviceDistances && input.format == InputFormat::PointCloud &&
      (gate.ready() || entries > double(wait.distances)) && gate.usable())
    distances = deviceDistances;
  ColumnBuilderFactory starting;
  if (factory)
    starting = [&](const RipsGraph& graph, RunReport&) {
      return std::unique_ptr<ColumnBuilder>(
          new StartingBuilder(graph, factory, gate, wait.simplices));
    };
  runWithFallback(
      Backend::Gpu, "rips persistence", report,
      [&] {
        executeWith(input, parameters, monitor, starting, distances, result, report);
        gate.usable(); // settles the backend (and waits for the start) if nothing did
      },
      [&] { executeWith(input, parameters, monitor, {}, {}, result, report); });
  if (!gate.usable())
    report.backend = "cpu";
}

} // namespace detail

void execute(const RipsInput& input, const Parameters& parameters, const Monitor& monitor,
             Result& result, RunReport& report) {
  result = Result{};
  validate(input, parameters);
  // Auto runs the CPU backend: on the H200 host (16 cores) it is within 1.8x of the GPU
  // backend on every set of the benchmark (faster on sphere_3_192 and dragon1000, whose
  // time is the reduction) with no device start-up or memory (docs/benchmarks.md); the
  // GPU runs when asked for.
  if (parameters.backend != Backend::Gpu) {
    report.backend = "cpu";
    detail::executeWith(input, parameters, monitor, {}, {}, result, report);
    return;
  }
  // The device memory a GPU step may plan for: 7/8 of what is free now (the rest for
  // Thrust's scratch and other processes), capped by the budget cap
  // (setDeviceMemoryBudgetCap).
  const auto budget = [] {
    const std::size_t free = gpu::freeDeviceMemory();
    return deviceMemoryBudget(free - free / 8);
  };
  detail::executeStarting(
      input, parameters, monitor, startDevice(),
      [&](const RipsGraph& graph, RunReport& r) {
        return gpu::makeRipsColumnBuilder(graph, budget(), monitor, r);
      },
      [&](const RipsInput& in, std::vector<float>& lower, RunReport& r) {
        gpu::ripsPointDistances(in.points, in.numberOfPoints, in.pointDimension, budget(),
                                lower, r);
      },
      result, report);
}

} // namespace topogpu::rips_persistence
