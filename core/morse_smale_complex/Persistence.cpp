#include "Persistence.h"

#include "core/common/VertexOrder.h"
#include "core/morse_smale_complex/CellValues.h"
#include "core/morse_smale_complex/GradientForest.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <numeric>
#include <queue>
#include <string>
#include <utility>

namespace topogpu::morse_smale_complex {

namespace {

SimplexId indexIn(const std::vector<SimplexId>& sorted, SimplexId value) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), value);
  return it != sorted.end() && *it == value ? SimplexId(it - sorted.begin()) : -1;
}

// A saddle joining two extremum nodes (equal when both paths reach one extremum).
// Sweep keys: ranks in dimension 0, negated ranks in the dual (a sweep from +inf down);
// ties (several critical cells share their highest vertex) are broken by the refined
// id, negated in the dual, so that both sweeps follow one total order of the cells and
// in 2D no 1-saddle is cancelled twice.
struct Edge {
  SimplexId key = 0, tie = 0;
  SimplexId a = -1, b = -1;
};

struct Node {
  SimplexId key = 0, tie = 0;
  bool olderThan(const Node& o) const { return key != o.key ? key < o.key : tie < o.tie; }
};

struct Cancellation {
  SimplexId edge, node; // the saddle (index in edges) and the extremum it removes
};

// Cancels saddles with extremum nodes, lowest persistence key(saddle) - key(younger
// extremum) first (then the saddle met first by the sweep), where the younger of two
// nodes is the one met later by the sweep; the younger node merges into the older (a
// union-find), which is the rerouting of its arcs. Merges only make a saddle's younger
// end older, so a queued persistence can only grow: entries are re-validated when popped
// (lazy) and pushed again when stale.
std::vector<Cancellation> cancelInOrder(const std::vector<Node>& nodes,
                                        const std::vector<Edge>& edges) {
  std::vector<SimplexId> parent(nodes.size());
  std::iota(parent.begin(), parent.end(), SimplexId(0));
  auto find = [&](SimplexId x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  struct Entry {
    SimplexId persistence, key, tie, edge;
    bool operator>(const Entry& o) const {
      if (persistence != o.persistence)
        return persistence > o.persistence;
      if (key != o.key)
        return key > o.key;
      return tie > o.tie;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  auto younger = [&](SimplexId x, SimplexId y) {
    return nodes[x].olderThan(nodes[y]) ? y : x;
  };
  for (SimplexId i = 0; i < SimplexId(edges.size()); ++i) {
    const Edge& e = edges[i];
    if (e.a != e.b)
      queue.push({e.key - nodes[younger(e.a, e.b)].key, e.key, e.tie, i});
  }
  std::vector<Cancellation> cancelled;
  while (!queue.empty()) {
    const Entry top = queue.top();
    queue.pop();
    const Edge& e = edges[top.edge];
    const SimplexId ra = find(e.a), rb = find(e.b);
    if (ra == rb)
      continue; // both paths now reach one extremum: never cancellable again
    const SimplexId y = younger(ra, rb);
    const SimplexId persistence = e.key - nodes[y].key;
    if (persistence != top.persistence) {
      queue.push({persistence, top.key, top.tie, top.edge});
      continue;
    }
    parent[y] = y == ra ? rb : ra;
    cancelled.push_back({top.edge, y});
  }
  return cancelled;
}

// The H1 pairs (index of the 1-saddle, index of the 2-saddle, in the critical cell
// lists) by the standard reduction of the Morse boundary over Z/2: columns in filtration
// order, each reduced by the earlier column owning its lowest (latest) row. rowPosition,
// columnPosition: each cell's position in the filtration order.
std::vector<std::pair<SimplexId, SimplexId>>
reduceSaddleBoundary(const saddle_connections::SaddleConnections& connections,
                     const std::vector<SimplexId>& saddles1,
                     const std::vector<SimplexId>& saddles2,
                     const std::vector<SimplexId>& rowPosition,
                     const std::vector<SimplexId>& columnPosition) {
  const std::size_t n1 = saddles1.size(), n2 = saddles2.size();
  std::vector<SimplexId> rowAt(n1), columnAt(n2);
  for (std::size_t r = 0; r < n1; ++r)
    rowAt[std::size_t(rowPosition[r])] = SimplexId(r);
  for (std::size_t c = 0; c < n2; ++c)
    columnAt[std::size_t(columnPosition[c])] = SimplexId(c);
  // Columns by position, entries as row positions: a column's pivot is its largest.
  std::vector<std::vector<SimplexId>> column(n2);
  for (const saddle_connections::Arc& arc : connections.arcs) {
    if (arc.multiplicity % 2 == 0)
      continue; // an even number of V-paths cancels over Z/2
    const SimplexId r = indexIn(saddles1, arc.saddle1),
                    c = indexIn(saddles2, arc.saddle2);
    if (r < 0 || c < 0)
      throw Error("persistence pairs: a saddle connection ends at a cell that is not "
                  "critical");
    column[std::size_t(columnPosition[std::size_t(c)])].push_back(
        rowPosition[std::size_t(r)]);
  }
  std::vector<SimplexId> pivotColumn(n1, -1), sum;
  std::vector<std::pair<SimplexId, SimplexId>> pairs;
  for (std::size_t j = 0; j < n2; ++j) {
    std::vector<SimplexId>& col = column[j];
    std::sort(col.begin(), col.end());
    while (!col.empty() && pivotColumn[std::size_t(col.back())] >= 0) {
      const std::vector<SimplexId>& other =
          column[std::size_t(pivotColumn[std::size_t(col.back())])];
      sum.clear();
      std::set_symmetric_difference(col.begin(), col.end(), other.begin(), other.end(),
                                    std::back_inserter(sum));
      col.swap(sum);
    }
    if (col.empty())
      continue; // a positive 2-saddle: it creates an H2 class
    pivotColumn[std::size_t(col.back())] = SimplexId(j);
    pairs.emplace_back(rowAt[std::size_t(col.back())], columnAt[j]);
  }
  return pairs;
}

// Each cell's position in the order (rank of its highest vertex, refined id).
std::vector<SimplexId> filtrationPositions(const cubical::Grid& g,
                                           const std::vector<SimplexId>& cells,
                                           const SimplexId* rank) {
  std::vector<std::pair<SimplexId, SimplexId>> keyed(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i)
    keyed[i] = {rank[highestVertex(g, cells[i], rank)], cells[i]};
  std::vector<SimplexId> order(cells.size());
  std::iota(order.begin(), order.end(), SimplexId(0));
  std::sort(order.begin(), order.end(), [&](SimplexId a, SimplexId b) {
    return keyed[std::size_t(a)] < keyed[std::size_t(b)];
  });
  std::vector<SimplexId> position(cells.size());
  for (std::size_t p = 0; p < order.size(); ++p)
    position[std::size_t(order[p])] = SimplexId(p);
  return position;
}

// Dimension 0's graph: an edge per 1-saddle joining the minima its two descending
// arcs reach (the arcs as they are: descending paths never leave the box), keyed by the
// saddle's rank.
std::vector<Edge> saddleMinimumEdges(const Output& complex, const SimplexId* rank) {
  const cubical::Grid& g = complex.gradient.grid;
  const std::vector<SimplexId>& minima = complex.gradient.criticalCells[0];
  const std::vector<SimplexId>& saddles1 = complex.gradient.criticalCells[1];
  std::vector<Edge> edges(saddles1.size());
  for (std::size_t i = 0; i < saddles1.size(); ++i) {
    edges[i].tie = saddles1[i];
    edges[i].key = rank[highestVertex(g, saddles1[i], rank)];
  }
  for (const Arc& arc : complex.saddle1Minimum) {
    const SimplexId s = indexIn(saddles1, arc.saddle), m = indexIn(minima, arc.extremum);
    if (s < 0 || m < 0)
      throw Error("persistence pairs: an arc ends at a cell that is not critical");
    Edge& e = edges[std::size_t(s)];
    (e.a < 0 ? e.a : e.b) = m;
    if (arc.multiplicity == 2)
      e.b = m;
  }
  for (const Edge& e : edges)
    if (e.a < 0 || e.b < 0)
      throw Error("persistence pairs: a 1-saddle without its two arcs to minima");
  return edges;
}

// Dimension d-1's graph: an edge per (d-1)-saddle joining the maxima its two ascending
// paths reach (index maxima.size(): the virtual maximum outside the box), keyed by the
// saddle's rank negated, so that the cancellation runs from the top.
std::vector<Edge> saddleMaximumEdges(const discrete_gradient::Output& dg,
                                     const SimplexId* rank) {
  const cubical::Grid& g = dg.grid;
  const int d = g.dimension;
  const std::vector<SimplexId>& saddlesTop = dg.criticalCells[d - 1];
  const std::vector<SimplexId>& maxima = dg.criticalCells[d];
  const SimplexId outside = SimplexId(maxima.size());
  const SimplexId nTop = cubical::topCellCount(g);
  const std::uint8_t* gradient = dg.gradient.data();
  std::vector<SimplexId> root(std::size_t(nTop), -1), path;
  auto rootOf = [&](SimplexId t) {
    path.clear();
    SimplexId r = -1;
    while (root[t] < 0) {
      path.push_back(t);
      const SimplexId next = cubical::topCellSuccessor(g, gradient, t);
      if (next == t) {
        r = indexIn(maxima, cubical::topCellOf(g, t));
        break;
      }
      if (next < 0) {
        r = outside;
        break;
      }
      t = next;
    }
    if (r < 0)
      r = root[t];
    for (const SimplexId p : path)
      root[p] = r;
    return r;
  };
  std::vector<Edge> edges(saddlesTop.size());
  for (std::size_t i = 0; i < saddlesTop.size(); ++i) {
    Edge& e = edges[i];
    e.tie = -saddlesTop[i];
    e.key = -rank[highestVertex(g, saddlesTop[i], rank)];
    SimplexId c[3];
    cubical::cellCoords(g, saddlesTop[i], c);
    const int a = cubical::unspannedAxis(g, c);
    SimplexId side[2];
    for (int k = 0; k < 2; ++k) {
      SimplexId p[3] = {c[0], c[1], c[2]};
      p[a] += k ? 1 : -1;
      side[k] = p[a] < 0 || p[a] >= cubical::refinedSize(g, a)
                    ? outside
                    : rootOf(cubical::topIndexAt(g, p));
    }
    e.a = side[0];
    e.b = side[1];
  }
  return edges;
}

} // namespace

void computePersistence(const Output& complex, const ScalarArrayView& values,
                        const SimplexId* rank, Persistence& persistence) {
  persistence = Persistence();
  const discrete_gradient::Output& dg = complex.gradient;
  const cubical::Grid& g = dg.grid;
  const SimplexId nVertices = g.n[0] * g.n[1] * g.n[2];
  if (values.size != nVertices || SimplexId(dg.gradient.size()) != cubical::cellCount(g))
    throw Error("persistence pairs: the complex (" + std::to_string(nVertices) +
                " vertices) and the field (" + std::to_string(values.size) +
                " values) do not match");
  if (g.dimension < 2)
    throw Error("persistence pairs need a 2D or 3D grid");
  const int d = g.dimension;
  const std::vector<SimplexId>& minima = dg.criticalCells[0];
  const std::vector<SimplexId>& saddles1 = dg.criticalCells[1];
  const std::vector<SimplexId>& saddlesTop = dg.criticalCells[d - 1];
  const std::vector<SimplexId>& maxima = dg.criticalCells[d];

  auto makePair = [&](int dimension, SimplexId birth, SimplexId death) {
    PersistencePair p;
    p.dimension = dimension;
    p.birth = birth;
    p.death = death;
    const SimplexId vb = highestVertex(g, birth, rank),
                    vd = highestVertex(g, death, rank);
    p.birthRank = rank[vb];
    p.deathRank = rank[vd];
    p.birthValue = valueAt(values, vb);
    p.deathValue = valueAt(values, vd);
    return p;
  };

  // In 2D the (d-1)-saddles are the 1-saddles: one flag array serves both pairings.
  std::vector<char> usedSaddle1(saddles1.size(), 0), usedSaddleTopOwn;
  std::vector<char>& usedSaddleTop = d == 2 ? usedSaddle1 : usedSaddleTopOwn;
  usedSaddleTop.resize(saddlesTop.size(), 0);

  // Dimension 0: the 1-saddle -> minimum arcs as they are (descending paths never leave
  // the box).
  {
    const std::vector<Edge> edges = saddleMinimumEdges(complex, rank);
    std::vector<Node> nodes(minima.size());
    for (std::size_t m = 0; m < minima.size(); ++m)
      nodes[m] = {rank[cubical::vertexOfCell(g, minima[m])], minima[m]};
    std::vector<char> usedMinimum(minima.size(), 0);
    for (const Cancellation& c : cancelInOrder(nodes, edges)) {
      usedSaddle1[std::size_t(c.edge)] = 1;
      usedMinimum[std::size_t(c.node)] = 1;
      persistence.pairs.push_back(
          makePair(0, minima[std::size_t(c.node)], saddles1[std::size_t(c.edge)]));
    }
    for (std::size_t m = 0; m < minima.size(); ++m)
      if (!usedMinimum[m])
        persistence.minima.push_back(minima[m]);
  }

  // Dimension d-1. The ascending paths are traced again here rather than read from the
  // saddle-maximum arcs: an arc records where a path that left the box ends on the
  // boundary surface (possibly the facet of a critical maximum), while for the
  // filtration of the box every exit is the same virtual maximum.
  {
    const SimplexId outside = SimplexId(maxima.size());
    const std::vector<Edge> edges = saddleMaximumEdges(dg, rank);
    std::vector<Node> nodes(maxima.size() + 1);
    for (std::size_t m = 0; m < maxima.size(); ++m)
      nodes[m] = {-rank[highestVertex(g, maxima[m], rank)], -maxima[m]};
    nodes[std::size_t(outside)] = {-nVertices - 1, 0}; // older than every maximum
    std::vector<char> usedMaximum(maxima.size(), 0);
    for (const Cancellation& c : cancelInOrder(nodes, edges)) {
      usedSaddleTop[std::size_t(c.edge)] = 1;
      usedMaximum[std::size_t(c.node)] = 1;
      persistence.pairs.push_back(
          makePair(d - 1, saddlesTop[std::size_t(c.edge)], maxima[std::size_t(c.node)]));
    }
    for (std::size_t m = 0; m < maxima.size(); ++m)
      if (!usedMaximum[m])
        persistence.maxima.push_back(maxima[m]);
  }
  // Dimension 1 (3D): the saddle-saddle pairs, when stage 3 gave the Morse boundary.
  if (d == 3 && complex.saddleConnectionsComputed) {
    persistence.saddlePairs = true;
    const auto pairs = reduceSaddleBoundary(
        complex.saddleConnections, saddles1, saddlesTop,
        filtrationPositions(g, saddles1, rank), filtrationPositions(g, saddlesTop, rank));
    for (const auto& [r, c] : pairs) {
      usedSaddle1[std::size_t(r)] = 1;
      usedSaddleTop[std::size_t(c)] = 1;
      const PersistencePair p =
          makePair(1, saddles1[std::size_t(r)], saddlesTop[std::size_t(c)]);
      if (p.deathRank > p.birthRank) // else zero persistence, inside one lower star
        persistence.pairs.push_back(p);
    }
  }
  for (std::size_t s = 0; s < saddles1.size(); ++s)
    if (!usedSaddle1[s])
      persistence.saddles1.push_back(saddles1[s]);
  if (d == 3)
    for (std::size_t s = 0; s < saddlesTop.size(); ++s)
      if (!usedSaddleTop[s])
        persistence.saddlesTop.push_back(saddlesTop[s]);
}

void computePersistence(const Output& complex, const ScalarArrayView& values,
                        Persistence& persistence) {
  std::vector<SimplexId> rank(std::size_t(values.size));
  computeVertexOrderCpu(values, rank.data());
  computePersistence(complex, values, rank.data(), persistence);
}

} // namespace topogpu::morse_smale_complex
