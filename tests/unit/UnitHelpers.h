// gtest checks the module unit tests share (the bad-input contract, progress and abort)
// and their inputs (random fields, grid names).
#pragma once

#include "base/Types.h"
#include "core/discrete_gradient/DiscreteGradient.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace topogpu::test {

// f must throw an Error whose message names the problem (contains part).
inline void expectError(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << part << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// run(monitor) executes a module: its progress must be reported (at least three times,
// never going back, ending at 1), and a requested abort must throw Aborted.
inline void expectProgressAndAbort(const std::function<void(const Monitor&)>& run) {
  std::vector<double> seen;
  Monitor monitor;
  monitor.progress = [&](double f) { seen.push_back(f); };
  run(monitor);
  ASSERT_GE(seen.size(), 3u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  Monitor abort;
  abort.abortRequested = [] { return true; };
  EXPECT_THROW(run(abort), Aborted);
}

// "5x4x3": a grid's shape in test messages.
inline std::string gridName(SimplexId nx, SimplexId ny, SimplexId nz) {
  return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
}

// n values drawn uniformly from the integers 0 .. levels - 1 (few levels: ties
// everywhere, which the vertex order breaks).
template <typename T = float>
std::vector<T> randomLevels(std::mt19937& rng, std::size_t n, int levels) {
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::vector<T> values(n);
  for (T& x : values)
    x = T(level(rng));
  return values;
}

// n values drawn uniformly from [lo, hi).
template <typename T>
std::vector<T> randomUniform(std::mt19937& rng, std::size_t n, T lo, T hi) {
  std::uniform_real_distribution<T> u(lo, hi);
  std::vector<T> values(n);
  for (T& x : values)
    x = u(rng);
  return values;
}

// The CPU discrete gradient of a float field on an nx x ny x nz grid.
inline discrete_gradient::Output gradientOf(SimplexId nx, SimplexId ny, SimplexId nz,
                                            const std::vector<float>& v) {
  ImplicitTriangulation tri(nx, ny, nz);
  discrete_gradient::Output out;
  discrete_gradient::execute(
      tri, ScalarArrayView{v.data(), ScalarType::Float32, SimplexId(v.size())},
      {Backend::Cpu}, Monitor{}, out);
  return out;
}

} // namespace topogpu::test
