// The inputs of Vietoris-Rips persistence (VTK-free): a point cloud or a distance matrix
// in Ripser's text formats, read into either a dense lower-triangular matrix or a sparse
// edge list. Every reader rejects what is not a finite metric input with an Error that
// names the line or the entry.
#pragma once

#include "core/common/Types.h"

#include <istream>
#include <string>
#include <vector>

namespace topogpu::rips_persistence {

enum class InputFormat { Distance, LowerDistance, UpperDistance, PointCloud, Sparse };

InputFormat parseInputFormat(const std::string& name); // Error on an unknown name
const char* inputFormatName(InputFormat format);

// One edge of a sparse input (i != j, d >= 0 finite).
struct SparseEdge {
  SimplexId i = 0;
  SimplexId j = 0;
  float distance = 0;
};

// What a reader produced. Exactly one of `lowerDistances` (dense: entry of i > j at
// i(i-1)/2 + j, which is also the edge's combinatorial index), `points` (row-major,
// numberOfPoints x pointDimension) or `edges` (sparse) holds the data.
struct RipsInput {
  InputFormat format = InputFormat::LowerDistance;
  SimplexId numberOfPoints = 0;
  std::vector<float> lowerDistances;
  std::vector<double> points;
  int pointDimension = 0;
  std::vector<SparseEdge> edges;
  std::vector<std::string> notes; // things ignored on the way (diagonal entries)
};

// Parses `in` in `format`; `what` names the source in messages ("'file.txt'").
RipsInput readRipsInput(std::istream& in, InputFormat format, const std::string& what);

// In-memory constructors (tests, the later VTK filter); they validate like the readers.
RipsInput fromPoints(std::vector<double> points, int pointDimension);
RipsInput fromLowerDistances(std::vector<float> lower); // size n(n-1)/2

} // namespace topogpu::rips_persistence
