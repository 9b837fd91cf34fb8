// Topological simplification of a scalar field on the simplicial complex (TTK's
// TopologicalSimplification, LTS backend): the minimum-saddle and saddle-maximum pairs
// of persistence below a threshold (or every extremum outside a constraint set) are
// removed by flattening their basins to the saddle's value; everything else keeps its
// value and its relative order. The sweeps are Tierny & Pascucci 2012's, made local and
// parallel as in LTS (Lukasczyk et al. 2020), defined so that the CPU and the GPU give
// the same field and order bit for bit (SimplificationSweep.h):
//  1. minimum sweep: key(v) = the smallest over vertex paths from a kept minimum to v of
//     the path's highest rank; key(v) > rank(v): v is flattened to the value of the
//     vertex of rank key(v); new order by (key, hop distance from that vertex inside its
//     flattened region, old rank);
//  2. maximum sweep, mirrored, from the kept maxima and every boundary vertex (a
//     boundary vertex is never a maximum of the discrete gradient: ascending paths exit);
//  3. repeated while an extremum outside the kept ones remains (iteration limit).
// What the theory gives: the output's extrema are exactly the kept ones; a kept
// extremum-saddle pair keeps its exact birth and death unless one of its ends lies in a
// flattened region (it then moves by less than the threshold); saddle-saddle pairs are
// removed only when they lie inside a removed region, and move by less than the
// threshold otherwise.
#pragma once

#include "base/ScalarArray.h"
#include "base/Types.h"
#include "core/common/VertexOrder.h"
#include "core/persistence_diagram/PersistenceDiagram.h"
#include "triangulation/Relations.h"

#include <limits>
#include <vector>

namespace topogpu::topological_simplification {

namespace pd = persistence_diagram;

constexpr int kDefaultMaximumIterations = 64;
constexpr int kMaxIterations = 1000000;

// One of TTK's constraint points (a thresholded persistence diagram's
// ttkVertexScalarField and CriticalType): the vertex of an extremum to keep.
// criticalType -1: any extremum; kLocalMinimum or kLocalMaximum: only that kind; a
// saddle's type: the point is skipped (a diagram lists both ends of every pair).
struct Constraint {
  SimplexId vertex = -1;
  int criticalType = -1;
};

struct Parameters {
  Backend backend =
      Backend::Auto; // the sweeps' (the input diagram: its own, same request)
  // Pairs of persistence below this are removed (absolute; relative: times the field's
  // range max - min). Unused in constraint mode.
  double persistenceThreshold = 0;
  bool thresholdIsRelative = false;
  // Constraint mode: keep exactly these extrema (those that are extrema of the input),
  // plus one minimum per connected component (the essential ones). Both modes keep the
  // global maximum when it is a critical maximum.
  bool useConstraints = false;
  std::vector<Constraint> constraints;
  VertexOrderSource vertexOrder{};
  int maximumIterations = kDefaultMaximumIterations; // 1..kMaxIterations
  // Host memory the input diagram's complex may use, in bytes.
  double memoryBudget = std::numeric_limits<double>::infinity();
};

struct Output {
  // The simplified field: values.size values of the input's type (bytes), TTK's
  // simplified scalar field.
  std::vector<unsigned char> values;
  ScalarType type = ScalarType::Float64;
  // Rank of each vertex in the simplified field's order: TTK's <field>_Order.
  std::vector<SimplexId> order;
  // The input diagram's pairs, split: kept (extrema kept, saddle-saddle pairs outside
  // the removed regions, essential classes) and removed.
  std::vector<pd::DiagramPair> keptPairs, removedPairs;
  std::vector<SimplexId> keptMinima, keptMaxima; // vertex ids, ascending
  double threshold = 0;                          // the absolute threshold used
  int iterations = 0;                            // sweep rounds run
  SimplexId changedVertices = 0;                 // vertices whose value changed
  SimplexId reorderedVertices = 0;               // vertices flattened by some sweep
  SimplexId extraExtrema = 0;                    // left when the iterations ran out
  RunReport report;
};

// The relations the sweeps read (the input diagram preconditions its own).
constexpr Relations kRequiredRelations = VV | BoundaryVertices;

// Simplifies values on tri. Throws Error for bad input (NaN/Inf naming the first bad
// vertex, a threshold < 0 or NaN, a constraint id out of range, an iteration count
// outside 1..kMaxIterations), Aborted on abort. An empty or one-vertex input gives an
// empty output. A constraint that is not an extremum of the input is ignored with a
// warning; a GPU failure or a device estimate that does not fit reruns on the CPU with
// a warning. Progress 0..1 over the diagram, the sweeps and the check.
template <typename Triangulation>
void execute(Triangulation& tri, const ScalarArrayView& values,
             const Parameters& parameters, const Monitor& monitor, Output& output);

} // namespace topogpu::topological_simplification

#include "core/topological_simplification/TopologicalSimplificationImpl.h"
