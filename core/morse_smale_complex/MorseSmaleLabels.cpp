#include "core/morse_smale_complex/MorseSmaleLabels.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <cstddef>

namespace topogpu::morse_smale_complex {

namespace {

// Pairs of labels up to which the ids come from a table (a byte and an id per pair).
constexpr std::size_t kTablePairs = std::size_t(1) << 20;
// Vertices per task of the sorting strategy.
constexpr std::size_t kBlock = std::size_t(1) << 14;

// One more than the largest label (at least 1).
SimplexId labelCount(const std::vector<ManifoldLabel>& labels, std::size_t n) {
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, n), SimplexId(1),
      [&](const tbb::blocked_range<std::size_t>& r, SimplexId m) {
        for (std::size_t v = r.begin(); v < r.end(); ++v)
          m = std::max(m, SimplexId(labels[v]) + 1);
        return m;
      },
      [](SimplexId a, SimplexId b) { return std::max(a, b); });
}

} // namespace

void morseSmaleLabels(const std::vector<ManifoldLabel>& descending,
                      const std::vector<ManifoldLabel>& ascending,
                      std::vector<SimplexId>& labels, SimplexId minima,
                      SimplexId maxima) {
  const std::size_t n = std::min(descending.size(), ascending.size());
  if (minima < 0)
    minima = labelCount(descending, n);
  if (maxima < 0)
    maxima = labelCount(ascending, n);
  const SimplexId nA = std::max<SimplexId>(maxima, 1);
  // The pair's key in the pairs' order, -1 when a label is missing (it comes first).
  auto key = [&](std::size_t v) {
    return descending[v] < 0 || ascending[v] < 0
               ? SimplexId(-1)
               : SimplexId(descending[v]) * nA + SimplexId(ascending[v]);
  };
  labels.resize(n);
  const std::size_t pairs = std::size_t(std::max<SimplexId>(minima, 1)) * std::size_t(nA);
  if (pairs <= kTablePairs) {
    std::vector<char> present(pairs + 1, 0);
    tbb::parallel_for(std::size_t(0), n, [&](std::size_t v) {
      const std::size_t k = std::size_t(key(v) + 1);
      if (!__atomic_load_n(&present[k], __ATOMIC_RELAXED))
        __atomic_store_n(&present[k], char(1), __ATOMIC_RELAXED);
    });
    std::vector<SimplexId> id(pairs + 1);
    SimplexId next = 0;
    for (std::size_t k = 0; k <= pairs; ++k) {
      id[k] = next;
      next += present[k];
    }
    tbb::parallel_for(std::size_t(0), n,
                      [&](std::size_t v) { labels[v] = id[std::size_t(key(v) + 1)]; });
    return;
  }
  // Too many pairs for a table: the distinct keys, sorted, give the ids. Neighbouring
  // vertices mostly share a pair, so only the keys that start a run within a block are
  // sorted, and a vertex continuing a run takes the run's id without a search.
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  tbb::enumerable_thread_specific<std::vector<SimplexId>> heads;
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    std::vector<SimplexId>& mine = heads.local();
    for (std::size_t v = b * kBlock; v < std::min(n, (b + 1) * kBlock); ++v) {
      labels[v] = key(v);
      if (v == b * kBlock || labels[v] != labels[v - 1])
        mine.push_back(labels[v]);
    }
  });
  std::vector<SimplexId> keys;
  for (const std::vector<SimplexId>& mine : heads)
    keys.insert(keys.end(), mine.begin(), mine.end());
  tbb::parallel_sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    SimplexId previous = -2, id = 0; // -2: no key
    for (std::size_t v = b * kBlock; v < std::min(n, (b + 1) * kBlock); ++v) {
      if (labels[v] != previous) {
        previous = labels[v];
        id = SimplexId(std::lower_bound(keys.begin(), keys.end(), previous) -
                       keys.begin());
      }
      labels[v] = id;
    }
  });
}

} // namespace topogpu::morse_smale_complex
