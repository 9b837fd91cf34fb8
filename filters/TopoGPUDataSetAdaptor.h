// From VTK data to the VTK-free core: a triangulation for a vtkDataSet (implicit for
// vtkImageData, explicit for triangle/tet meshes) and a typed view of a scalar array.
// Shared by every filter and by the CLI, so inputs are interpreted one way everywhere.
#pragma once

#include "base/ScalarArray.h"
#include "frontend/TriangulationHolder.h"

#include <memory>
#include <string>
#include <vector>

class vtkDataArray;
class vtkDataSet;

namespace topogpu::vtk {

// The front ends' one holder and its visit (frontend/TriangulationHolder.h).
using frontend::AnyTriangulation;
using frontend::visit;
using frontend::visitWithGale;

// The Triangulation property of mesh filters. Auto: implicit for images, explicit for
// meshes. GALE on an image stores its Freudenthal tets first (for comparisons).
enum class TriangulationChoice { Auto = 0, Explicit = 1, GaleGpu = 2, GaleCpu = 3 };

struct TriangulationResult {
  AnyTriangulation triangulation;
  // Mixed meshes: cells other than triangles (2D) or tets (3D) are skipped; the first
  // note says how many, so the filter can warn. Then GALE's producer selection (a GPU
  // fallback). Empty when there is nothing to say.
  std::vector<Warning> notes;
};

// The notes as the filter says them once: "Mixed cells: " before the skipped cells, the
// notes joined by "; ", a final period. Empty without notes.
std::string notesMessage(const TriangulationResult& result);

// Throws topogpu::Error naming the problem: unsupported data set type, no cells, no
// triangle or tet cells, grids thinner than 2D.
TriangulationResult makeTriangulation(vtkDataSet* input);
// The same with a choice of backend (GALE gets the points for its octree).
TriangulationResult makeTriangulation(vtkDataSet* input, TriangulationChoice choice,
                                      const gale::Parameters& parameters = {});

// Why input is not a triangle surface (some cell is not a VTK_TRIANGLE): how many cells
// are not, the first one's id and type, and the fix; empty when every cell is a triangle
// (or there is no cell: makeTriangulation reports that). Reads the cell types without
// building VTK's cell map, so it costs little on every run.
std::string triangleSurfaceProblem(vtkDataSet* input);
// VTK's class name of a cell type ("vtkQuad"), or "cell type N" for an unknown one.
std::string vtkCellTypeName(int type);

// Typed zero-copy view of a one-component numeric array; throws Error for missing,
// multi-component or non-numeric arrays.
ScalarArrayView viewScalarArray(vtkDataArray* array, const std::string& nameForMessages);

// TTK's name of the vertex order array of a field: `<field>_Order`.
std::string orderArrayName(const std::string& fieldName);

// The vertex order given with the field `values` views (TTK's `<fieldName>_Order` point
// array, or the point array orderName when not empty, which must then exist), copied
// into ranks and set as values.order. The array must be integral, one component, one
// value per point and, unless renumber, a permutation of 0..n-1 consistent with the
// values (checkGivenVertexOrder); renumber (a piece of a distributed field, whose ranks
// are the whole field's) keeps only the ranks' relative order. Throws Error naming the
// array and the problem. Returns the array's name, empty when there is none.
std::string attachOrderArray(vtkDataSet* input, const std::string& fieldName,
                             ScalarArrayView& values, std::vector<SimplexId>& ranks,
                             const std::string& orderName = {}, bool renumber = false);

} // namespace topogpu::vtk
