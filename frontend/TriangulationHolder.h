// The triangulation a front end runs a module on, whichever backend holds it: the
// implicit grid, the explicit mesh or GALE. The CLI's domain and the filters' adaptor
// both hold one, and both dispatch to a module's templated execute through visit, so an
// input is run the same way from either front end.
#pragma once

#include "base/Types.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/gale/GaleTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <memory>
#include <variant>

namespace topogpu::frontend {

// A null pointer of the first kind means "none yet" (the default).
using AnyTriangulation = std::variant<std::shared_ptr<ImplicitTriangulation>,
                                      std::shared_ptr<ExplicitTriangulation>,
                                      std::shared_ptr<GaleTriangulation>>;

// The one of that kind, or null when t holds another (or none).
template <typename T> T* held(const AnyTriangulation& t) {
  const auto* pointer = std::get_if<std::shared_ptr<T>>(&t);
  return pointer != nullptr ? pointer->get() : nullptr;
}

// Calls visitor(triangulation&) with the concrete type (compile-time dispatch). Modules
// without a GALE path yet use visit (a GALE triangulation is then an Error naming the
// fix); those with one use visitWithGale, so only they are compiled against it. The
// holder shares its triangulation, so a const holder still visits a mutable one (the
// explicit mesh builds its relations on demand).
template <typename Visitor>
decltype(auto) visit(const AnyTriangulation& t, Visitor&& visitor) {
  if (auto* grid = std::get_if<std::shared_ptr<ImplicitTriangulation>>(&t))
    return visitor(**grid);
  if (std::holds_alternative<std::shared_ptr<GaleTriangulation>>(t))
    throw Error("this module has no GALE path yet; set its Triangulation to Auto or "
                "Explicit");
  return visitor(*std::get<std::shared_ptr<ExplicitTriangulation>>(t));
}
template <typename Visitor>
decltype(auto) visitWithGale(const AnyTriangulation& t, Visitor&& visitor) {
  return std::visit(
      [&](const auto& pointer) -> decltype(auto) { return visitor(*pointer); }, t);
}

} // namespace topogpu::frontend
