// The columns of a dimension >= 2, assembled from the simplices of the dimension below
// (each made once, from its facet without its largest vertex), with the clearing of
// the pivots of the last reduction and the apparent pairs set aside (Ripser++).
#pragma once

#include "RipsCofacets.h"
#include "RipsEstimate.h"

#include "base/Types.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace topogpu::rips_persistence::detail {

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

// The assembly's refusal, out of line: kept out of the hot loop it is thrown from, so
// that the apparent-pair tests there stay inlined.
[[noreturn, gnu::cold, gnu::noinline]] inline void
columnsOutgrowBudget(int dim, std::size_t limit) {
  throw Error("the columns of dimension " + std::to_string(dim) +
              " outgrow the memory budget: more than " + std::to_string(limit) +
              " columns (" + byteSize(double(limit) * 2 * sizeof(Entry)) +
              ") beside the estimated simplices; lower the dimension or the threshold, "
              "or raise the memory budget");
}

// Progress and abort within one dimension: the columns (assembly, apparent pairs) take
// the first kAssembleShare of its bar, the reduction the rest.
constexpr double kAssembleShare = 0.3;

// f(first, last) over [0, size) by at most 16 blocks of at least 65536 items;
// between them the calling thread checks for an abort and reports from + (to - from)
// * done. Each block is a parallel loop of its own: smaller ones would leave the
// cores idle at every barrier (a small dimension runs as one block).
template <class F>
void inBlocks(const Monitor& progress, std::size_t size, double from, double to, F&& f) {
  const std::size_t block = std::max<std::size_t>(std::size_t(1) << 16, size / 16 + 1);
  for (std::size_t first = 0; first < size; first += block) {
    progress.checkAbort();
    const std::size_t last = std::min(size, first + block);
    f(first, last);
    progress.report(from + (to - from) * double(last) / double(size));
  }
  progress.checkAbort();
}

// True when a (dim+1)-simplex (count + 1 vertices ev) is the pivot of a pair of the
// last reduction (clearing): one of its reduced pivots, or an apparent pair's.
template <class Graph>
bool isPivot(const Cofacets<Graph>& walk, const IndexSet& reducedPivots, const Entry& e,
             const SimplexId* ev, int count) {
  if (reducedPivots.contains(e.index))
    return true;
  Entry s;
  return walk.apparentFacet(e, ev, count, s);
}

// Simplices of one dimension more, each made once from its facet without its largest
// vertex: the columns among them that are neither cleared nor apparent (sorted,
// reverse filtration order) and the number of apparent pairs.
// More than columnLimit columns is an Error (the memory budget's share for them).
// reducedPivots: the pivots of the last reduction; progress: the dimension's bar.
template <class Graph>
SimplexId assembleColumns(const Cofacets<Graph>& walk, const IndexSet& reducedPivots,
                          const Monitor& progress, int dim,
                          const std::vector<Entry>& simplices, std::vector<Entry>* next,
                          std::vector<Entry>& columns, std::size_t& apparentCount,
                          std::size_t columnLimit) {
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
  inBlocks(
      progress, simplices.size(), 0, kAssembleShare,
      [&](std::size_t from, std::size_t to) {
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(from, to, 1024),
            [&](const tbb::blocked_range<std::size_t>& r) {
              Local& local = locals.local();
              Vertices v; // NOLINT: filled before use (no 576-byte clearing per call)
              for (std::size_t s = r.begin(); s != r.end(); ++s) {
                // v[1..count]: the facet; v[0]: the new (largest) vertex.
                simplexVertices(walk.binomial(), simplices[s].index, count, v.data() + 1);
                walk.cofacets(
                    v.data() + 1, count, simplices[s].diameter, v[1],
                    [&](const Entry& e, SimplexId w) {
                      ++local.generated;
                      if (next != nullptr)
                        local.next.push_back(e);
                      v[0] = w;
                      // A simplex is in one persistence pair at most: an apparent
                      // column is no pivot of the last dimension, so the (cheaper,
                      // far more frequent) apparent test comes first.
                      if (walk.apparentPivot(e, v.data(), count + 1) >= 0) {
                        ++local.apparentCount;
                      } else if (!isPivot(walk, reducedPivots, e, v.data(), count)) {
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

} // namespace topogpu::rips_persistence::detail
