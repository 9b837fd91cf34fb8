// Keeping a Rips input inside single precision, the filtration's type (RipsInput.h):
// the power of two its distances are stored at, and the inputs that single precision
// cannot hold at any scale, refused by name.
#pragma once

#include "base/Types.h"

#include <string>
#include <vector>

namespace topogpu::rips_persistence::detail {

// The exponent s for distances whose nonzero values lie in [smallest, largest]: 0 when
// they lie in [2^-100, 2^100] (or none is nonzero), else the middle of their exponents,
// so that every value times 2^-s is a normal float. Error naming both values (where*:
// "row 3, column 1") when they span more than that.
int distanceScale(double smallest, const std::string& smallestWhere, double largest,
                  const std::string& largestWhere);

// The exponent s for point coordinates of largest magnitude `largest`: 0 when it lies in
// [2^-60, 2^60] (or is 0), else its own exponent (the coordinates times 2^-s are then at
// most 2 in magnitude, their squared distances far from the double range's ends).
int coordinateScale(double largest);

// Error when two distinct points of a cloud (coordinates already times 2^-s, row-major)
// are so close that their distance would round to 0 in single precision: nearer than
// 2^-126 at that scale, i.e. more than 2^126 below the coordinates' magnitude. Cheap
// unless some coordinate has two values that close (sorted gaps per coordinate), when
// every pair is checked.
void checkPointSeparation(const std::vector<double>& points, int dimension, int scale);

// "1e-320", "5": a value for a message (%.6g).
std::string valueText(double x);

} // namespace topogpu::rips_persistence::detail
