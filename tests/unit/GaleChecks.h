// GALE against the explicit backend on the same cells: every relation of every simplex
// compared as a multiset of vertex tuples (edge and triangle ids differ between the
// two; vertex and cell ids do not), the counts, the boundary flags and the lookups.
// Linear in the mesh size, so it runs on the shared tet meshes too.
#pragma once

#include "TriangulationChecks.h"

#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace topogpu::test {

// Id of the explicit simplex with these (sorted) vertices.
inline SimplexId explicitIdOf(const ExplicitTriangulation& e, int d, const Tuple& t) {
  switch (d) {
  case 0:
    return t[0];
  case 1:
    return e.findEdge(t[0], t[1]);
  case 2:
    return e.findTriangle(t[0], t[1], t[2]);
  default:
    return -2; // cells keep their ids in both backends
  }
}

// Both preconditioned with AllRelations by the caller. At most a few failures per
// relation are reported.
inline void compareWithExplicit(const GaleTriangulation& g,
                                const ExplicitTriangulation& e, const std::string& what) {
  SCOPED_TRACE(what);
  const int dim = e.getDimension();
  ASSERT_EQ(g.getDimension(), dim);
  for (int d = 0; d <= 3; ++d)
    ASSERT_EQ(countOf(g, d), countOf(e, d)) << "number of " << kDimName[d];
  ASSERT_EQ(g.getNumberOfCells(), e.getNumberOfCells());
  for (SimplexId c = 0; c < g.getNumberOfCells(); ++c)
    for (int i = 0; i <= dim; ++i)
      ASSERT_EQ(g.getCellVertex(c, i), e.getCellVertex(c, i)) << "cell " << c;
  // GALE id -> explicit id, per dimension (a bijection: ids are checked distinct).
  std::vector<std::vector<SimplexId>> toExplicit(4);
  for (int d = 1; d <= dim; ++d) {
    const SimplexId n = countOf(g, d);
    toExplicit[d].resize(n);
    std::vector<char> taken(n, 0);
    for (SimplexId id = 0; id < n; ++id) {
      const Tuple t = verticesOf(g, d, id);
      const SimplexId x = d == dim ? id : explicitIdOf(e, d, t);
      ASSERT_GE(x, 0) << kDimName[d] << id << " " << str(t) << " is no simplex";
      ASSERT_EQ(verticesOf(e, d, x), t) << kDimName[d] << id;
      ASSERT_FALSE(taken[x]) << kDimName[d] << id << " " << str(t) << " twice";
      taken[x] = 1;
      toExplicit[d][id] = x;
      if (d == 1) {
        ASSERT_EQ(g.findEdge(t[1], t[0]), id) << str(t);
      } else if (d == 2) {
        ASSERT_EQ(g.findTriangle(t[2], t[0], t[1]), id) << str(t);
      }
    }
  }
  auto mapped = [&](int d, SimplexId id) { return d == 0 ? id : toExplicit[d][id]; };
  // GALE ids are mapped to explicit ids (checked above to name the same vertices), so
  // rows compare as sorted id lists: a multiset comparison without tuple allocations.
  for (int p = 0; p <= dim; ++p) {
    for (int q = 0; q <= dim; ++q) {
      if (p == q && p != 0 && p != 3)
        continue;
      int failures = 0;
      const SimplexId targets = countOf(g, q);
      for (SimplexId id = 0; id < countOf(g, p) && failures < 5; ++id) {
        std::vector<SimplexId> got = relationOf(g, p, q, id);
        bool inRange = true;
        for (SimplexId& x : got) {
          inRange &= x >= 0 && x < targets;
          if (inRange)
            x = mapped(q, x);
        }
        if (!inRange) {
          ADD_FAILURE() << kDimName[p] << kDimName[q] << " of " << id
                        << " gives an id out of range";
          ++failures;
          continue;
        }
        std::vector<SimplexId> expected = relationOf(e, p, q, mapped(p, id));
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
        if (got != expected) {
          ADD_FAILURE() << kDimName[p] << kDimName[q] << " of " << kDimName[p] << id
                        << " " << str(verticesOf(g, p, id)) << ": " << got.size()
                        << " entries, explicit has " << expected.size();
          ++failures;
        }
      }
    }
  }
  for (SimplexId v = 0; v < g.getNumberOfVertices(); ++v) {
    std::multiset<SimplexId> got, expected;
    for (int i = 0; i < g.getVertexStarNumber(v); ++i)
      got.insert(g.getVertexStar(v, i));
    for (int i = 0; i < e.getVertexStarNumber(v); ++i)
      expected.insert(e.getVertexStar(v, i));
    ASSERT_EQ(got, expected) << "star of vertex " << v;
    // VE is parallel to VV: edge i joins v to neighbour i
    for (int i = 0; i < g.getVertexEdgeNumber(v); ++i)
      ASSERT_EQ(verticesOf(g, 1, g.getVertexEdge(v, i)),
                (Tuple{std::min(v, g.getVertexNeighbor(v, i)),
                       std::max(v, g.getVertexNeighbor(v, i))}));
  }
  for (int d = 0; d <= 2 && d <= dim; ++d) {
    int failures = 0;
    for (SimplexId id = 0; id < countOf(g, d) && failures < 5; ++id) {
      if (onBoundary(g, d, id) != onBoundary(e, d, mapped(d, id))) {
        ADD_FAILURE() << "boundary flag of " << kDimName[d] << id << " "
                      << str(verticesOf(g, d, id));
        ++failures;
      }
    }
  }
  EXPECT_EQ(g.getNumberOfNonManifoldFacets(), e.getNumberOfNonManifoldFacets());
}

} // namespace topogpu::test
