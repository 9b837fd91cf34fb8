// Compile-time facts about a triangulation type, detected from its interface so that a
// new backend (GALE) is picked up by every algorithm without registering anywhere.
#pragma once

#include "triangulation/implicit/GridStencil.h"

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

} // namespace topogpu
