// The Morse-Smale complex's output records, what TTK 1.2's MorseSmaleComplex writes on
// its ports 0-2, VTK-free and for both complexes: the filter copies them into VTK arrays,
// the CLI writes them to a file (cli/SeparatricesFile). Built from a complex's Output
// by CubicalRecords.h and SimplicialRecords.h with the same conventions:
//
//  - a cell's value is the largest of its vertices' (the lower-star filtration's), its
//    vertex (TTK's ttkVertexScalarField) the highest of them in the vertex order;
//  - a point sits at its cell's barycentre (PointGeometry gives the vertices');
//  - a 1-separatrix is one V-path, saddle first, to its extremum (type 0 from a
//    1-saddle down, d-1 from a (d-1)-saddle up, 1 from a 2-saddle down to a 1-saddle),
//    drawn as TTK 1.2 draws it: a point per cell of the path and one line cell per step
//    (consecutive steps share their point), each line carrying the separatrix's cell
//    data; every V-path has its own SeparatrixId (numbered in output order, as TTK's),
//    and Multiplicity says how many of its saddle's paths reach the same extremum.
#pragma once

#include "base/Types.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace topogpu::morse_smale_complex {

// Vertex positions, given by the front end: the image's grid, the mesh's points.
class PointGeometry {
public:
  virtual ~PointGeometry() = default;
  virtual void position(SimplexId vertex, double p[3]) const = 0;
};

// A uniform grid's vertices (x fastest): origin + spacing * index.
class GridPoints final : public PointGeometry {
public:
  GridPoints(const std::array<SimplexId, 3>& dims, const std::array<double, 3>& origin,
             const std::array<double, 3>& spacing)
      : dims_(dims), origin_(origin), spacing_(spacing) {}
  void position(SimplexId v, double p[3]) const override {
    const SimplexId index[3] = {v % dims_[0], (v / dims_[0]) % dims_[1],
                                v / (dims_[0] * dims_[1])};
    for (int a = 0; a < 3; ++a)
      p[a] = origin_[std::size_t(a)] + spacing_[std::size_t(a)] * double(index[a]);
  }

private:
  std::array<SimplexId, 3> dims_;
  std::array<double, 3> origin_, spacing_;
};

// A mesh's vertices, xyz per vertex in one array (the caller keeps it alive).
class ArrayPoints final : public PointGeometry {
public:
  explicit ArrayPoints(const double* xyz) : xyz_(xyz) {}
  void position(SimplexId v, double p[3]) const override {
    for (int a = 0; a < 3; ++a)
      p[a] = xyz_[3 * v + a];
  }

private:
  const double* xyz_;
};

// Port 0: one point per critical cell, then per boundary maximum.
struct CriticalPointRecords {
  std::vector<double> points; // xyz
  std::vector<signed char> cellDimension;
  std::vector<SimplexId> cellId;   // the cell's id among the cells of its dimension
  std::vector<double> value;       // the cell's value
  std::vector<SimplexId> vertexId; // ttkVertexScalarField: the cell's highest vertex
  std::vector<signed char> isOnBoundary;
  // Vertices in the extremum's manifold (0 for saddles); -1 everywhere unless both
  // segmentations were asked for (TTK's rule).
  std::vector<SimplexId> manifoldSize;
  std::vector<signed char> isBoundaryMaximum;
  std::size_t size() const { return cellId.size(); }
};

// Port 1: line cells (two point ids each in `connectivity`), the cell data per line.
struct Separatrix1Records {
  std::vector<double> points; // xyz
  std::vector<signed char> cellDimension;
  std::vector<SimplexId> cellId;
  std::vector<signed char> mask;       // ttkMaskScalarField: 0 at both ends, 1 between
  std::vector<SimplexId> connectivity; // line i: points connectivity[2i], [2i + 1]
  std::vector<SimplexId> sourceId, destinationId, separatrixId;
  std::vector<signed char> separatrixType;
  std::vector<double> functionMaximum, functionMinimum;
  std::vector<SimplexId> multiplicity;
  std::vector<signed char> onBoundary; // NumberOfCriticalPointsOnBoundary
  SimplexId separatrices = 0;          // V-paths drawn: SeparatrixIds 0 .. separatrices-1
  std::size_t size() const { return sourceId.size(); } // line cells
};

// Port 2: polygons (offsets + connectivity), cell data per polygon.
struct Separatrix2Records {
  std::vector<double> points; // xyz
  std::vector<SimplexId> offsets{0}, connectivity;
  std::vector<SimplexId> sourceId, separatrixId;
  std::vector<signed char> separatrixType;
  std::vector<double> functionMaximum, functionMinimum;
  std::vector<signed char> onBoundary;
  std::size_t size() const { return sourceId.size(); }
};

// Which records to build (TTK's output switches).
struct RecordSwitches {
  bool criticalPoints = true;
  bool ascending1 = true, descending1 = true, saddleConnectors = false;
  bool manifoldSizes = true; // both segmentations computed: ManifoldSize, else -1
};

struct Records {
  CriticalPointRecords criticalPoints;
  Separatrix1Records separatrices1;
  Separatrix2Records separatrices2;
};

// Vertices per label (ManifoldSize of the extrema).
inline std::vector<SimplexId> labelSizes(const std::vector<std::int32_t>& labels,
                                         std::size_t count) {
  std::vector<SimplexId> sizes(count, 0);
  for (const auto l : labels)
    if (l >= 0 && std::size_t(l) < count)
      ++sizes[std::size_t(l)];
  return sizes;
}

} // namespace topogpu::morse_smale_complex
