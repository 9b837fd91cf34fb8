// TTK's persistence diagram layout (ttkPersistenceDiagram's output), shared by the Rips
// diagram and the scalar field's diagram (and the CLI's .vtu): two points per pair, at
// (birth, birth) and (birth, death), joined by a line cell; a last cell on two points of
// its own for the diagonal (PairIdentifier and PairType -1). Point arrays
// ttkVertexScalarField, CriticalType, Coordinates (TTK's: the critical vertex's position
// in the domain; a diagram without a domain, as the Rips one, puts the point's own
// there); cell arrays PairIdentifier, PairType, Persistence, Birth, Death, IsFinite.
#pragma once

#include "core/morse_smale_complex/OutputRecords.h"
#include "core/persistence_diagram/PersistenceDiagram.h"
#include "core/topological_simplification/TopologicalSimplification.h"

#include <vtkType.h>

#include <array>
#include <string>
#include <vector>

class vtkDataSet;
class vtkUnstructuredGrid;

namespace topogpu::vtk {

struct DiagramRow {
  int pairType = 0;
  bool isFinite = true;
  double birth = 0, death = 0; // death as drawn (an essential pair's stand-in)
  vtkIdType birthVertex = -1, deathVertex = -1; // ttkVertexScalarField (-1: none)
  int birthType = 0, deathType = 0;             // CriticalType
  // The two vertices' positions in the domain, when it has one.
  std::array<double, 3> birthPosition{}, deathPosition{};
};

// The diagonal's two points, from (low, low) to (high, high), and its Persistence.
struct DiagramDiagonal {
  double low = 0, high = 0, persistence = 0;
};

// Fills grid (points, line cells, arrays; PairType the active cell scalars). Each row's
// PairIdentifier is its index. withPositions: Coordinates are the rows' positions.
void writeDiagramLayout(vtkUnstructuredGrid* grid, const std::vector<DiagramRow>& rows,
                        const DiagramDiagonal& diagonal, bool withPositions = false);

// A scalar field's diagram records (core/persistence_diagram) in that layout, as
// ttkPersistenceDiagram: the diagonal from the lowest to the highest birth, its
// Persistence twice the largest; Coordinates the critical vertices' positions when
// points is given. The filter's output and the CLI's .vtu.
void writeScalarFieldDiagram(vtkUnstructuredGrid* grid,
                             const persistence_diagram::Diagram& diagram,
                             const morse_smale_complex::PointGeometry* points);

// The extrema a TTK-layout diagram's points name (TTK's TopologicalSimplification
// constraints, e.g. a thresholded diagram): each point's ttkVertexScalarField, with its
// CriticalType when present (-1: any extremum); a point without a vertex (id -1: the
// diagonal) is skipped. Throws Error naming source when ttkVertexScalarField is missing
// or has several components. The Topological Simplification filter's port 1 and
// `topogpu simplify --constraints`.
std::vector<topological_simplification::Constraint>
diagramConstraints(vtkDataSet* points, const std::string& source);

} // namespace topogpu::vtk
