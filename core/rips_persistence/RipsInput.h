// The inputs of Vietoris-Rips persistence (VTK-free): a point cloud or a distance matrix
// in Ripser's text formats, read into either a dense lower-triangular matrix or a sparse
// edge list. Every reader rejects what is not a finite metric input with an Error that
// names the line or the entry.
#pragma once

#include "base/Types.h"

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
//
// Rips persistence commutes with scaling, and the filtration is single precision (as
// Ripser's): distances beyond its range (above 3.4e38, or nonzero below 1.2e-38, which
// would round to infinity or to 0) are stored times 2^-scaleExponent, a power of two
// that puts them inside it (multiplying by it is exact), and the results are given
// back times 2^scaleExponent, in the input's units. An input whose distances span more
// than single precision holds at once (a ratio beyond about 2^250) is refused, naming
// the values. scaleExponent is 0 for every input inside the range: its floats are the
// input's, rounded once, as Ripser's.
struct RipsInput {
  InputFormat format = InputFormat::LowerDistance;
  SimplexId numberOfPoints = 0;
  std::vector<float> lowerDistances; // times 2^-scaleExponent
  std::vector<double> points;        // times 2^-scaleExponent
  int pointDimension = 0;
  std::vector<SparseEdge> edges; // distances times 2^-scaleExponent
  int scaleExponent = 0;
  std::vector<Warning> notes; // things ignored on the way (diagonal entries)
};

// Parses `in` in `format`; `what` names the source in messages ("'file.txt'").
RipsInput readRipsInput(std::istream& in, InputFormat format, const std::string& what);

// In-memory constructors (tests, the VTK filter); they validate like the readers.
RipsInput fromPoints(std::vector<double> points, int pointDimension);
RipsInput fromLowerDistances(std::vector<float> lower); // size n(n-1)/2
// Distances in double precision, scaled as above when they leave single precision.
RipsInput fromDoubleLowerDistances(const std::vector<double>& lower);

// The distance of points i and j as the filtration has it (the stored single-precision
// value), in the input's units.
double inputDistance(const RipsInput& input, SimplexId i, SimplexId j);

} // namespace topogpu::rips_persistence
