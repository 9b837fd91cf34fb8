// gpu_equality's cases for the simplicial complex of implicit grids (TTK's, the
// Freudenthal triangulation): the GPU's discrete gradient against the CPU's, byte for
// byte, and the Morse-Smale complex built on it.
#pragma once

#include "base/ScalarArray.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace topogpu::test {

struct EqualityChecks {
  int checks = 0, failures = 0;
  void expect(bool ok, const std::string& what);
};

// Each raw volume of folder (NAME_XxYxZ_TYPE.raw, TYPE uint8, int16le, float32 or
// float64) in name order: visit(file name, dims, values). False when there is no such
// folder.
bool forEachRawVolume(
    const std::string& folder,
    const std::function<void(const std::string&, const std::array<SimplexId, 3>&,
                             const ScalarArrayView&)>& visit);

// A vertex order of values that breaks their ties at random (not by vertex id), as TTK's
// `<field>_Order` of a simplified field does: for ScalarArrayView::order.
std::vector<SimplexId> ranksWithRandomTies(const ScalarArrayView& values,
                                           std::uint32_t seed);

// Synthetic fields, then every raw volume of volumeFolder (none when empty). hostOnly:
// the CPU's invariants only (Euler's relation), no device; injectFaults: also the
// fallback after a CUDA failure injected in each stage (off under compute-sanitizer).
void simplicialEquality(const std::string& volumeFolder, bool hostOnly, bool injectFaults,
                        EqualityChecks& checks);

} // namespace topogpu::test
