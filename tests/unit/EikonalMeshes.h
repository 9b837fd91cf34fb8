// Generated triangle surfaces for the geodesic-distance tests (unit tests and
// tests/gpu/gpu_equality.cpp): flat squares, regular or jittered, and icospheres.
#pragma once

#include "base/Types.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::eikonal {

struct Surface {
  std::vector<double> points; // x y z per vertex
  std::vector<SimplexId> cells;
  SimplexId vertices() const { return SimplexId(points.size() / 3); }
  SimplexId triangles() const { return SimplexId(cells.size() / 3); }
};

// The unit square [0, size]^2 in the z = 0 plane, n x n vertices, two triangles per
// cell. jitter moves interior vertices by up to jitter * h in x and y and the diagonal
// of each cell is then random (obtuse triangles appear).
inline Surface square(int n, double size = 1.0, double jitter = 0.0, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> shift(-jitter, jitter);
  const double h = size / (n - 1);
  Surface s;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      double x = i * h, y = j * h;
      if (jitter > 0 && i > 0 && j > 0 && i < n - 1 && j < n - 1) {
        x += shift(rng) * h;
        y += shift(rng) * h;
      }
      s.points.insert(s.points.end(), {x, y, 0.0});
    }
  }
  for (int j = 0; j + 1 < n; ++j) {
    for (int i = 0; i + 1 < n; ++i) {
      const SimplexId a = j * n + i, b = a + 1, c = a + n, d = c + 1;
      if (jitter > 0 && rng() % 2)
        s.cells.insert(s.cells.end(), {a, b, c, b, d, c});
      else
        s.cells.insert(s.cells.end(), {a, b, d, a, d, c});
    }
  }
  return s;
}

// The icosahedron (its 20 faces found as the triples at pairwise distance 2) subdivided
// `levels` times, each midpoint pushed onto the unit sphere.
inline Surface icosphere(int levels) {
  const double phi = (1 + std::sqrt(5.0)) / 2;
  std::vector<std::array<double, 3>> p;
  for (double a : {-1.0, 1.0}) {
    for (double b : {-phi, phi}) {
      p.push_back({0, a, b});
      p.push_back({a, b, 0});
      p.push_back({b, 0, a});
    }
  }
  const auto dist = [&](std::size_t i, std::size_t j) {
    return std::hypot(p[i][0] - p[j][0], p[i][1] - p[j][1], p[i][2] - p[j][2]);
  };
  std::vector<std::array<SimplexId, 3>> faces;
  for (std::size_t i = 0; i < 12; ++i)
    for (std::size_t j = i + 1; j < 12; ++j)
      for (std::size_t k = j + 1; k < 12; ++k)
        if (std::abs(dist(i, j) - 2) < 1e-9 && std::abs(dist(j, k) - 2) < 1e-9 &&
            std::abs(dist(i, k) - 2) < 1e-9)
          faces.push_back({SimplexId(i), SimplexId(j), SimplexId(k)});
  if (faces.size() != 20)
    throw std::logic_error("icosahedron: " + std::to_string(faces.size()) + " faces");
  for (auto& q : p) {
    const double r = std::hypot(q[0], q[1], q[2]);
    for (double& c : q)
      c /= r;
  }
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<SimplexId, SimplexId>, SimplexId> midpoint;
    const auto mid = [&](SimplexId a, SimplexId b) {
      const auto key = std::minmax(a, b);
      auto it = midpoint.find(key);
      if (it != midpoint.end())
        return it->second;
      std::array<double, 3> m;
      for (int c = 0; c < 3; ++c)
        m[c] = (p[a][c] + p[b][c]) / 2;
      const double r = std::hypot(m[0], m[1], m[2]);
      for (double& c : m)
        c /= r;
      p.push_back(m);
      return midpoint[key] = SimplexId(p.size() - 1);
    };
    std::vector<std::array<SimplexId, 3>> finer;
    for (const auto& f : faces) {
      const SimplexId ab = mid(f[0], f[1]), bc = mid(f[1], f[2]), ca = mid(f[2], f[0]);
      finer.push_back({f[0], ab, ca});
      finer.push_back({ab, f[1], bc});
      finer.push_back({ca, bc, f[2]});
      finer.push_back({ab, bc, ca});
    }
    faces.swap(finer);
  }
  Surface s;
  for (const auto& q : p)
    s.points.insert(s.points.end(), q.begin(), q.end());
  for (const auto& f : faces)
    s.cells.insert(s.cells.end(), f.begin(), f.end());
  return s;
}

} // namespace topogpu::eikonal
