// The dimensions of a run: dimension 0 by union-find over the edges, then each
// dimension >= 1 in turn, its columns built by a ColumnBuilder (the GPU's) when one
// takes it, else by the CPU engine, and reduced by the CPU engine.
#pragma once

#include "RipsCombinatorics.h"
#include "RipsFiltration.h"
#include "RipsPersistence.h"

#include "base/Types.h"

#include <cstddef>
#include <vector>

namespace topogpu::rips_persistence::detail {

// Dimension 0: Kruskal over the edges in filtration order. The edges that join two
// components are the deaths (and are cleared from dimension 1); the others, youngest
// first, are the columns of dimension 1.
void dimensionZero(SimplexId n, const BinomialTable& binomial, std::vector<Entry>& edges,
                   std::vector<Interval>& intervals, DimensionStats& stats,
                   std::vector<Entry>& columns, const Monitor& monitor);

// Dimensions 1 to maxDimension over a graph (DenseGraph or SparseGraph, RipsGraphs.h):
// `edges` (every edge under the threshold, taken) are the simplices of dimension 1 and
// `columns` dimension 0's columns of dimension 1; builder: the device's, or null.
// columnLimit: the columns of a dimension >= 2 that fit the memory budget.
template <class Graph>
void higherDimensions(const Graph& graph, const BinomialTable& binomial, float threshold,
                      int maxDimension, std::vector<Entry>& edges,
                      std::vector<Entry>& columns, ColumnBuilder* builder,
                      const Monitor& monitor, Result& result, RunReport& report,
                      const Parameters& parameters, std::size_t columnLimit);

} // namespace topogpu::rips_persistence::detail
