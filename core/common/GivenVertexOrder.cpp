#include "GivenVertexOrder.h"

#include "base/Types.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>

namespace topogpu {

namespace {

constexpr SimplexId kNone = std::numeric_limits<SimplexId>::max();

// The smallest index in [0, n) where bad(i) holds, kNone if none (in parallel).
template <typename Bad> SimplexId firstWhere(SimplexId n, Bad bad) {
  return tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, n), kNone,
      [&](const tbb::blocked_range<SimplexId>& range, SimplexId found) {
        for (SimplexId i = range.begin(); i < range.end() && i < found; ++i)
          if (bad(i))
            return i;
        return found;
      },
      [](SimplexId a, SimplexId b) { return std::min(a, b); });
}

template <typename ValueT> std::string text(ValueT x) {
  std::ostringstream out;
  out.precision(17);
  out << +x;
  return out.str();
}

// Throws when the values decrease somewhere along the ranks (vertexAt[rank]).
template <typename ValueT>
void checkNonDecreasing(const ValueT* x, const std::atomic<SimplexId>* vertexAt,
                        SimplexId n, const std::string& orderName,
                        const std::string& fieldName) {
  const SimplexId r =
      firstWhere(n - 1, [&](SimplexId r) { return x[vertexAt[r + 1]] < x[vertexAt[r]]; });
  if (r == kNone)
    return;
  const SimplexId a = vertexAt[r], b = vertexAt[r + 1];
  throw Error(orderName + " is not consistent with " + fieldName + ": vertex " +
              std::to_string(a) + " (value " + text(x[a]) + ") has rank " +
              std::to_string(r) + " but vertex " + std::to_string(b) +
              " with the lower value " + text(x[b]) + " has rank " +
              std::to_string(r + 1));
}

} // namespace

void checkGivenVertexOrder(const ScalarArrayView& values, const std::string& orderName,
                           const std::string& fieldName) {
  const SimplexId n = values.size;
  const SimplexId* order = values.order;
  if (n == 0 || order == nullptr)
    return;
  const SimplexId outside =
      firstWhere(n, [&](SimplexId v) { return order[v] < 0 || order[v] >= n; });
  if (outside != kNone)
    throw Error(orderName + " is not a vertex order: rank " +
                std::to_string(order[outside]) + " at vertex " + std::to_string(outside) +
                " is outside 0.." + std::to_string(n - 1));
  // vertexAt[rank]: ranks are in range, so a rank given twice leaves another one unset
  // (atomic: the vertices of a rank given twice write the same slot).
  const std::unique_ptr<std::atomic<SimplexId>[]> vertexAt(new std::atomic<SimplexId>[n]);
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId r) {
    vertexAt[r].store(-1, std::memory_order_relaxed);
  });
  tbb::parallel_for(SimplexId(0), n, [&](SimplexId v) {
    vertexAt[order[v]].store(v, std::memory_order_relaxed);
  });
  if (firstWhere(n, [&](SimplexId r) { return vertexAt[r].load() < 0; }) != kNone) {
    std::vector<SimplexId> seenAt(std::size_t(n), -1);
    for (SimplexId v = 0; v < n; ++v) {
      SimplexId& first = seenAt[order[v]];
      if (first >= 0)
        throw Error(orderName + " is not a permutation: rank " +
                    std::to_string(order[v]) + " appears twice (vertices " +
                    std::to_string(first) + " and " + std::to_string(v) + ")");
      first = v;
    }
  }
  TOPOGPU_DISPATCH_SCALAR(values.type,
                          checkNonDecreasing(static_cast<const ValueT*>(values.data),
                                             vertexAt.get(), n, orderName, fieldName));
}

std::vector<SimplexId> restrictVertexOrder(const SimplexId* order,
                                           const std::vector<SimplexId>& kept) {
  std::vector<SimplexId> byRank(kept.size());
  std::iota(byRank.begin(), byRank.end(), SimplexId(0));
  tbb::parallel_sort(byRank.begin(), byRank.end(), [&](SimplexId a, SimplexId b) {
    return order[kept[std::size_t(a)]] < order[kept[std::size_t(b)]];
  });
  std::vector<SimplexId> rank(kept.size());
  tbb::parallel_for(std::size_t(0), byRank.size(),
                    [&](std::size_t r) { rank[std::size_t(byRank[r])] = SimplexId(r); });
  return rank;
}

} // namespace topogpu
