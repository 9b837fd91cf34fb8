#include "RipsEstimate.h"

#include "RipsDistances.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace topogpu::rips_persistence {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kEntryBytes = 16; // a simplex: diameter and index (Simplex)
constexpr double kFullMatrixBytes = 64.0 * 1024 * 1024; // DenseGraph's square copy
constexpr double kNearBytes = 64.0 * 1024 * 1024;       // DenseGraph's sorted rows

// C(x, k) in double (0 when x < k).
double choose(double x, int k) {
  if (x < k)
    return 0;
  double c = 1;
  for (int j = 0; j < k; ++j)
    c = c * (x - j) / (j + 1);
  return c;
}

// f(i, j, d) for every pair i > j of distance d <= threshold, rows in parallel (each
// row i visited by one thread); a sparse input's edges serially.
template <class F>
void pairsUnder(const RipsInput& input, const std::vector<float>* lower, float threshold,
                const Monitor& monitor, F&& f) {
  const SimplexId n = input.numberOfPoints;
  if (input.format == InputFormat::Sparse) {
    for (const SparseEdge& e : input.edges) {
      if (e.distance <= threshold)
        f(e.i, e.j, e.distance);
    }
    monitor.checkAbort();
    return;
  }
  detail::forRowsInBlocks(n, monitor, [&](SimplexId i) {
    const float* row = lower != nullptr ? lower->data() + i * (i - 1) / 2 : nullptr;
    for (SimplexId j = 0; j < i; ++j) {
      const float d = row != nullptr ? row[j] : detail::pointDistance(input, i, j);
      if (d <= threshold)
        f(i, j, d);
    }
  });
}

bool sparsePath(const RipsInput& input, const Parameters& parameters, double edges) {
  const double n = double(input.numberOfPoints);
  return input.format == InputFormat::Sparse || parameters.sparse == SparseMode::Sparse ||
         (parameters.sparse == SparseMode::Auto && edges * 4 < n * (n - 1) / 2);
}

// The simplices per dimension 0..top from the lower degrees (the edges: their sum).
std::vector<double> simplexBounds(const std::vector<std::uint32_t>& degree, int top) {
  std::vector<double> c(std::size_t(top) + 1, 0.0);
  c[0] = double(degree.size());
  for (const std::uint32_t d : degree) {
    for (int k = 1; k <= top; ++k)
      c[std::size_t(k)] += choose(double(d), k);
  }
  return c;
}

// The lower neighbours of each point as bit rows (row v: the points u < v within the
// threshold), for an exact count of the triangles when that is cheap.
class LowerNeighbours {
public:
  // Bit rows take n^2 / 8 bytes: up to 16384 points (32 MiB).
  static constexpr SimplexId kMaxPoints = 16384;
  explicit LowerNeighbours(SimplexId n)
      : words_(std::size_t(n + 63) / 64),
        bits_(n <= kMaxPoints ? std::size_t(n) * words_ : 0, 0) {}
  bool active() const { return !bits_.empty(); }
  // Row v belongs to one thread at a time.
  void add(SimplexId v, SimplexId u) {
    bits_[std::size_t(v) * words_ + std::size_t(u) / 64] |= std::uint64_t(1) << (u % 64);
  }
  // Triangles {a < b < c}, counted at c: pairs b > a of c's lower neighbours that are
  // neighbours (a is then a lower neighbour of b too).
  double triangles(const Monitor& monitor) const {
    const SimplexId n = SimplexId(bits_.size() / std::max<std::size_t>(words_, 1));
    std::vector<double> perRow(std::size_t(n), 0.0);
    for (SimplexId first = 0; first < n; first += 256) {
      monitor.checkAbort();
      tbb::parallel_for(first, std::min<SimplexId>(n, first + 256), [&](SimplexId c) {
        const std::uint64_t* rc = bits_.data() + std::size_t(c) * words_;
        double count = 0;
        for (std::size_t w = 0; w < words_; ++w) {
          for (std::uint64_t m = rc[w]; m != 0; m &= m - 1) {
            const std::size_t b = w * 64 + std::size_t(__builtin_ctzll(m));
            const std::uint64_t* rb = bits_.data() + b * words_;
            for (std::size_t x = 0; x <= b / 64; ++x)
              count += double(__builtin_popcountll(rb[x] & rc[x]));
          }
        }
        perRow[std::size_t(c)] = count;
      });
    }
    double total = 0;
    for (const double x : perRow)
      total += x;
    return total;
  }

private:
  std::size_t words_;
  std::vector<std::uint64_t> bits_;
};

// The peak host bytes of a run up to dimension D (see Estimate::bytes); withColumns:
// every simplex of dimensions 2..D counted as a column too (Estimate::maxBytes).
double runBytes(const RipsInput& input, const std::vector<double>& c, int D, bool sparse,
                bool withColumns) {
  const double n = c[0], E = c.size() > 1 ? c[1] : 0;
  const double base = double(D + 3) * (n + 1) * 8 // binomial table
                      + n * 9                     // union-find
                      + n * 16                    // dimension 0's bars
                      + n * 12;                   // row maxima, degree counts
  const double edges = 2 * E * kEntryBytes;       // gathered from the threads
  const double dim0 = 2 * E * kEntryBytes;        // the edges and the dimension-1 columns
  if (D == 0)
    return base + std::max(edges, dim0);
  double graph = 0;
  if (sparse) {
    graph = 2 * E * kEntryBytes + n * 24; // adjacency lists
  } else {
    const double pairs = n * (n - 1) / 2;
    if (input.format == InputFormat::PointCloud)
      graph += pairs * 4; // the matrix, stored for the dense path
    if (n * n * 4 <= kFullMatrixBytes)
      graph += n * n * 4;
    if (n * (n - 1) * 8 <= kNearBytes)
      graph += n * (n - 1) * 8;
  }
  // Dimension 1: the edges, the columns, their apparent-pair flags and those left.
  double dims = E * (3 * kEntryBytes + 8);
  for (int d = 2; d <= D; ++d) {
    const double kept = c[std::size_t(d - 1)] * kEntryBytes;
    const double next = d < D ? 2 * c[std::size_t(d)] * kEntryBytes : 0;
    const double columns = withColumns ? 2 * c[std::size_t(d)] * kEntryBytes : 0;
    dims = std::max(dims, kept + next + columns);
  }
  return base + std::max({edges, dim0, graph + dims});
}

Estimate assemble(const RipsInput& input, const Parameters& parameters, float threshold,
                  float enclosingRadius, std::vector<double> simplices) {
  Estimate e;
  e.storedThreshold = threshold;
  e.storedRadius = enclosingRadius;
  e.threshold = std::ldexp(double(threshold), input.scaleExponent);
  e.enclosingRadius = std::ldexp(double(enclosingRadius), input.scaleExponent);
  e.sparse = sparsePath(input, parameters, simplices[1]);
  e.simplices = std::move(simplices);
  for (int D = 0; D <= parameters.maxDimension; ++D) {
    e.bytes.push_back(runBytes(input, e.simplices, D, e.sparse, false));
    e.maxBytes.push_back(runBytes(input, e.simplices, D, e.sparse, true));
  }
  return e;
}

const char* simplexName(int k) {
  static const char* const names[] = {"points", "edges", "triangles", "tetrahedra"};
  return k < 4 ? names[k] : nullptr;
}

std::string number(double x) {
  char text[32];
  if (x < 1e7 && x == std::floor(x))
    std::snprintf(text, sizeof text, "%.0f", x);
  else
    std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

std::string thresholdText(double t) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", t);
  return text;
}

} // namespace

std::string simplexCount(const Estimate& estimate, int k) {
  const char* name = simplexName(k);
  return std::string(k <= estimate.exactUpTo ? "" : "at most ") +
         number(estimate.simplices[std::size_t(k)]) + " " +
         (name != nullptr ? std::string(name) : std::to_string(k) + "-simplices");
}

std::string describeSimplices(const Estimate& estimate, int upTo) {
  std::string text = number(estimate.simplices[0]) + " points";
  if (upTo >= 1 && estimate.simplices.size() > 1) {
    text += "; under the threshold " + thresholdText(estimate.threshold) + ": " +
            number(estimate.simplices[1]) + " edges";
    for (int k = 2; k <= upTo && k < int(estimate.simplices.size()); ++k)
      text += ", " + simplexCount(estimate, k);
  }
  return text;
}

namespace detail {

Estimate estimateAt(const RipsInput& input, const std::vector<float>* lower,
                    const Parameters& parameters, float threshold, float enclosingRadius,
                    const Monitor& monitor, bool exactTriangles) {
  const SimplexId n = input.numberOfPoints;
  const int top = parameters.maxDimension + 1;
  std::vector<std::uint32_t> degree(std::size_t(n), 0);
  LowerNeighbours neighbours(exactTriangles && top >= 2 ? n : 0);
  // A row belongs to one thread (a sparse input's edges come serially).
  pairsUnder(input, lower, threshold, monitor, [&](SimplexId i, SimplexId j, float) {
    ++degree[std::size_t(i)];
    if (neighbours.active())
      neighbours.add(i, j);
  });
  std::vector<double> c = simplexBounds(degree, top);
  // The triangles exactly, when their count costs at most about 2^32 word operations.
  const bool triangles = neighbours.active() && c[1] * double(n) / 128 <= 4294967296.0;
  if (triangles)
    c[2] = neighbours.triangles(monitor);
  Estimate e = assemble(input, parameters, threshold, enclosingRadius, std::move(c));
  e.exactUpTo = triangles ? 2 : 1;
  return e;
}

void refuseUnlessItFits(const RipsInput& input, const std::vector<float>* lower,
                        const Parameters& parameters, const Estimate& bounded,
                        const Monitor& monitor) {
  const int top = parameters.maxDimension;
  const double budget = parameters.memoryBudget;
  if (!(bounded.bytes[std::size_t(top)] > budget))
    return;
  const Estimate estimate =
      bounded.exactUpTo >= std::min(2, top + 1)
          ? bounded
          : estimateAt(input, lower, parameters, bounded.storedThreshold,
                       bounded.storedRadius, monitor, true);
  const double needed = estimate.bytes[std::size_t(top)];
  if (!(needed > budget))
    return;
  // The suggestions fit with every simplex of dimensions >= 2 counted as a column.
  int fits = -1;
  for (int D = top - 1; D >= 0 && fits < 0; --D) {
    if (estimate.maxBytes[std::size_t(D)] <= budget)
      fits = D;
  }
  std::string message = "Rips persistence up to dimension " + std::to_string(top) +
                        " would need about " + byteSize(needed) + " of memory (" +
                        describeSimplices(estimate, top) +
                        "), more than the memory budget of " + byteSize(budget) + "; ";
  if (fits >= 0)
    message += "at this threshold dimension " + std::to_string(fits) + " fits (at most " +
               byteSize(estimate.maxBytes[std::size_t(fits)]) + ")";
  else
    message += "no dimension fits at this threshold";
  const double t =
      largestThreshold(input, parameters, estimate, budget, kInfinity, monitor);
  if (t > 0)
    message += ", and dimension " + std::to_string(top) +
               " fits with a threshold of at most " + thresholdText(t);
  else
    message += ", and no threshold lets dimension " + std::to_string(top) + " fit";
  throw Error(message);
}

} // namespace detail

Estimate estimate(const RipsInput& input, const Parameters& parameters,
                  const Monitor& monitor, bool exactTriangles) {
  detail::validate(input, parameters);
  const SimplexId n = input.numberOfPoints;
  const bool cloud = input.format == InputFormat::PointCloud;
  const Monitor first = monitor.stage(0, 0.5);
  const float radius =
      input.format == InputFormat::Sparse ? detail::sparseEnclosingRadius(n, input.edges)
      : cloud                             ? detail::streamedEnclosingRadius(input, first)
              : detail::denseEnclosingRadius(n, input.lowerDistances, first);
  const bool dense = !cloud && input.format != InputFormat::Sparse;
  return detail::estimateAt(input, dense ? &input.lowerDistances : nullptr, parameters,
                            detail::runThreshold(input, parameters.threshold, radius),
                            radius, monitor.stage(0.5, 1), exactTriangles);
}

double largestThreshold(const RipsInput& input, const Parameters& parameters,
                        const Estimate& estimate, double maxBytes, double maxTopSimplices,
                        const Monitor& monitor, bool exact) {
  const SimplexId n = input.numberOfPoints;
  const int top = parameters.maxDimension;
  const auto fits = [&](const std::vector<double>& c) {
    return runBytes(input, c, top, sparsePath(input, parameters, c[1]), true) <=
               maxBytes &&
           c[std::size_t(top) + 1] <= maxTopSimplices;
  };
  if (fits(estimate.simplices))
    return estimate.threshold;
  const float t = estimate.storedThreshold;
  if (!(t > 0) || !std::isfinite(t))
    return 0;
  // Per point, its lower neighbours by steps of t / steps (at most 64 MiB of counts).
  const std::size_t steps = std::size_t(std::clamp<double>(
      double(std::size_t(16) << 20) / double(std::max<SimplexId>(n, 1)), 8.0, 256.0));
  std::vector<std::uint32_t> counts(std::size_t(n) * steps, 0);
  const bool dense =
      input.format != InputFormat::PointCloud && input.format != InputFormat::Sparse;
  const std::vector<float>* lower = dense ? &input.lowerDistances : nullptr;
  pairsUnder(input, lower, t, monitor, [&](SimplexId i, SimplexId, float d) {
    // step s holds (t s / steps, t (s + 1) / steps]
    const double position = std::ceil(double(d) / double(t) * double(steps));
    const std::size_t s =
        std::size_t(std::clamp<double>(position - 1, 0.0, double(steps - 1)));
    ++counts[std::size_t(i) * steps + s];
  });
  for (SimplexId v = 0; v < n; ++v) {
    std::uint32_t* row = counts.data() + std::size_t(v) * steps;
    for (std::size_t s = 1; s < steps; ++s)
      row[s] += row[s - 1];
  }
  const auto stepThreshold = [&](std::size_t s) {
    return float(double(t) * double(s + 1) / double(steps));
  };
  // An exact estimate at a step's end (the triangles counted, a distance on the edge of
  // a step rounded into the right one).
  const auto fitsAt = [&](float candidate) {
    return fits(detail::estimateAt(input, lower, parameters, candidate,
                                   estimate.storedRadius, monitor, exact)
                    .simplices);
  };
  // The largest step whose bounds fit (the bounds only grow with the threshold)...
  std::vector<std::uint32_t> degree(static_cast<std::size_t>(n));
  std::size_t found = steps; // none
  for (std::size_t s = steps - 1; s-- > 0;) {
    monitor.checkAbort();
    for (SimplexId v = 0; v < n; ++v)
      degree[std::size_t(v)] = counts[std::size_t(v) * steps + s];
    if (fits(simplexBounds(degree, top + 1)) && fitsAt(stepThreshold(s))) {
      found = s;
      break;
    }
  }
  // In the input's units (the stored float times 2^s: exact, and back again).
  const auto inInputUnits = [&](float stored) {
    return std::ldexp(double(stored), input.scaleExponent);
  };
  if (!exact)
    return found == steps ? 0.0 : inInputUnits(stepThreshold(found));
  // ... then the largest above it that fits by exact estimates (bisection: fewer
  // triangles than the bound say may leave room for more).
  std::size_t lo = found == steps ? 0 : found, hi = steps - 1;
  if (found == steps && !fitsAt(stepThreshold(0)))
    return 0;
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (fitsAt(stepThreshold(mid)) ? lo : hi) = mid;
  }
  return inInputUnits(stepThreshold(lo));
}

} // namespace topogpu::rips_persistence
