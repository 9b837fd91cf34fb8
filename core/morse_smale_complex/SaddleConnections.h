// Stage 3 of the grid Morse-Smale complex: the 1-saddle to 2-saddle arcs and
// their multiplicities (the number of distinct V-paths), by section 3 of Subhash,
// Pandey and Natarajan, "GPU parallel computation of Morse-Smale complexes" (2020):
// reachability by a frontier BFS from all 1-saddles over the DAG of (edge, quad)
// gradient pairs (SaddleConnectionsGraph.h), the DAG minor whose nodes are 1-saddles,
// 2-saddles and junction nodes (out-degree > 1) by contracting simple paths, and path
// counting by iterated sparse products: A* = sum_k A B^k, then A* B* + D. CPU: TBB and
// a small CSR SpGEMM; GPU: Thrust stream compaction and cuSPARSE SpGEMM. Multiplicities
// are exact unsigned 64-bit integers; an overflow is an Error, never wrapped. 2D grids
// have no saddle-saddle stage (empty result). See docs/saddle-connections.md.
#pragma once

#include "base/Types.h"
#include "core/discrete_gradient/DiscreteGradient.h"

#include <cstdint>
#include <vector>

namespace topogpu::saddle_connections {

struct Arc {
  SimplexId saddle1;          // refined id of the critical edge
  SimplexId saddle2;          // refined id of the critical quad
  std::uint64_t multiplicity; // V-paths from saddle2 down to saddle1 (>= 1)
  bool operator==(const Arc& o) const {
    return saddle1 == o.saddle1 && saddle2 == o.saddle2 && multiplicity == o.multiplicity;
  }
};

struct SaddleConnections {
  std::vector<Arc> arcs; // sorted by (saddle1, saddle2)
  std::uint64_t multiplicitySum = 0;
  SimplexId reachableNodes = 0; // edges reached by the BFS, 1-saddles included
  SimplexId junctionNodes = 0;
  SimplexId minorEdges = 0; // edges of the DAG minor, with multiplicity merged
  int productIterations = 0;

  void clear() { *this = SaddleConnections(); }
};

// Arcs of gradient (a complete discrete_gradient::Output) on `resolved` (Cpu or Gpu, from
// resolveBackend); a GPU failure reruns on the CPU with a warning (runWithFallback).
// Timings and warnings go to report. Throws Error on a multiplicity overflow (more than
// 2^64 - 1 V-paths between one pair, or in their sum) or a corrupt gradient (a cycle),
// Aborted on abort.
void compute(const discrete_gradient::Output& gradient, Backend resolved,
             const Monitor& monitor, SaddleConnections& out, RunReport& report);

// One V-path of arc (the cells from arc.saddle2 down to arc.saddle1, both included:
// quad, edge, quad, ..., edge), for drawing a separatrix; empty when none exists.
std::vector<SimplexId> tracePath(const discrete_gradient::Output& gradient,
                                 const Arc& arc);

// Device memory the GPU path needs at least (the gradient bytes and the BFS arrays).
std::size_t deviceBytes(const discrete_gradient::Output& gradient);

namespace detail {

// A sparse matrix of path counts in CSR form.
struct Csr {
  SimplexId rows = 0, cols = 0;
  std::vector<SimplexId> offsets{0}; // rows + 1
  std::vector<SimplexId> columns;
  std::vector<std::uint64_t> values;
  SimplexId nnz() const { return SimplexId(columns.size()); }
};

// The Error of a count beyond 2^64 - 1 (CPU and GPU paths).
[[noreturn]] void throwMultiplicityOverflow();

// Checked a * b + acc (all unsigned 64-bit); throws Error naming the overflow.
std::uint64_t checkedMultiplyAdd(std::uint64_t acc, std::uint64_t a, std::uint64_t b);
std::uint64_t checkedAdd(std::uint64_t a, std::uint64_t b);

// C = A x B and C = A + B with checked arithmetic, rows in parallel (TBB); columns of
// each row ascending, no explicit zeros.
Csr multiply(const Csr& a, const Csr& b);
Csr add(const Csr& a, const Csr& b);
Csr sum(const std::vector<Csr>& terms); // at least one term

// The DAG minor as coordinate lists (source, target, paths) before assembly; the four
// matrices of the paper. Sources and targets are indices: 1-saddles and 2-saddles by
// their position in criticalCells[1] / [2], junctions by their position in the
// ascending list of junction edges.
struct Minor {
  Csr a;     // 1-saddle -> junction
  Csr b;     // junction -> junction
  Csr bStar; // junction -> 2-saddle
  Csr d;     // 1-saddle -> 2-saddle
  SimplexId reachable = 0, junctions = 0, edges = 0;
};

// The CPU path (TBB): BFS, minor, products.
void runCpu(const discrete_gradient::Output& gradient, const Monitor& monitor,
            SaddleConnections& out, RunReport& report);

// Counts from the minor: A* = sum_k A B^k, then A* B* + D (checked), into out.arcs.
void countPaths(const discrete_gradient::Output& gradient, Minor& minor,
                const Monitor& monitor, SaddleConnections& out);

// out.multiplicitySum from out.arcs, checked (an overflow is an Error).
void sumMultiplicities(SaddleConnections& out);

// Coordinate triples (row, col, value) to CSR, duplicates summed (checked).
Csr assemble(SimplexId rows, SimplexId cols, const std::vector<SimplexId>& r,
             const std::vector<SimplexId>& c, const std::vector<std::uint64_t>& v);

} // namespace detail

} // namespace topogpu::saddle_connections
