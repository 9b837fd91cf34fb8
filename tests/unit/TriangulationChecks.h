// Checks shared by the triangulation backends' tests: every relation, count, boundary
// flag and lookup of a backend against the brute-force complex (BruteForce.h), compared
// as sets of vertex tuples (simplex ids differ between backends; vertex ids do not).
#pragma once

#include "BruteForce.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <sstream>

namespace topogpu::test {

inline const char* const kDimName[4] = {"V", "E", "F", "T"};

template <typename Tri> SimplexId countOf(const Tri& tri, int d) {
  switch (d) {
  case 0:
    return tri.getNumberOfVertices();
  case 1:
    return tri.getNumberOfEdges();
  case 2:
    return tri.getNumberOfTriangles();
  default:
    return tri.getNumberOfTets();
  }
}

template <typename Tri> Tuple verticesOf(const Tri& tri, int d, SimplexId id) {
  Tuple t;
  for (int i = 0; i <= d; ++i) {
    switch (d) {
    case 0:
      t.push_back(id);
      break;
    case 1:
      t.push_back(tri.getEdgeVertex(id, i));
      break;
    case 2:
      t.push_back(tri.getTriangleVertex(id, i));
      break;
    default:
      t.push_back(tri.getTetVertex(id, i));
    }
  }
  std::sort(t.begin(), t.end());
  return t;
}

// Ids that relation p -> q of the backend gives for simplex id.
template <typename Tri>
std::vector<SimplexId> relationOf(const Tri& tri, int p, int q, SimplexId id) {
  std::vector<SimplexId> out;
  auto take = [&](int n, auto get) {
    for (int i = 0; i < n; ++i)
      out.push_back(get(i));
  };
  const int code = p * 4 + q;
  switch (code) {
  case 0: // VV
    take(tri.getVertexNeighborNumber(id),
         [&](int i) { return tri.getVertexNeighbor(id, i); });
    break;
  case 1:
    take(tri.getVertexEdgeNumber(id), [&](int i) { return tri.getVertexEdge(id, i); });
    break;
  case 2:
    take(tri.getVertexTriangleNumber(id),
         [&](int i) { return tri.getVertexTriangle(id, i); });
    break;
  case 3:
    take(tri.getVertexTetNumber(id), [&](int i) { return tri.getVertexTet(id, i); });
    break;
  case 4: // EV
    take(2, [&](int i) { return tri.getEdgeVertex(id, i); });
    break;
  case 6:
    take(tri.getEdgeTriangleNumber(id),
         [&](int i) { return tri.getEdgeTriangle(id, i); });
    break;
  case 7:
    take(tri.getEdgeTetNumber(id), [&](int i) { return tri.getEdgeTet(id, i); });
    break;
  case 8: // FV
    take(3, [&](int i) { return tri.getTriangleVertex(id, i); });
    break;
  case 9:
    take(3, [&](int i) { return tri.getTriangleEdge(id, i); });
    break;
  case 11:
    take(tri.getTriangleTetNumber(id), [&](int i) { return tri.getTriangleTet(id, i); });
    break;
  case 12: // TV
    take(4, [&](int i) { return tri.getTetVertex(id, i); });
    break;
  case 13:
    take(6, [&](int i) { return tri.getTetEdge(id, i); });
    break;
  case 14:
    take(4, [&](int i) { return tri.getTetTriangle(id, i); });
    break;
  case 15:
    take(tri.getTetNeighborNumber(id), [&](int i) { return tri.getTetNeighbor(id, i); });
    break;
  default:
    ADD_FAILURE() << "no relation " << p << q;
  }
  return out;
}

template <typename Tri> bool onBoundary(const Tri& tri, int d, SimplexId id) {
  return d == 0   ? tri.isVertexOnBoundary(id)
         : d == 1 ? tri.isEdgeOnBoundary(id)
                  : tri.isTriangleOnBoundary(id);
}

inline std::string str(const Tuple& t) {
  std::ostringstream s;
  s << "(";
  for (std::size_t i = 0; i < t.size(); ++i)
    s << (i ? "," : "") << t[i];
  s << ")";
  return s.str();
}

// Checks every relation, count and boundary flag of tri against the brute-force complex.
template <typename Tri>
void compareWithBruteForce(const Tri& tri, const BruteComplex& ref,
                           const std::string& what) {
  SCOPED_TRACE(what);
  const int dim = ref.dimension;
  ASSERT_EQ(tri.getDimension(), dim);
  ASSERT_EQ(tri.getNumberOfVertices(), ref.numberOfVertices);
  // Simplices: the backend's ids must name each brute-force simplex exactly once.
  for (int d = 0; d <= 3; ++d) {
    const SimplexId expected = d <= dim ? SimplexId(ref.simplices[d].size()) : 0;
    ASSERT_EQ(countOf(tri, d), expected) << "number of " << kDimName[d];
    std::set<Tuple> seen;
    for (SimplexId id = 0; id < countOf(tri, d); ++id) {
      const Tuple t = verticesOf(tri, d, id);
      ASSERT_TRUE(ref.simplices[d].count(t))
          << kDimName[d] << id << " = " << str(t) << " is not a simplex of the complex";
      ASSERT_TRUE(seen.insert(t).second)
          << kDimName[d] << id << " = " << str(t) << " twice";
    }
  }
  ASSERT_EQ(tri.getNumberOfCells(), SimplexId(ref.simplices[dim].size()));
  for (SimplexId c = 0; c < tri.getNumberOfCells(); ++c) {
    Tuple t;
    for (int i = 0; i <= dim; ++i)
      t.push_back(tri.getCellVertex(c, i));
    std::sort(t.begin(), t.end());
    EXPECT_TRUE(ref.simplices[dim].count(t)) << "cell " << c;
  }
  // Relations p -> q, each row as a multiset so a repeated entry is caught.
  for (int p = 0; p <= dim; ++p) {
    for (int q = 0; q <= dim; ++q) {
      if (p == q && p != 0 && p != 3)
        continue; // EE and FF are not part of the interface
      const auto expected = ref.relation(p, q);
      int failures = 0;
      for (SimplexId id = 0; id < countOf(tri, p) && failures < 5; ++id) {
        const Tuple s = verticesOf(tri, p, id);
        std::multiset<Tuple> got;
        for (SimplexId target : relationOf(tri, p, q, id)) {
          if (target < 0 || target >= countOf(tri, q)) {
            ADD_FAILURE() << kDimName[p] << kDimName[q] << " of " << str(s)
                          << " gives id " << target << " out of range";
            ++failures;
            continue;
          }
          got.insert(verticesOf(tri, q, target));
        }
        if (got != expected.at(s)) {
          std::ostringstream msg;
          msg << kDimName[p] << kDimName[q] << " of " << kDimName[p] << id << " "
              << str(s) << ": got {";
          for (const Tuple& t : got)
            msg << str(t) << " ";
          msg << "} expected {";
          for (const Tuple& t : expected.at(s))
            msg << str(t) << " ";
          msg << "}";
          ADD_FAILURE() << msg.str();
          ++failures;
        }
      }
    }
  }
  // In 2D the tet relations must be empty.
  if (dim == 2) {
    for (SimplexId v = 0; v < tri.getNumberOfVertices(); ++v)
      EXPECT_EQ(tri.getVertexTetNumber(v), 0);
    for (SimplexId e = 0; e < tri.getNumberOfEdges(); ++e)
      EXPECT_EQ(tri.getEdgeTetNumber(e), 0);
    for (SimplexId f = 0; f < tri.getNumberOfTriangles(); ++f)
      EXPECT_EQ(tri.getTriangleTetNumber(f), 0);
  }
  // Star = VT in 3D, VF in 2D.
  for (SimplexId v = 0; v < tri.getNumberOfVertices(); ++v) {
    std::multiset<Tuple> got, expected;
    for (int i = 0; i < tri.getVertexStarNumber(v); ++i)
      got.insert(verticesOf(tri, dim, tri.getVertexStar(v, i)));
    for (const Tuple& c : ref.simplices[dim])
      if (std::binary_search(c.begin(), c.end(), v))
        expected.insert(c);
    EXPECT_EQ(got, expected) << "star of vertex " << v;
  }
  // Boundary flags.
  for (int d = 0; d <= 2 && d <= dim; ++d) {
    const std::set<Tuple> expected = ref.boundary(d);
    std::set<Tuple> got;
    for (SimplexId id = 0; id < countOf(tri, d); ++id) {
      if (onBoundary(tri, d, id))
        got.insert(verticesOf(tri, d, id));
    }
    std::ostringstream missing, extra;
    for (const Tuple& t : expected)
      if (!got.count(t))
        missing << str(t) << " ";
    for (const Tuple& t : got)
      if (!expected.count(t))
        extra << str(t) << " ";
    EXPECT_EQ(got, expected) << "boundary " << kDimName[d] << ": missing "
                             << missing.str() << " extra " << extra.str();
  }
}

// findEdge / findTriangle: every simplex is found from its vertices in any order, and
// vertex sets that span no simplex give -1.
template <typename Tri> void checkFind(const Tri& tri, const BruteComplex& ref) {
  const SimplexId n = tri.getNumberOfVertices();
  for (SimplexId a = 0; a < n; ++a) {
    for (SimplexId b = 0; b < n; ++b) {
      if (a == b)
        continue;
      const SimplexId e = tri.findEdge(a, b);
      const bool exists = ref.simplices[1].count({std::min(a, b), std::max(a, b)}) > 0;
      if (!exists) {
        EXPECT_EQ(e, -1) << "findEdge(" << a << "," << b << ") of a non-edge";
        continue;
      }
      ASSERT_GE(e, 0) << "findEdge(" << a << "," << b << ")";
      ASSERT_LT(e, tri.getNumberOfEdges());
      EXPECT_EQ(verticesOf(tri, 1, e), (Tuple{std::min(a, b), std::max(a, b)}));
    }
  }
  for (SimplexId f = 0; f < tri.getNumberOfTriangles(); ++f) {
    Tuple t = verticesOf(tri, 2, f);
    do {
      EXPECT_EQ(tri.findTriangle(t[0], t[1], t[2]), f) << str(t);
    } while (std::next_permutation(t.begin(), t.end()));
  }
  // Non-triangles: every triple of a small complex, a sample of a larger one.
  std::mt19937 rng(7);
  std::uniform_int_distribution<SimplexId> pick(0, n - 1);
  for (int k = 0; k < 3000; ++k) {
    Tuple t{pick(rng), pick(rng), pick(rng)};
    std::sort(t.begin(), t.end());
    if (t[0] == t[1] || t[1] == t[2] || ref.simplices[2].count(t))
      continue;
    EXPECT_EQ(tri.findTriangle(t[2], t[0], t[1]), -1) << "non-triangle " << str(t);
  }
}

} // namespace topogpu::test
