#include "RipsInput.h"

#include "RipsDistances.h"
#include "RipsSinglePrecision.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

namespace topogpu::rips_persistence {

namespace {

// Point indices of the sparse format are read as doubles and kept well inside 32 bits.
constexpr double kMaxSparsePointIndex = 2e9;

std::string lineError(const std::string& what, std::size_t lineNumber,
                      const std::string& problem) {
  std::string message = what;
  message += " line ";
  message += std::to_string(lineNumber);
  message += ": ";
  message += problem;
  return message;
}

// Numbers of one line, split at whitespace, commas and semicolons; '#' starts a comment.
std::vector<double> lineNumbers(const std::string& line, std::size_t lineNumber,
                                const std::string& what) {
  std::vector<double> values;
  std::size_t i = 0;
  const std::size_t end = std::min(line.find('#'), line.size());
  auto separator = [](char c) {
    return c == ' ' || c == '\t' || c == ',' || c == ';' || c == '\r';
  };
  while (i < end) {
    while (i < end && separator(line[i]))
      ++i;
    if (i >= end)
      break;
    std::size_t j = i;
    while (j < end && !separator(line[j]))
      ++j;
    const std::string token = line.substr(i, j - i);
    char* stop = nullptr;
    errno = 0;
    const double value = std::strtod(token.c_str(), &stop);
    if (stop != token.c_str() + token.size())
      throw Error(lineError(what, lineNumber, "'" + token + "' is not a number"));
    // strtod sets ERANGE for a subnormal result too (1e-320): that is a valid number.
    if (std::isnan(value) || (std::isinf(value) && errno != ERANGE))
      throw Error(lineError(what, lineNumber,
                            "the value '" + token +
                                "' is not a finite number (NaN or infinite)"));
    if (std::isinf(value))
      throw Error(lineError(what, lineNumber,
                            "the value '" + token +
                                "' is beyond double precision's range (about 1.8e308)"));
    if (value == 0 && errno == ERANGE)
      throw Error(lineError(what, lineNumber,
                            "the value '" + token +
                                "' is below double precision's range (about 4.9e-324): "
                                "it would be read as 0"));
    values.push_back(value);
    i = j;
  }
  return values;
}

void checkDistance(double d, const std::string& where) {
  if (d < 0)
    throw Error("negative distance " + detail::valueText(d) + " " + where);
}

// "row 3, column 1" for the lower-triangular entry e (i > j at i(i-1)/2 + j).
std::string entryName(std::size_t e) {
  auto i = std::size_t((1 + std::sqrt(1.0 + 8.0 * double(e))) / 2);
  while (i * (i - 1) / 2 > e)
    --i;
  while ((i + 1) * i / 2 <= e)
    ++i;
  return "row " + std::to_string(i) + ", column " + std::to_string(e - i * (i - 1) / 2);
}

// The lower triangle stored in single precision at the scale its values need.
void storeLowerDistances(const std::vector<double>& lower, RipsInput& input) {
  std::size_t smallest = lower.size(), largest = lower.size();
  for (std::size_t e = 0; e < lower.size(); ++e) {
    if (lower[e] > 0 && (smallest == lower.size() || lower[e] < lower[smallest]))
      smallest = e;
    if (lower[e] > 0 && (largest == lower.size() || lower[e] > lower[largest]))
      largest = e;
  }
  input.scaleExponent = largest == lower.size()
                            ? 0
                            : detail::distanceScale(lower[smallest], entryName(smallest),
                                                    lower[largest], entryName(largest));
  input.lowerDistances.resize(lower.size());
  for (std::size_t e = 0; e < lower.size(); ++e)
    input.lowerDistances[e] = float(std::ldexp(lower[e], -input.scaleExponent));
}

// n with n(n-1)/2 == count, or -1.
SimplexId triangularRoot(std::size_t count) {
  const auto guess = SimplexId((1 + std::sqrt(1.0 + 8.0 * double(count))) / 2);
  for (SimplexId n = std::max<SimplexId>(1, guess - 2); n <= guess + 2; ++n) {
    if (std::size_t(n) * std::size_t(n - 1) / 2 == count)
      return n;
  }
  return -1;
}

void requireTwoPoints(SimplexId n, const std::string& what) {
  if (n == 0)
    throw Error(what + " is empty: no points or distances");
  if (n == 1)
    throw Error(what + " has a single point: Rips persistence needs at least 2 points");
}

} // namespace

InputFormat parseInputFormat(const std::string& name) {
  if (name == "distance")
    return InputFormat::Distance;
  if (name == "lower-distance")
    return InputFormat::LowerDistance;
  if (name == "upper-distance")
    return InputFormat::UpperDistance;
  if (name == "point-cloud")
    return InputFormat::PointCloud;
  if (name == "sparse")
    return InputFormat::Sparse;
  throw Error("unknown input format '" + name +
              "' (expected distance, lower-distance, upper-distance, point-cloud or "
              "sparse)");
}

const char* inputFormatName(InputFormat format) {
  switch (format) {
  case InputFormat::Distance:
    return "distance";
  case InputFormat::LowerDistance:
    return "lower-distance";
  case InputFormat::UpperDistance:
    return "upper-distance";
  case InputFormat::PointCloud:
    return "point-cloud";
  case InputFormat::Sparse:
    return "sparse";
  }
  return "?";
}

RipsInput fromPoints(std::vector<double> points, int pointDimension) {
  if (pointDimension <= 0)
    throw Error("points need at least one coordinate");
  if (points.size() % std::size_t(pointDimension) != 0)
    throw Error("the point coordinates do not divide into points of dimension " +
                std::to_string(pointDimension));
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!std::isfinite(points[i]))
      throw Error("point " + std::to_string(i / std::size_t(pointDimension)) +
                  " has a NaN or infinite coordinate");
  }
  RipsInput input;
  input.format = InputFormat::PointCloud;
  input.numberOfPoints = SimplexId(points.size() / std::size_t(pointDimension));
  input.pointDimension = pointDimension;
  requireTwoPoints(input.numberOfPoints, "the point cloud");
  double largest = 0;
  for (const double x : points)
    largest = std::max(largest, std::fabs(x));
  input.scaleExponent = detail::coordinateScale(largest);
  if (input.scaleExponent != 0) {
    for (double& x : points)
      x = std::ldexp(x, -input.scaleExponent);
  }
  detail::checkPointSeparation(points, pointDimension, input.scaleExponent);
  input.points = std::move(points);
  return input;
}

RipsInput fromDoubleLowerDistances(const std::vector<double>& lower) {
  for (std::size_t e = 0; e < lower.size(); ++e) {
    if (!std::isfinite(lower[e]) || lower[e] < 0)
      throw Error("distance entry " + std::to_string(e) + " (" + entryName(e) + ") is " +
                  (std::isnan(lower[e]) ? "NaN" : detail::valueText(lower[e])) +
                  ": distances must be finite and >= 0");
  }
  RipsInput input = fromLowerDistances(std::vector<float>(lower.size(), 0.0f));
  storeLowerDistances(lower, input);
  return input;
}

double inputDistance(const RipsInput& input, SimplexId i, SimplexId j) {
  return std::ldexp(double(detail::storedDistance(input, i, j)), input.scaleExponent);
}

RipsInput fromLowerDistances(std::vector<float> lower) {
  RipsInput input;
  input.format = InputFormat::LowerDistance;
  if (lower.empty())
    throw Error("the distance matrix is empty: no points or distances");
  const SimplexId n = triangularRoot(lower.size());
  if (n < 0)
    throw Error("a lower-triangular distance matrix has n(n-1)/2 entries; " +
                std::to_string(lower.size()) + " is no such number");
  for (std::size_t e = 0; e < lower.size(); ++e) {
    if (!std::isfinite(lower[e]) || lower[e] < 0)
      throw Error("distance entry " + std::to_string(e) + " is " +
                  (std::isnan(lower[e]) ? "NaN" : std::to_string(lower[e])) +
                  ": distances must be finite and >= 0");
  }
  input.numberOfPoints = n;
  input.lowerDistances = std::move(lower);
  return input;
}

namespace {

// The non-empty lines of the file as numbers: one row per line (matrix, points,
// triplets), or all values in one flat list for the triangular formats.
struct InputRows {
  std::vector<std::vector<double>> rows;
  std::vector<std::size_t> rowLines;
  std::vector<double> flat;
};

InputRows readRows(std::istream& in, bool flatFormat, const std::string& what) {
  InputRows read;
  std::string line;
  std::size_t lineNumber = 0;
  while (std::getline(in, line)) {
    ++lineNumber;
    std::vector<double> values = lineNumbers(line, lineNumber, what);
    if (values.empty())
      continue;
    if (flatFormat) {
      read.flat.insert(read.flat.end(), values.begin(), values.end());
    } else {
      read.rows.push_back(std::move(values));
      read.rowLines.push_back(lineNumber);
    }
  }
  if (in.bad())
    throw Error("cannot read " + what);
  if (read.rows.empty() && read.flat.empty())
    throw Error(what + " is empty: no points or distances");
  return read;
}

RipsInput pointCloudFrom(const InputRows& read, const std::string& what) {
  const auto& rows = read.rows;
  const auto& rowLines = read.rowLines;
  const std::size_t dimension = rows[0].size();
  std::vector<double> points;
  points.reserve(rows.size() * dimension);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != dimension)
      throw Error(what + " line " + std::to_string(rowLines[r]) + " has " +
                  std::to_string(rows[r].size()) + " coordinates, the first point " +
                  std::to_string(dimension) + " (ragged point cloud)");
    points.insert(points.end(), rows[r].begin(), rows[r].end());
  }
  RipsInput cloud = fromPoints(std::move(points), int(dimension));
  return cloud;
}

// A full matrix: square, valid distances, symmetric up to the text's rounding.
RipsInput fullMatrixFrom(const InputRows& read, RipsInput input,
                         const std::string& what) {
  const auto& rows = read.rows;
  const auto& rowLines = read.rowLines;
  const std::size_t n = rows.size();
  for (std::size_t r = 0; r < n; ++r) {
    if (rows[r].size() != n)
      throw Error(what + " line " + std::to_string(rowLines[r]) + " has " +
                  std::to_string(rows[r].size()) + " entries but the matrix has " +
                  std::to_string(n) + " rows: a full distance matrix must be square");
  }
  requireTwoPoints(SimplexId(n), what);
  input.numberOfPoints = SimplexId(n);
  std::vector<double> lower(n * (n - 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    checkDistance(rows[i][i], "on the diagonal at row " + std::to_string(i));
    for (std::size_t j = 0; j < i; ++j) {
      const double a = rows[i][j], b = rows[j][i];
      const std::string where =
          "at row " + std::to_string(i) + ", column " + std::to_string(j);
      checkDistance(a, where);
      checkDistance(b, "at row " + std::to_string(j) + ", column " + std::to_string(i));
      // Text rounding may differ in the last digits; more than that is an error.
      if (std::fabs(a - b) > 1e-6 * std::max({1.0, std::fabs(a), std::fabs(b)}))
        throw Error("the distance matrix is not symmetric: entry (" + std::to_string(i) +
                    "," + std::to_string(j) + ") is " + std::to_string(a) + " but (" +
                    std::to_string(j) + "," + std::to_string(i) + ") is " +
                    std::to_string(b));
      lower[i * (i - 1) / 2 + j] = a;
    }
  }
  storeLowerDistances(lower, input);
  return input;
}

RipsInput triangularFrom(const InputRows& read, InputFormat format, RipsInput input,
                         const std::string& what) {
  const auto& flat = read.flat;
  const SimplexId n = triangularRoot(flat.size());
  if (n < 0)
    throw Error(what + " has " + std::to_string(flat.size()) + " values; a " +
                inputFormatName(format) +
                " matrix has n(n-1)/2 of them (ragged or truncated file?)");
  requireTwoPoints(n, what);
  input.numberOfPoints = n;
  std::vector<double> lower(flat.size());
  std::size_t e = 0;
  if (format == InputFormat::LowerDistance) {
    for (SimplexId i = 1; i < n; ++i) {
      for (SimplexId j = 0; j < i; ++j, ++e) {
        checkDistance(flat[e],
                      "at row " + std::to_string(i) + ", column " + std::to_string(j));
        lower[e] = flat[e];
      }
    }
  } else {
    for (SimplexId i = 0; i < n; ++i) {
      for (SimplexId j = i + 1; j < n; ++j, ++e) {
        checkDistance(flat[e],
                      "at row " + std::to_string(i) + ", column " + std::to_string(j));
        lower[std::size_t(j * (j - 1) / 2 + i)] = flat[e];
      }
    }
  }
  storeLowerDistances(lower, input);
  return input;
}

// 'i j d' lines: integer indices, each edge once (or repeated with the same distance).
RipsInput sparseFrom(const InputRows& read, RipsInput input, const std::string& what) {
  const auto& rows = read.rows;
  const auto& rowLines = read.rowLines;
  std::map<std::pair<SimplexId, SimplexId>, double> seen;
  std::vector<SimplexId> named; // every index a line gives
  SimplexId n = 0;
  std::size_t diagonal = 0;
  std::size_t largestLine = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& v = rows[r];
    const std::string where = what + " line " + std::to_string(rowLines[r]);
    if (v.size() != 3)
      throw Error(where + " has " + std::to_string(v.size()) +
                  " values; the sparse format has 'i j distance' per line");
    for (int c = 0; c < 2; ++c) {
      std::ostringstream shown; // the value as written: 3000000000, not 3000000000.000000
      shown.precision(17);
      shown << v[c];
      if (v[c] < 0 || v[c] != std::floor(v[c]))
        throw Error(where + ": '" + shown.str() +
                    "' is not a point index (an integer >= 0)");
      if (v[c] > kMaxSparsePointIndex)
        throw Error(where + ": point index " + shown.str() +
                    " is beyond the largest the sparse format takes, " +
                    std::to_string(std::int64_t(kMaxSparsePointIndex)));
    }
    checkDistance(v[2], "on " + where);
    const auto i = SimplexId(v[0]), j = SimplexId(v[1]);
    if (std::max(i, j) + 1 > n)
      largestLine = rowLines[r];
    n = std::max(n, std::max(i, j) + 1);
    named.push_back(i);
    named.push_back(j);
    if (i == j) {
      ++diagonal;
      continue;
    }
    const auto key = std::make_pair(std::max(i, j), std::min(i, j));
    const auto [it, inserted] = seen.emplace(key, v[2]);
    if (!inserted && it->second != v[2])
      throw Error(where + ": the distance between " + std::to_string(i) + " and " +
                  std::to_string(j) + " was given before as " +
                  std::to_string(it->second) + " (not symmetric)");
  }
  requireTwoPoints(n, what);
  // The points are 0..n-1; those no line names are isolated. The file's content bounds
  // their number (at most as many as it names), so that one large index cannot
  // make a tiny file a huge run.
  std::sort(named.begin(), named.end());
  const auto distinct =
      SimplexId(std::unique(named.begin(), named.end()) - named.begin());
  if (n - distinct > distinct)
    throw Error(what + " line " + std::to_string(largestLine) + ": the point index " +
                std::to_string(n - 1) + " makes " + std::to_string(n) +
                " points, but the file names only " + std::to_string(distinct) +
                " of them: the other " + std::to_string(n - distinct) +
                " would be isolated points; number the points from 0 without such a "
                "gap, or declare isolated points with 'i i 0' lines");
  if (diagonal > 0)
    input.notes.push_back({WarningCode::DiagonalEntriesIgnored,
                           std::to_string(diagonal) +
                               " diagonal entries 'i i d' ignored (every point is born "
                               "at 0)"});
  input.numberOfPoints = n;
  const auto edgeName = [](const std::pair<SimplexId, SimplexId>& key) {
    return "the edge " + std::to_string(key.second) + " " + std::to_string(key.first);
  };
  const std::pair<const std::pair<SimplexId, SimplexId>, double>*smallest = nullptr,
                                                         *largest = nullptr;
  for (const auto& entry : seen) {
    if (entry.second > 0 && (smallest == nullptr || entry.second < smallest->second))
      smallest = &entry;
    if (entry.second > 0 && (largest == nullptr || entry.second > largest->second))
      largest = &entry;
  }
  input.scaleExponent =
      largest == nullptr
          ? 0
          : detail::distanceScale(smallest->second, edgeName(smallest->first),
                                  largest->second, edgeName(largest->first));
  input.edges.reserve(seen.size());
  for (const auto& [key, d] : seen)
    input.edges.push_back(
        {key.first, key.second, float(std::ldexp(d, -input.scaleExponent))});
  return input;
}

} // namespace

RipsInput readRipsInput(std::istream& in, InputFormat format, const std::string& what) {
  RipsInput input;
  input.format = format;
  const bool flatFormat =
      format == InputFormat::LowerDistance || format == InputFormat::UpperDistance;
  const InputRows read = readRows(in, flatFormat, what);
  switch (format) {
  case InputFormat::PointCloud:
    return pointCloudFrom(read, what);
  case InputFormat::Distance:
    return fullMatrixFrom(read, std::move(input), what);
  case InputFormat::LowerDistance:
  case InputFormat::UpperDistance:
    return triangularFrom(read, format, std::move(input), what);
  case InputFormat::Sparse:
    return sparseFrom(read, std::move(input), what);
  }
  throw Error("unknown input format");
}

} // namespace topogpu::rips_persistence
