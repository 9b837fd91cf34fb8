// `topogpu simplify`'s files: the constraint points (our diagram CSV, or a TTK-layout
// diagram .vtu/.vtp read through VTK) and the simplified field (.raw: values only;
// .vti/.vtu/.vtp through VTK: the field under the input's array name and type plus
// <name>_Order).
#pragma once

#include "base/ScalarArray.h"
#include "core/topological_simplification/TopologicalSimplification.h"

#include <array>
#include <string>
#include <vector>

class vtkDataSet;

namespace topogpu::cli {

// Both ends of every row of a `topogpu persistence --out` CSV (BirthVertex with
// BirthCriticalType, DeathVertex with DeathCriticalType), or every point of a .vtu/.vtp
// with the point arrays ttkVertexScalarField and CriticalType. Error naming the file and
// the problem.
std::vector<topological_simplification::Constraint>
readConstraints(const std::string& path);

// The simplified field: path ends in .raw (values only), else .vti for a grid (a raw
// volume of the given dims, or a copy of the .vti it came from) or the input mesh's own
// format (.vtu, .vtp) with the array replaced and <name>_Order added.
struct SimplifiedField {
  // The data set the input file was read into (Domain::dataSet), written again with the
  // simplified array: the file is not read a second time. Null for a raw volume and for
  // a mesh read without VTK (.off, .ply: .raw only).
  vtkDataSet* input = nullptr;
  bool rawVolume = false;
  std::array<SimplexId, 3> dims{1, 1, 1}; // a raw volume's
  std::string arrayName;
  ScalarArrayView values;
  const std::vector<SimplexId>* order = nullptr;
};
void writeSimplifiedField(const std::string& path, const SimplifiedField& field);

#if TOPOGPU_WITH_VTK
// The VTK parts (SimplifyVtk.cxx).
std::vector<topological_simplification::Constraint>
readConstraintsVtk(const std::string& path);
void writeSimplifiedFieldVtk(const std::string& path, const SimplifiedField& field);
#endif

} // namespace topogpu::cli
