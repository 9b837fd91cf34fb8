#include "EikonalMesh.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

namespace topogpu::eikonal::detail {

namespace {

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

// The mesh in its own units: every coordinate times pointScale (a power of two that
// brings the largest one into [0.5, 1), so no difference overflows), differences then
// times lengthScale (a power of two that brings the largest edge component near 1, so
// no square overflows or underflows). Both are exact: the geometry is the input's,
// up to a power of two, whatever the mesh's scale (1e-200 or 1e200).
struct Scaled {
  const double* points;
  double pointScale, lengthScale;
  void difference(SimplexId a, SimplexId b, double d[3]) const {
    const double* p = points + 3 * a;
    const double* q = points + 3 * b;
    for (int c = 0; c < 3; ++c)
      d[c] = (q[c] * pointScale - p[c] * pointScale) * lengthScale;
  }
  double distance(SimplexId a, SimplexId b) const {
    double d[3];
    difference(a, b, d);
    return std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  }
};

struct Vec2 {
  double x, y;
};
Vec2 operator-(Vec2 a, Vec2 b) {
  return {a.x - b.x, a.y - b.y};
}
double dot(Vec2 a, Vec2 b) {
  return a.x * b.x + a.y * b.y;
}
double cross(Vec2 a, Vec2 b) {
  return a.x * b.y - a.y * b.x;
}
double norm(Vec2 a) {
  return std::sqrt(dot(a, a));
}

enum UnfoldingStop { Boundary = 0, NonManifold = 1, Apex = 2, Steps = 3, Found = 4 };

// The triangle other than `previous` on the edge (p, q), and its third vertex; the
// number of such triangles (1 on a manifold interior edge).
int across(const ExplicitTriangulation& tri, SimplexId p, SimplexId q, SimplexId previous,
           SimplexId& triangle, SimplexId& third) {
  int found = 0;
  const int n = tri.getVertexStarNumber(p);
  for (int i = 0; i < n; ++i) {
    const SimplexId t = tri.getVertexStar(p, i);
    if (t == previous)
      continue;
    SimplexId other = -1;
    bool hasQ = false;
    for (int k = 0; k < 3; ++k) {
      const SimplexId u = tri.getCellVertex(t, k);
      if (u == q)
        hasQ = true;
      else if (u != p)
        other = u;
    }
    if (hasQ) {
      ++found;
      triangle = t;
      third = other;
    }
  }
  return found;
}

// The split of an obtuse angle into angles of at most 90 degrees (the paper's figure
// 2.2, after Kimmel and Sethian), from the vertices that, unfolded into t's plane
// across the triangles beyond the opposite edge, lie inside the angle: a chain x1, c1,
// ..., cm, x2 of them in angular order whose consecutive directions from x3 are at
// most 90 degrees apart (the paper's single c within 90 degrees of both x3x1 and x3x2
// is the chain of one; chains of several exist much sooner on stretched meshes, whose
// angles near 180 degrees leave that c a narrow wedge). Greedy: from x1, the candidate
// farthest round within 90 degrees, and so on (the fewest virtual triangles). The walk
// follows the bisector of the angle: each step unfolds the triangle beyond the current
// edge and keeps the edge the bisector crosses next. It stops at a boundary or
// non-manifold edge, on returning to x3, or after maxSteps triangles; the chain then
// still uses the candidates found, its gaps wider than 90 degrees solved through their
// two edges only (causal: the value passes along a virtual edge to x3).
class Fan {
public:
  // A fan's points: at most one per unfolding step, then x2.
  static constexpr int kCapacity = kMaxUnfoldingSteps + 1;

  Fan(Vec2 a, Vec2 b) : a_(a), b_(b) {}

  // Keeps c when it is strictly inside the angle, in angular order from x3x1 (inside an
  // angle below 180 degrees, c1 comes before c2 when cross(c1, c2) > 0).
  void add(Vec2 c, SimplexId id) {
    if (!(cross(a_, c) > 0 && cross(c, b_) > 0) || size_ == kCapacity - 1)
      return;
    int at = size_++;
    while (at > 0 && cross(c, candidates_[at - 1].position) > 0) {
      candidates_[at] = candidates_[at - 1];
      --at;
    }
    candidates_[at] = {c, id};
  }

  // The chain into out[0 .. count) (x2 = (b, x2Id) last); true when no gap is obtuse.
  bool chain(SimplexId x2Id, FanPoint* out, int& count) const {
    count = 0;
    Vec2 current = a_;
    int next = 0; // the first candidate after current
    bool complete = true;
    while (!(dot(current, b_) >= 0) && next < size_) {
      // The candidates after current come in increasing angle from it, so those within
      // 90 degrees of it are a prefix: take its last (the farthest round), or, when
      // none is, the nearest (that gap stays obtuse).
      int step = next;
      while (step + 1 < size_ && dot(current, candidates_[step + 1].position) >= 0)
        ++step;
      const bool obtuse = !(dot(current, candidates_[step].position) >= 0);
      complete = complete && !obtuse;
      const Vec2 c = candidates_[step].position;
      out[count++] = {candidates_[step].id, norm(c), norm(c - current),
                      std::uint8_t(obtuse)};
      current = c;
      next = step + 1;
    }
    const bool last = !(dot(current, b_) >= 0);
    out[count++] = {x2Id, norm(b_), norm(b_ - current), std::uint8_t(last)};
    return complete && !last;
  }

private:
  struct Candidate {
    Vec2 position;
    SimplexId id;
  };
  Vec2 a_, b_;
  Candidate candidates_[kCapacity];
  int size_ = 0;
};

UnfoldingStop unfold(const ExplicitTriangulation& tri, const Mesh& mesh, SimplexId t,
                     int k, int maxSteps, FanPoint* out, int& count) {
  const double* l = &mesh.length[3 * std::size_t(t)];
  const SimplexId x3 = tri.getCellVertex(t, k);
  SimplexId pId = tri.getCellVertex(t, (k + 1) % 3); // x1
  SimplexId qId = tri.getCellVertex(t, (k + 2) % 3); // x2
  const SimplexId x2 = qId;
  const double la = l[(k + 2) % 3], lb = l[(k + 1) % 3], lc = l[k];
  // x3 at the origin, x1 on the x axis, x2 above it.
  const Vec2 a{la, 0};
  const double cosine = (la * la + lb * lb - lc * lc) / (2 * la * lb);
  const Vec2 b{lb * cosine, lb * std::sqrt(std::max(0.0, 1 - cosine * cosine))};
  const Vec2 ray{a.x / la + b.x / lb, a.y / la + b.y / lb};
  Vec2 p = a, q = b, r{0, 0}; // r: the previous triangle's vertex opposite (p, q)
  SimplexId previous = t;
  const bool pLeft = cross(ray, p) > 0;
  Fan fan(a, b);
  UnfoldingStop stop = Steps;
  for (int step = 0; step < maxSteps; ++step) {
    SimplexId next = -1, cId = -1;
    const int beyond = across(tri, pId, qId, previous, next, cId);
    if (beyond == 0 || beyond > 1 || cId == x3) {
      stop = beyond == 0 ? Boundary : beyond > 1 ? NonManifold : Apex;
      break;
    }
    const double edge = norm(q - p);
    if (!(edge > 0)) {
      stop = Boundary; // a degenerate edge: nothing to unfold across
      break;
    }
    // |p c| and |q c| from the lengths of the triangle beyond.
    const double* ln = &mesh.length[3 * std::size_t(next)];
    double d1 = 0, d2 = 0;
    for (int j = 0; j < 3; ++j) {
      const SimplexId u = tri.getCellVertex(next, j);
      if (u == qId)
        d1 = ln[j]; // opposite q: the edge p c
      else if (u == pId)
        d2 = ln[j];
    }
    const Vec2 e{(q.x - p.x) / edge, (q.y - p.y) / edge};
    const Vec2 normal{-e.y, e.x};
    const double u = (d1 * d1 - d2 * d2 + edge * edge) / (2 * edge);
    const double w = std::sqrt(std::max(0.0, d1 * d1 - u * u));
    const double side = dot(r - p, normal) > 0 ? -w : w; // away from the previous one
    const Vec2 c{p.x + u * e.x + side * normal.x, p.y + u * e.y + side * normal.y};
    fan.add(c, cId);
    if (fan.chain(x2, out, count))
      return Found;
    if ((cross(ray, c) > 0) == pLeft) {
      r = p;
      p = c;
      pId = cId;
    } else {
      r = q;
      q = c;
      qId = cId;
    }
    previous = next;
  }
  fan.chain(x2, out, count);
  return stop;
}

// The mesh's units (Scaled) after the coordinates' check: powers of two, so the
// solvers' arithmetic is the input's up to them and the results scale back exactly
// (Problem.h).
Scaled meshUnits(const ExplicitTriangulation& tri, const double* points, Mesh& mesh) {
  const SimplexId nv = tri.getNumberOfVertices();
  const SimplexId nt = tri.getNumberOfCells();
  double largest = 0;
  for (SimplexId v = 0; v < nv; ++v) {
    for (int c = 0; c < 3; ++c) {
      if (!std::isfinite(points[3 * v + c]))
        throw Error("point " + std::to_string(v) + " has a NaN or infinite coordinate");
      largest = std::max(largest, std::abs(points[3 * v + c]));
    }
  }
  int pointExponent = 0, lengthExponent = 0;
  if (largest > 0)
    std::frexp(largest, &pointExponent);
  Scaled geometry{points, std::ldexp(1.0, -pointExponent), 1.0};
  const double largestDifference = tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, nt), 0.0,
      [&](const tbb::blocked_range<SimplexId>& range, double m) {
        for (SimplexId t = range.begin(); t < range.end(); ++t)
          for (int k = 0; k < 3; ++k) {
            double d[3];
            geometry.difference(tri.getCellVertex(t, k),
                                tri.getCellVertex(t, (k + 1) % 3), d);
            m = std::max({m, std::abs(d[0]), std::abs(d[1]), std::abs(d[2])});
          }
        return m;
      },
      [](double a, double b) { return std::max(a, b); });
  if (largestDifference > 0)
    std::frexp(largestDifference, &lengthExponent);
  geometry.lengthScale = std::ldexp(1.0, -lengthExponent);
  mesh.lengthExponent = pointExponent + lengthExponent;
  mesh.unitExponent = mesh.lengthExponent;
  return geometry;
}

// Throws Error for a missing speed array and for speeds that are not finite or below the
// smallest normal double.
void checkSpeeds(const Parameters& parameters, SimplexId nv, SimplexId nt) {
  const double* speed = parameters.speedValues;
  // Below the smallest normal double a speed's inverse overflows.
  const auto badSpeed = [](double x) {
    return !(x >= std::numeric_limits<double>::min()) || !std::isfinite(x);
  };
  const auto tooSmall = [](double x) {
    return x > 0 && x < std::numeric_limits<double>::min()
               ? " (below 2.2250738585072014e-308, the smallest normal double)"
               : "";
  };
  if (parameters.speedKind == SpeedKind::Constant) {
    if (badSpeed(parameters.speed))
      throw Error("the speed must be finite and positive, got " +
                  number(parameters.speed) + tooSmall(parameters.speed));
  } else {
    const bool perVertex = parameters.speedKind == SpeedKind::PerVertex;
    if (speed == nullptr)
      throw Error(std::string("no speed array was given (") +
                  (perVertex ? "per vertex" : "per triangle") + ")");
    const SimplexId n = perVertex ? nv : nt;
    for (SimplexId i = 0; i < n; ++i) {
      if (badSpeed(speed[i]))
        throw Error("the speed must be finite and positive; it is " + number(speed[i]) +
                    " at " + (perVertex ? "vertex " : "triangle ") + std::to_string(i) +
                    tooSmall(speed[i]));
    }
  }
}

// Per triangle: its edge lengths in the mesh's units, its slowness, whether it is
// degenerate (edges only) and its obtuse corner (-1: none), returned.
std::vector<std::int8_t> measureTriangles(const ExplicitTriangulation& tri,
                                          const Scaled& geometry,
                                          const Parameters& parameters, Mesh& mesh) {
  const SimplexId nt = tri.getNumberOfCells();
  const double* speed = parameters.speedValues;
  mesh.length.assign(3 * std::size_t(nt), 0);
  mesh.slowness.assign(std::size_t(nt), 0);
  mesh.edgesOnly.assign(std::size_t(nt), 0);
  mesh.splitCorner.assign(std::size_t(nt), -1);
  std::vector<std::int8_t> obtuse(std::size_t(nt), -1);
  // Relative to the longest edge, so a sliver whose smallest angle is about 1e-10 rad
  // counts as degenerate whatever the mesh's scale.
  constexpr double kDegenerateArea = 1e-10;
  std::atomic<SimplexId> degenerateCount{0};
  tbb::parallel_for(
      tbb::blocked_range<SimplexId>(0, nt),
      [&](const tbb::blocked_range<SimplexId>& range) {
        SimplexId degenerate = 0;
        for (SimplexId t = range.begin(); t < range.end(); ++t) {
          SimplexId v[3];
          for (int k = 0; k < 3; ++k)
            v[k] = tri.getCellVertex(t, k);
          double* l = &mesh.length[3 * std::size_t(t)];
          for (int k = 0; k < 3; ++k)
            l[k] = geometry.distance(v[(k + 1) % 3], v[(k + 2) % 3]);
          switch (parameters.speedKind) {
          case SpeedKind::Constant:
            mesh.slowness[t] = 1 / parameters.speed;
            break;
          case SpeedKind::PerVertex: {
            const double sum = speed[v[0]] + speed[v[1]] + speed[v[2]];
            mesh.slowness[t] =
                sum < HUGE_VAL
                    ? 3 / sum
                    : 1 / (speed[v[0]] / 3 + speed[v[1]] / 3 + speed[v[2]] / 3);
            break;
          }
          case SpeedKind::PerTriangle:
            mesh.slowness[t] = 1 / speed[t];
            break;
          }
          double e1[3], e2[3];
          geometry.difference(v[0], v[1], e1);
          geometry.difference(v[0], v[2], e2);
          const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1],
                               e1[2] * e2[0] - e1[0] * e2[2],
                               e1[0] * e2[1] - e1[1] * e2[0]};
          const double area2 = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
          const double longest = std::max({l[0], l[1], l[2]});
          if (!(area2 > kDegenerateArea * longest * longest)) {
            mesh.edgesOnly[t] = 1;
            ++degenerate;
            continue;
          }
          for (int k = 0; k < 3; ++k) {
            const double a = l[(k + 1) % 3], b = l[(k + 2) % 3];
            // Right angles (up to rounding) need no split: without the margin,
            // rounding would split some of them and not others.
            if (l[k] * l[k] > (a * a + b * b) * (1 + 1e-9))
              obtuse[t] = std::int8_t(k);
          }
        }
        degenerateCount += degenerate;
      });
  mesh.degenerateTriangles = degenerateCount;
  return obtuse;
}

// The obtuse angles split by unfolding (the fans in mesh.fanPoints, triangle by
// triangle) and the unfolding's statistics; returns, per vertex v, how many fan points
// depend on v at entry v + 1.
std::vector<SimplexId> unfoldObtuseAngles(const ExplicitTriangulation& tri,
                                          const Parameters& parameters,
                                          const std::vector<std::int8_t>& obtuse,
                                          Mesh& mesh) {
  const SimplexId nv = tri.getNumberOfVertices();
  const SimplexId nt = tri.getNumberOfCells();
  // The fans, compacted: each thread keeps the fans it built (triangle, then points),
  // their sizes give the offsets in triangle order, then each thread copies its own.
  struct Built {
    std::vector<SimplexId> triangles;
    std::vector<FanPoint> points;
  };
  tbb::enumerable_thread_specific<Built> built;
  std::vector<std::uint8_t> fanSize(std::size_t(nt), 0);
  std::atomic<SimplexId> stops[5] = {0, 0, 0, 0, 0};
  const int maxSteps = parameters.maxUnfoldingSteps;
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, nt),
                    [&](const tbb::blocked_range<SimplexId>& range) {
                      SimplexId local[5] = {0, 0, 0, 0, 0};
                      Built& mine = built.local();
                      FanPoint points[Fan::kCapacity];
                      for (SimplexId t = range.begin(); t < range.end(); ++t) {
                        if (obtuse[t] < 0)
                          continue;
                        if (!parameters.unfoldObtuseAngles) {
                          ++local[Steps];
                          continue;
                        }
                        int count = 0;
                        ++local[unfold(tri, mesh, t, obtuse[t], maxSteps, points, count)];
                        // Only x2: nothing unfolded inside the angle (the triangle's own
                        // edges, below).
                        if (count < 2)
                          continue;
                        fanSize[t] = std::uint8_t(count);
                        mine.triangles.push_back(t);
                        mine.points.insert(mine.points.end(), points, points + count);
                      }
                      for (int i = 0; i < 5; ++i)
                        stops[i] += local[i];
                    });
  SimplexId obtuseCount = 0;
  for (int i = 0; i < 5; ++i)
    obtuseCount += stops[i];
  for (int i = 0; i < 4; ++i)
    mesh.unfoldingStops[i] = stops[i];
  mesh.obtuseAngles = obtuseCount;
  mesh.unfoldedAngles = stops[Found];
  mesh.fanStart.assign(std::size_t(nt), -1);
  std::int64_t fanTotal = 0;
  for (SimplexId t = 0; t < nt; ++t) {
    if (obtuse[t] < 0)
      continue;
    if (fanSize[t] == 0) {
      mesh.edgesOnly[t] = 1;
      continue;
    }
    mesh.splitCorner[t] = obtuse[t];
    mesh.fanStart[t] = fanTotal;
    fanTotal += fanSize[t];
  }
  mesh.fanSize = std::move(fanSize);
  mesh.fanPoints.resize(std::size_t(fanTotal));
  std::vector<SimplexId> dependentCount(std::size_t(nv) + 1, 0);
  for (const Built& mine : built) {
    std::size_t at = 0;
    for (SimplexId t : mine.triangles) {
      FanPoint* fan = &mesh.fanPoints[std::size_t(mesh.fanStart[t])];
      for (int i = 0; i < mesh.fanSize[t]; ++i)
        fan[i] = mine.points[at++];
      for (int i = 0; i + 1 < mesh.fanSize[t]; ++i) // not x2, the last
        ++dependentCount[fan[i].vertex + 1];
    }
  }
  built.clear();
  return dependentCount;
}

// Per vertex, the split corners whose fans pass through it (CSR, triangle order).
void indexDependents(const ExplicitTriangulation& tri,
                     const std::vector<SimplexId>& dependentCount, Mesh& mesh) {
  const SimplexId nv = tri.getNumberOfVertices();
  const SimplexId nt = tri.getNumberOfCells();
  mesh.dependentOffsets.assign(std::size_t(nv) + 1, 0);
  for (SimplexId v = 0; v < nv; ++v)
    mesh.dependentOffsets[v + 1] = mesh.dependentOffsets[v] + dependentCount[v + 1];
  mesh.dependents.assign(std::size_t(mesh.dependentOffsets[nv]), 0);
  std::vector<SimplexId> fill(mesh.dependentOffsets.begin(),
                              mesh.dependentOffsets.end() - 1);
  for (SimplexId t = 0; t < nt; ++t) {
    if (mesh.splitCorner[t] < 0)
      continue;
    const FanPoint* fan = &mesh.fanPoints[std::size_t(mesh.fanStart[t])];
    for (int i = 0; i + 1 < mesh.fanSize[t]; ++i)
      mesh.dependents[fill[fan[i].vertex]++] = tri.getCellVertex(t, mesh.splitCorner[t]);
  }
}

// Slowness in units of a power of two near the largest: travel times in the mesh's
// units stay near the lengths (a speed of 1e-300 or 1e300 neither overflows nor
// underflows them).
void scaleSlowness(Mesh& mesh) {
  const SimplexId nt = mesh.triangles;
  using Range = std::pair<double, double>; // the smallest and largest slowness
  const Range range = tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, nt), Range{HUGE_VAL, 0.0},
      [&](const tbb::blocked_range<SimplexId>& r, Range m) {
        for (SimplexId t = r.begin(); t < r.end(); ++t)
          m = {std::min(m.first, mesh.slowness[t]), std::max(m.second, mesh.slowness[t])};
        return m;
      },
      [](Range a, Range b) {
        return Range{std::min(a.first, b.first), std::max(a.second, b.second)};
      });
  const double slowest = range.second;
  mesh.uniformSpeed = range.first == range.second;
  int slownessExponent = 0;
  if (slowest > 0 && slowest < HUGE_VAL)
    std::frexp(slowest, &slownessExponent);
  if (slownessExponent != 0)
    for (double& s : mesh.slowness)
      s = std::ldexp(s, -slownessExponent);
  mesh.unitExponent += slownessExponent;
}

// The mean edge length and time and the area, summed in triangle order (a fixed sum:
// the exact start's radius derives from it).
void sumMeasures(Mesh& mesh) {
  const SimplexId nt = mesh.triangles;
  double timeSum = 0, lengthSum = 0, areaSum = 0;
  for (SimplexId t = 0; t < nt; ++t) {
    const double* l = &mesh.length[3 * std::size_t(t)];
    lengthSum += l[0] + l[1] + l[2];
    // Heron's formula in its stable form (Kahan), sides sorted a >= b >= c.
    double e[3] = {l[0], l[1], l[2]};
    std::sort(e, e + 3, std::greater<double>());
    const double product = (e[0] + (e[1] + e[2])) * (e[2] - (e[0] - e[1])) *
                           (e[2] + (e[0] - e[1])) * (e[0] + (e[1] - e[2]));
    areaSum += product > 0 ? std::sqrt(product) / 4 : 0.0;
    timeSum += (l[0] + l[1] + l[2]) * mesh.slowness[t];
  }
  mesh.meanEdgeLength = nt > 0 ? lengthSum / double(3 * nt) : 0;
  mesh.area = areaSum;
  mesh.meanEdgeTime = nt > 0 ? timeSum / double(3 * nt) : 0;
}

} // namespace

void buildMesh(const ExplicitTriangulation& tri, const double* points,
               const Parameters& parameters, Mesh& mesh) {
  const SimplexId nv = tri.getNumberOfVertices();
  const SimplexId nt = tri.getNumberOfCells();
  mesh.tri = &tri;
  mesh.vertices = nv;
  mesh.triangles = nt;
  const Scaled geometry = meshUnits(tri, points, mesh);
  checkSpeeds(parameters, nv, nt);
  const std::vector<std::int8_t> obtuse =
      measureTriangles(tri, geometry, parameters, mesh);
  indexDependents(tri, unfoldObtuseAngles(tri, parameters, obtuse, mesh), mesh);
  scaleSlowness(mesh);
  sumMeasures(mesh);
}

} // namespace topogpu::eikonal::detail
