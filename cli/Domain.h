// The CLI's one domain loader: a raw volume (implicit grid, or its tets/triangles stored
// explicitly) or a mesh file (.off .ply without VTK; .vtu .vtp .vti .vtk with VTK: a .vti
// is a grid) with its scalar array. The Domain owns everything its views point into.
#pragma once

#include "Arguments.h"
#include "Commands.h"

#include "base/ScalarArray.h"
#include "frontend/TriangulationHolder.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

class vtkDataSet;

namespace topogpu::cli {

struct Domain {
  // Backs `values` (and, for VTK inputs, arrays the triangulation may view): declared
  // first so that it is destroyed last.
  std::shared_ptr<const void> storage;
  std::string input;               // the file, as given
  std::string triangulation;       // "implicit", "explicit", "gale-cpu" or "gale-gpu"
  double triangulationSeconds = 0; // building the explicit one, outside the algorithm
  // Every stage of reading and building the domain, in order ("read", "drop zero",
  // "explicit triangulation", "GALE initialization"): outside the algorithm's total.
  std::vector<std::pair<std::string, double>> inputTimings;
  // The triangulation (the front ends' one holder); none until loadDomain builds it.
  frontend::AnyTriangulation holder;
  ScalarArrayView values;
  // The vertex order given with the values (a VTK input's `<array>_Order` point array, or
  // --order-array's), which values.order points into, and the array's name; empty when
  // the values are sorted.
  std::vector<SimplexId> givenOrder;
  std::string orderArray;
  std::vector<Warning> notes; // said to the user as warnings
  // How many of galeTriangulation's warnings were said when it was built (notes).
  std::size_t galeWarningsInNotes = 0;
  // x y z per vertex: filled only by loadWithVtk(..., keepPoints = true) (geodesic).
  std::vector<double> points;
  // The data set a VTK file was read into (kept alive by storage), for a command that
  // writes its result into a copy of the input (simplify --out); null for other inputs.
  vtkDataSet* dataSet = nullptr;

  SimplexId numberOfVertices() const;
  int dimension() const;
  // The triangulation of that kind, or null when the domain holds another.
  ImplicitTriangulation* implicitTriangulation() const {
    return frontend::held<ImplicitTriangulation>(holder);
  }
  ExplicitTriangulation* explicitTriangulation() const {
    return frontend::held<ExplicitTriangulation>(holder);
  }
  GaleTriangulation* galeTriangulation() const {
    return frontend::held<GaleTriangulation>(holder);
  }
  // Calls f(triangulation&) with the one this domain has (commands without GALE
  // support never get a GALE domain: loadDomain refuses it for them).
  template <typename F> decltype(auto) visit(F&& f) {
    return frontend::visit(holder, std::forward<F>(f));
  }
  // The same, GALE included (commands that support --triangulation gale-*).
  template <typename F> decltype(auto) visitWithGale(F&& f) {
    return frontend::visitWithGale(holder, std::forward<F>(f));
  }
};

// --raw --dims --type --mesh --array --triangulation.
std::vector<OptionSpec> domainOptions();
// --segment-size --cache-segments --segments-per-request (commands with GALE).
std::vector<OptionSpec> galeOptions();

// Reads the domain the options name; every problem -> Error naming it. withGale: the
// command accepts --triangulation gale-cpu|gale-gpu (and the GALE options). keepPoints:
// a mesh's point coordinates stay in Domain::points (msc --separatrices-out).
Domain loadDomain(const Arguments& args, CommandContext& context, bool withGale = false,
                  bool keepPoints = false);

#if TOPOGPU_WITH_VTK
// .vtu .vtp .vti .vtk through VTK's readers and the filters' adaptor (VtkInput.cxx).
// keepPoints also copies the point coordinates into Domain::points. trianglesOnly: a
// cell that is not a triangle is an Error naming it (instead of being skipped).
// orderName: the point array giving the vertex order (--order-array); empty: the
// array's `<arrayName>_Order` when the file has one.
Domain loadWithVtk(const std::string& path, const std::string& arrayName,
                   bool keepPoints = false, bool trianglesOnly = false,
                   const std::string& orderName = {});
#endif

// 0, 1, 2 for "x", "y", "z" (a coordinate as the scalar field), else -1.
int coordinateAxis(const std::string& arrayName);

} // namespace topogpu::cli
