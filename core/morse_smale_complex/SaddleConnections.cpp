#include "SaddleConnections.h"

#include "base/Timer.h"
#include "core/common/Fallback.h"
#include "core/morse_smale_complex/SaddleConnectionsGpu.h"
#include "core/morse_smale_complex/SaddleConnectionsGraph.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace topogpu::saddle_connections {

namespace detail {

void throwMultiplicityOverflow() {
  throw Error("saddle-saddle multiplicity overflow: more than 2^64 - 1 V-paths between "
              "a 1-saddle and a junction or 2-saddle (the count is not representable "
              "in 64 bits)");
}

std::uint64_t checkedMultiplyAdd(std::uint64_t acc, std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(a, b, &product) ||
      __builtin_add_overflow(acc, product, &sum))
    throwMultiplicityOverflow();
  return sum;
}

std::uint64_t checkedAdd(std::uint64_t a, std::uint64_t b) {
  return checkedMultiplyAdd(a, b, 1);
}

namespace {

// Rows in parallel, in blocks: each block sorts and merges its rows' (column, value)
// lists into its own part, then the parts are copied at their prefix offsets. The result
// is the same for any thread count; allocations are per block, not per row.
template <typename RowFunction>
Csr byRows(SimplexId rows, SimplexId cols, RowFunction&& row) {
  constexpr SimplexId kBlock = 1024;
  const SimplexId blocks = (rows + kBlock - 1) / kBlock;
  struct Part {
    std::vector<SimplexId> columns;
    std::vector<std::uint64_t> values;
  };
  std::vector<Part> parts(static_cast<std::size_t>(blocks));
  Csr c;
  c.rows = rows;
  c.cols = cols;
  c.offsets.assign(std::size_t(rows) + 1, 0);
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    Part& part = parts[std::size_t(b)];
    std::vector<std::pair<SimplexId, std::uint64_t>> list;
    for (SimplexId i = b * kBlock; i < std::min(rows, (b + 1) * kBlock); ++i) {
      list.clear();
      row(i, list);
      std::sort(list.begin(), list.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
      const std::size_t first = part.columns.size();
      for (const auto& [column, value] : list) {
        if (part.columns.size() > first && part.columns.back() == column) {
          part.values.back() = checkedAdd(part.values.back(), value);
        } else {
          part.columns.push_back(column);
          part.values.push_back(value);
        }
      }
      c.offsets[std::size_t(i) + 1] = SimplexId(part.columns.size() - first);
    }
  });
  for (SimplexId i = 0; i < rows; ++i)
    c.offsets[std::size_t(i) + 1] += c.offsets[std::size_t(i)];
  c.columns.resize(std::size_t(c.offsets.back()));
  c.values.resize(std::size_t(c.offsets.back()));
  tbb::parallel_for(SimplexId(0), blocks, [&](SimplexId b) {
    const Part& part = parts[std::size_t(b)];
    const auto at = std::ptrdiff_t(c.offsets[std::size_t(b * kBlock)]);
    std::copy(part.columns.begin(), part.columns.end(), c.columns.begin() + at);
    std::copy(part.values.begin(), part.values.end(), c.values.begin() + at);
  });
  return c;
}

} // namespace

Csr multiply(const Csr& a, const Csr& b) {
  if (a.cols != b.rows)
    throw Error("internal error: sparse product of " + std::to_string(a.rows) + "x" +
                std::to_string(a.cols) + " and " + std::to_string(b.rows) + "x" +
                std::to_string(b.cols));
  return byRows(a.rows, b.cols, [&](SimplexId i, auto& list) {
    for (SimplexId p = a.offsets[i]; p < a.offsets[i + 1]; ++p) {
      const SimplexId k = a.columns[p];
      for (SimplexId q = b.offsets[k]; q < b.offsets[k + 1]; ++q)
        list.emplace_back(b.columns[q], checkedMultiplyAdd(0, a.values[p], b.values[q]));
    }
  });
}

Csr sum(const std::vector<Csr>& terms) {
  for (const Csr& t : terms)
    if (t.rows != terms[0].rows || t.cols != terms[0].cols)
      throw Error("internal error: sparse sum of mismatched matrices");
  return byRows(terms[0].rows, terms[0].cols, [&](SimplexId i, auto& list) {
    for (const Csr& t : terms)
      for (SimplexId p = t.offsets[i]; p < t.offsets[i + 1]; ++p)
        list.emplace_back(t.columns[p], t.values[p]);
  });
}

Csr add(const Csr& a, const Csr& b) {
  return sum({a, b});
}

Csr assemble(SimplexId rows, SimplexId cols, const std::vector<SimplexId>& r,
             const std::vector<SimplexId>& c, const std::vector<std::uint64_t>& v) {
  std::vector<SimplexId> start(std::size_t(rows) + 1, 0);
  for (SimplexId x : r)
    ++start[std::size_t(x) + 1];
  for (SimplexId i = 0; i < rows; ++i)
    start[std::size_t(i) + 1] += start[std::size_t(i)];
  std::vector<SimplexId> at(start.begin(), start.end() - 1);
  std::vector<std::pair<SimplexId, std::uint64_t>> bucket(r.size());
  for (std::size_t k = 0; k < r.size(); ++k)
    bucket[std::size_t(at[std::size_t(r[k])]++)] = {c[k], v[k]};
  return byRows(rows, cols, [&](SimplexId i, auto& list) {
    list.assign(bucket.begin() + start[i], bucket.begin() + start[i + 1]);
  });
}

void countPaths(const discrete_gradient::Output& gradient, Minor& minor,
                const Monitor& monitor, SaddleConnections& out) {
  // A* = A + A B + A B^2 + ...: every path from a 1-saddle to a junction, once per
  // length; ends because the minor is a DAG (a longer chain than there are junctions
  // means a cycle, i.e. a corrupt gradient).
  // The terms A B^k wait in `pending` and are summed into A* when they outweigh it, so
  // each entry is merged O(log) times instead of once per iteration (the same sum).
  Csr star;
  star.rows = minor.a.rows;
  star.cols = minor.a.cols;
  star.offsets.assign(std::size_t(star.rows) + 1, 0);
  std::vector<Csr> pending;
  SimplexId pendingNnz = 0;
  const auto flush = [&] {
    pending.push_back(std::move(star));
    star = sum(pending);
    pending.clear();
    pendingNnz = 0;
  };
  Csr frontier = std::move(minor.a);
  int iterations = 0;
  while (frontier.nnz() > 0) {
    if (iterations > minor.junctions + 1)
      throw Error("the discrete gradient has a closed V-path between saddles (it is not "
                  "a valid gradient)");
    Csr next = multiply(frontier, minor.b);
    pendingNnz += frontier.nnz();
    pending.push_back(std::move(frontier));
    if (pendingNnz > std::max<SimplexId>(star.nnz(), 1 << 16))
      flush();
    frontier = std::move(next);
    ++iterations;
    monitor.checkAbort();
  }
  flush();
  const Csr counts = add(multiply(star, minor.bStar), minor.d);
  out.productIterations = iterations;
  out.arcs.clear();
  out.arcs.reserve(std::size_t(counts.nnz()));
  std::uint64_t sum = 0;
  for (SimplexId i = 0; i < counts.rows; ++i) {
    for (SimplexId p = counts.offsets[i]; p < counts.offsets[i + 1]; ++p) {
      out.arcs.push_back({gradient.criticalCells[1][std::size_t(i)],
                          gradient.criticalCells[2][std::size_t(counts.columns[p])],
                          counts.values[p]});
      sum = checkedAdd(sum, counts.values[p]);
    }
  }
  out.multiplicitySum = sum;
}

void sumMultiplicities(SaddleConnections& out) {
  out.multiplicitySum = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, out.arcs.size()), std::uint64_t(0),
      [&](const tbb::blocked_range<std::size_t>& range, std::uint64_t sum) {
        for (std::size_t k = range.begin(); k < range.end(); ++k)
          sum = checkedAdd(sum, out.arcs[k].multiplicity);
        return sum;
      },
      [](std::uint64_t a, std::uint64_t b) { return checkedAdd(a, b); });
}

void runCpu(const discrete_gradient::Output& gradient, const Monitor& monitor,
            SaddleConnections& out, RunReport& report) {
  const cubical::Grid g = gradient.grid;
  const std::uint8_t* grad = gradient.gradient.data();
  const auto& saddles1 = gradient.criticalCells[1];
  const auto& saddles2 = gradient.criticalCells[2];
  const SimplexId cells = cubical::cellCount(g);
  Timer timer;

  // Reachability: frontier BFS from all 1-saddles; each frontier node writes its <= 4
  // successors to its own slots, a claimed flag keeps the first of duplicates, and the
  // next frontier is the compacted slots (the GPU's scheme).
  constexpr std::uint8_t kReached = 1, kJunction = 2;
  std::vector<std::uint8_t> mark(std::size_t(cells), 0);
  for (SimplexId s : saddles1)
    mark[std::size_t(s)] = kReached;
  std::vector<SimplexId> frontier(saddles1), slots;
  std::vector<SimplexId> reached(saddles1);
  while (!frontier.empty()) {
    slots.assign(frontier.size() * graph::kMaxOutDegree, -1);
    tbb::parallel_for(std::size_t(0), frontier.size(), [&](std::size_t i) {
      SimplexId next[graph::kMaxOutDegree];
      const int n = graph::successors(g, grad, frontier[i], next);
      for (int k = 0; k < n; ++k) {
        if (grad[next[k]] == cubical::kCritical)
          continue; // a 2-saddle ends the traversal
        if (__atomic_exchange_n(&mark[std::size_t(next[k])], kReached,
                                __ATOMIC_RELAXED) == 0)
          slots[i * graph::kMaxOutDegree + std::size_t(k)] = next[k];
      }
    });
    frontier.clear();
    std::copy_if(slots.begin(), slots.end(), std::back_inserter(frontier),
                 [](SimplexId x) { return x >= 0; });
    reached.insert(reached.end(), frontier.begin(), frontier.end());
    monitor.checkAbort();
  }
  std::sort(reached.begin(), reached.end());
  report.timings.emplace_back("saddle reachability (cpu)", timer.seconds());
  monitor.report(0.3);

  // Junctions: reached paired edges with more than one successor.
  timer.reset();
  std::vector<std::uint8_t> isJunction(reached.size(), 0);
  tbb::parallel_for(std::size_t(0), reached.size(), [&](std::size_t i) {
    SimplexId next[graph::kMaxOutDegree];
    isJunction[i] = grad[reached[i]] != cubical::kCritical &&
                    graph::successors(g, grad, reached[i], next) > 1;
  });
  std::vector<SimplexId> junctions;
  for (std::size_t i = 0; i < reached.size(); ++i) {
    if (isJunction[i]) {
      junctions.push_back(reached[i]);
      mark[std::size_t(reached[i])] = kJunction;
    }
  }

  // The minor: every simple path from a 1-saddle or a junction, one successor each,
  // followed until a junction or a 2-saddle (or dropped at a dead end).
  const SimplexId n1 = SimplexId(saddles1.size()), nJ = SimplexId(junctions.size());
  const SimplexId sources = n1 + nJ;
  std::vector<SimplexId> target(std::size_t(sources) * graph::kMaxOutDegree, -1);
  tbb::parallel_for(SimplexId(0), sources, [&](SimplexId s) {
    const SimplexId from =
        s < n1 ? saddles1[std::size_t(s)] : junctions[std::size_t(s - n1)];
    SimplexId next[graph::kMaxOutDegree];
    const int n = graph::successors(g, grad, from, next);
    for (int k = 0; k < n; ++k) {
      SimplexId node = next[k];
      for (SimplexId steps = 0;; ++steps) {
        if (grad[node] == cubical::kCritical || mark[std::size_t(node)] == kJunction)
          break;
        if (steps > cells)
          throw Error("the discrete gradient has a closed V-path (it is not a valid "
                      "gradient)");
        SimplexId after[graph::kMaxOutDegree];
        if (graph::successors(g, grad, node, after) == 0) {
          node = -1; // the V-path leaves through a voxel pair
          break;
        }
        node = after[0];
      }
      target[std::size_t(s) * graph::kMaxOutDegree + std::size_t(k)] = node;
    }
  });
  Minor minor;
  std::vector<SimplexId> r[4], c[4];
  std::vector<std::uint64_t> v[4];
  for (SimplexId s = 0; s < sources; ++s) {
    for (int k = 0; k < graph::kMaxOutDegree; ++k) {
      const SimplexId t = target[std::size_t(s) * graph::kMaxOutDegree + std::size_t(k)];
      if (t < 0)
        continue;
      const bool toSaddle = grad[t] == cubical::kCritical;
      const auto& list = toSaddle ? saddles2 : junctions;
      const SimplexId col =
          SimplexId(std::lower_bound(list.begin(), list.end(), t) - list.begin());
      // 0: A (1s-j), 1: B (j-j), 2: B* (j-2s), 3: D (1s-2s)
      const int m = s < n1 ? (toSaddle ? 3 : 0) : (toSaddle ? 2 : 1);
      r[m].push_back(s < n1 ? s : s - n1);
      c[m].push_back(col);
      v[m].push_back(1);
      ++minor.edges;
    }
  }
  const SimplexId n2 = SimplexId(saddles2.size());
  minor.a = assemble(n1, nJ, r[0], c[0], v[0]);
  minor.b = assemble(nJ, nJ, r[1], c[1], v[1]);
  minor.bStar = assemble(nJ, n2, r[2], c[2], v[2]);
  minor.d = assemble(n1, n2, r[3], c[3], v[3]);
  minor.reachable = SimplexId(reached.size());
  minor.junctions = nJ;
  // Only the minor is needed from here: the traversal's arrays go before the products
  // (which set the stage's peak memory).
  const auto release = [](auto&... arrays) {
    ((std::remove_reference_t<decltype(arrays)>().swap(arrays)), ...);
  };
  release(mark, frontier, slots, reached, isJunction, junctions, target);
  for (int m = 0; m < 4; ++m)
    release(r[m], c[m], v[m]);
  report.timings.emplace_back("saddle DAG minor (cpu)", timer.seconds());
  monitor.report(0.5);
  monitor.checkAbort();

  timer.reset();
  out.reachableNodes = minor.reachable;
  out.junctionNodes = minor.junctions;
  out.minorEdges = minor.edges;
  countPaths(gradient, minor, monitor, out);
  report.timings.emplace_back("saddle path counting (cpu)", timer.seconds());
}

} // namespace detail

std::size_t deviceBytes(const discrete_gradient::Output& gradient) {
  const std::size_t cells = std::size_t(cubical::cellCount(gradient.grid));
  const std::size_t saddles =
      gradient.criticalCells[1].size() + gradient.criticalCells[2].size();
  // gradient and mark bytes per cell, and the frontier slots of the largest frontier
  // (bounded by the edges) as a rough upper share
  return cells * 2 + (cells / 3 + saddles) * graph::kMaxOutDegree * sizeof(SimplexId);
}

void compute(const discrete_gradient::Output& gradient, Backend resolved,
             const Monitor& monitor, SaddleConnections& out, RunReport& report) {
  out.clear();
  const auto& grid = gradient.grid;
  if (grid.dimension < 3 || gradient.criticalCells[1].empty() ||
      gradient.criticalCells[2].empty()) {
    monitor.report(1.0);
    return; // 2D (no saddle-saddle stage) or nothing to connect
  }
  if (gradient.gradient.size() != std::size_t(cubical::cellCount(grid)))
    throw Error("saddle connections: the gradient has " +
                std::to_string(gradient.gradient.size()) + " bytes but the grid has " +
                std::to_string(cubical::cellCount(grid)) + " cells");
  runWithFallback(
      resolved, "saddle connections", report,
      [&] {
        gpu::computeSaddleConnections(grid, gradient.gradient, gradient.criticalCells[1],
                                      gradient.criticalCells[2], monitor, out, report);
      },
      [&] {
        out.clear();
        detail::runCpu(gradient, monitor, out, report);
      });
  monitor.report(1.0);
}

std::vector<SimplexId> tracePath(const discrete_gradient::Output& gradient,
                                 const Arc& arc) {
  const cubical::Grid g = gradient.grid;
  const std::uint8_t* grad = gradient.gradient.data();
  if (g.dimension < 3)
    return {};
  // Depth-first upward from the 1-saddle; the DAG is acyclic and each node is expanded
  // once, so this is linear in the reachable part.
  std::unordered_map<SimplexId, SimplexId> parent{{arc.saddle1, -1}};
  std::vector<SimplexId> stack{arc.saddle1};
  bool found = false;
  while (!stack.empty() && !found) {
    const SimplexId node = stack.back();
    stack.pop_back();
    SimplexId next[graph::kMaxOutDegree];
    const int n = graph::successors(g, grad, node, next);
    for (int k = 0; k < n && !found; ++k) {
      const bool saddle = grad[next[k]] == cubical::kCritical;
      if (saddle && next[k] != arc.saddle2)
        continue;
      if (!parent.emplace(next[k], node).second)
        continue;
      if (saddle)
        found = true;
      else
        stack.push_back(next[k]);
    }
  }
  if (!found)
    return {};
  // Downward: the 2-saddle, then each edge followed by the quad it is paired with (a
  // cofacet of the next edge), down to the 1-saddle.
  std::vector<SimplexId> path{arc.saddle2};
  for (SimplexId node = parent[arc.saddle2]; node >= 0; node = parent[node]) {
    path.push_back(node);
    if (node != arc.saddle1) {
      SimplexId c[3];
      cubical::cellCoords(g, node, c);
      c[cubical::codeAxis(grad[node])] += cubical::codeSign(grad[node]);
      path.push_back(cubical::cellAt(g, c));
    }
  }
  return path;
}

} // namespace topogpu::saddle_connections
