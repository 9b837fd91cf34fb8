// Compile-time facts about a triangulation type, detected from its interface so that a
// new backend (GALE) is picked up by every algorithm without registering anywhere.
#pragma once

#include "base/GridStencil.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <type_traits>
#include <utility>

namespace topogpu {

// A regular grid exposes its grid::Dims (ImplicitTriangulation): the stencil classifier
// and the CUDA grid kernels run on it. Everything else is a mesh, read through the
// generic accessors.
template <typename T, typename = void> struct IsGridTriangulation : std::false_type {};
template <typename T>
struct IsGridTriangulation<T, std::void_t<decltype(std::declval<const T&>().dims())>>
    : std::is_same<std::decay_t<decltype(std::declval<const T&>().dims())>, grid::Dims> {
};
template <typename T>
inline constexpr bool isGridTriangulation = IsGridTriangulation<std::decay_t<T>>::value;

// Backends that count their non-manifold facets (the explicit one) expose
// getNumberOfNonManifoldFacets(); algorithms then warn about them.
template <typename T, typename = void>
struct CountsNonManifoldFacets : std::false_type {};
template <typename T>
struct CountsNonManifoldFacets<
    T, std::void_t<decltype(std::declval<const T&>().getNumberOfNonManifoldFacets())>>
    : std::true_type {};

// Backends whose getEdgeVertex, and in 3D getTriangleVertex, list a simplex's vertices
// by ascending id (explicit, GALE) declare kSimplexVerticesAscending = true: a vertex's
// index within such a simplex then follows from the ids alone, without reading it.
template <typename T, typename = void>
struct SimplexVerticesAscending : std::false_type {};
template <typename T>
struct SimplexVerticesAscending<T, std::void_t<decltype(T::kSimplexVerticesAscending)>>
    : std::bool_constant<T::kSimplexVerticesAscending> {};

// Backends that list all the cofaces of an edge (triangles) or a triangle (tets) in one
// call (the implicit grid: one candidate scan instead of one per index) expose
// getEdgeTriangles(e, out) and getTriangleTets(f, out), with kMaxEdgeTriangles bounding
// both lists.
template <typename T, typename = void> struct HasCofaceLists : std::false_type {};
template <typename T>
struct HasCofaceLists<T, std::void_t<decltype(std::declval<const T&>().getEdgeTriangles(
                             0, static_cast<SimplexId*>(nullptr)))>> : std::true_type {};

// Backends that prefer a vertex visiting order (GALE: segment by segment, so each
// segment's relations are computed once and read while cached) expose
// getVertexInProcessingOrder(position); per-vertex loops whose results do not depend on
// the visiting order use it through vertexAtPosition.
template <typename T, typename = void>
struct HasVertexProcessingOrder : std::false_type {};
template <typename T>
struct HasVertexProcessingOrder<
    T, std::void_t<decltype(std::declval<const T&>().getVertexInProcessingOrder(0))>>
    : std::true_type {};

// The vertex visited at `position` of a per-vertex loop: the backend's processing order
// when it has one, else the identity.
template <typename T>
inline SimplexId vertexAtPosition(const T& triangulation, SimplexId position) {
  if constexpr (HasVertexProcessingOrder<T>::value)
    return triangulation.getVertexInProcessingOrder(position);
  else
    return position;
}

// Backends made of vertex segments (GALE) run per-vertex loops segment by segment:
// parallelForSegments(first, last, body) hands out the segments in order and pins each
// task's segment relations.
template <typename T, typename = void> struct HasVertexSegments : std::false_type {};
template <typename T>
struct HasVertexSegments<
    T, std::void_t<decltype(std::declval<const T&>().parallelForSegments(
           SimplexId(0), SimplexId(0), std::declval<void (&)(SimplexId, SimplexId)>()))>>
    : std::true_type {};

// The per-vertex loop every algorithm whose result does not depend on the visiting order
// should use: body(firstPosition, lastPosition) in parallel over blocks of the
// positions [first, last); vertexAtPosition(tri, p) is the vertex at position p. On
// GALE a block is (part of) one segment, the blocks come in segment order and the
// segment's relations are read without lookups; elsewhere TBB's blocks of positions
// (= vertex ids).
template <typename T, typename Body>
void parallelForVertexBlocks(const T& triangulation, SimplexId first, SimplexId last,
                             Body&& body) {
  if constexpr (HasVertexSegments<T>::value) {
    triangulation.parallelForSegments(first, last, body);
  } else {
    tbb::parallel_for(tbb::blocked_range<SimplexId>(first, last),
                      [&](const tbb::blocked_range<SimplexId>& range) {
                        body(range.begin(), range.end());
                      });
  }
}

} // namespace topogpu
