#include "ExactStart.h"
#include "EventQueue.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>

namespace topogpu::eikonal::detail {

namespace {

// An interval [b0, b1] of the edge (a, b), in the edge's frame: a at the origin, b at
// (length, 0), the triangle `from` it came through below the axis and the triangles it
// lights above. The source, unfolded into that frame, is at (sx, sy), sy < 0, and is
// sigma away from a seed; the paths through it reach the interval's ends at the
// distances end0 and end1 (set when queued: its key and its filter read them).
struct Window {
  SimplexId a, b, from, label;
  double length, b0, b1, sx, sy, sigma, end0, end1;
};

// |(x, y)|: the mesh's units keep lengths near 1 (no overflow to guard against).
double hypotenuse(double x, double y) {
  return std::sqrt(x * x + y * y);
}

// Local index of vertex v in triangle t.
int corner(const ExplicitTriangulation& tri, SimplexId t, SimplexId v) {
  int k = 0;
  while (tri.getCellVertex(t, k) != v)
    ++k;
  return k;
}

// The parameter tau of the point P + tau Q on the line through the source S and the
// point (x, 0) of the axis.
double along(double px, double py, double qx, double qy, double sx, double sy, double x) {
  const double rx = x - sx, ry = -sy;
  const double denominator = qx * ry - qy * rx;
  if (denominator == 0)
    return 0;
  return -((px - sx) * ry - (py - sy) * rx) / denominator;
}

// Per vertex: whether shortest paths may bend there (Propagation::bends), once known.
constexpr std::uint8_t kUnknown = 0, kStraight = 1, kBends = 2;

} // namespace

struct ExactWorkspace::Data {
  std::vector<double> distance;    // +inf between runs
  std::vector<SimplexId> label;    // -1 between runs
  std::vector<std::uint8_t> bends; // kUnknown, kStraight or kBends (the mesh's)
  bool clean = true;               // distance and label are at +inf / -1 everywhere
  std::vector<Window> windows;
  EventQueue queue;
  std::vector<SimplexId> touched; // vertices given a distance
  // The distance each pseudo-source last spread from.
  std::unordered_map<SimplexId, double> sourcedAt;
  // Propagation::bends's scratch.
  std::vector<std::pair<SimplexId, SimplexId>> fan;
  std::vector<SimplexId> ends;
  std::vector<std::uint8_t> used;
};

ExactWorkspace::ExactWorkspace() = default;
ExactWorkspace::~ExactWorkspace() = default;
ExactWorkspace::ExactWorkspace(ExactWorkspace&&) noexcept = default;
ExactWorkspace& ExactWorkspace::operator=(ExactWorkspace&&) noexcept = default;

std::size_t ExactWorkspace::bytes() const {
  if (!data_)
    return 0;
  const Data& d = *data_;
  return d.distance.capacity() * sizeof(double) + d.label.capacity() * sizeof(SimplexId) +
         d.bends.capacity() + d.windows.capacity() * sizeof(Window) + d.queue.bytes() +
         d.touched.capacity() * sizeof(SimplexId);
}

ExactWorkspace::Data& ExactWorkspace::data(SimplexId vertices) {
  if (!data_)
    data_ = std::make_unique<Data>();
  Data& d = *data_;
  const std::size_t n = std::size_t(vertices);
  if (d.distance.size() != n || !d.clean) {
    d.distance.assign(n, HUGE_VAL);
    d.label.assign(n, -1);
    if (d.bends.size() != n)
      d.bends.assign(n, 0);
    d.clean = true;
  }
  return d;
}

namespace {

class Propagation {
public:
  Propagation(const Mesh& mesh, double radius, std::size_t maxWindows,
              ExactWorkspace::Data& work)
      : mesh_(mesh), tri_(*mesh.tri), radius_(radius), maxWindows_(maxWindows),
        work_(work), distance_(work.distance.data()), label_(work.label.data()),
        bends_(work.bends.data()), windows_(work.windows), queue_(work.queue),
        touched_(work.touched), sourcedAt_(work.sourcedAt) {
    windows_.clear();
    // Buckets narrow enough to hold a few windows each (a front of windows is about an
    // edge wide).
    queue_.reset(mesh.meanEdgeLength / 512);
    touched_.clear();
    sourcedAt_.clear();
  }

  void run(const std::vector<SimplexId>& seeds, ExactBall& ball) {
    // Interrupted (an exception), the workspace is reset by its next use.
    work_.clean = false;
    for (SimplexId s : seeds)
      relax(s, 0, s, true);
    double reachedAll = radius_; // every distance up to this is final
    std::size_t processed = 0;
    while (!queue_.empty()) {
      const Event e = queue_.top();
      if (e.key > radius_)
        break;
      if (processed == maxWindows_) {
        // Every event below e.key was processed: the distances below it are final.
        reachedAll = std::nextafter(e.key, 0.0);
        break;
      }
      queue_.pop();
      ++processed;
      if (e.id < 0)
        spread(-(e.id + 1));
      else
        propagate(windows_[std::size_t(e.id)]);
    }
    ball = ExactBall();
    ball.radius = reachedAll;
    ball.windows = processed;
    for (SimplexId v : touched_)
      if (distance_[v] <= reachedAll)
        ball.vertices.push_back(v);
    std::sort(ball.vertices.begin(), ball.vertices.end());
    ball.distance.resize(ball.vertices.size());
    ball.label.resize(ball.vertices.size());
    for (std::size_t i = 0; i < ball.vertices.size(); ++i) {
      ball.distance[i] = distance_[ball.vertices[i]];
      ball.label[i] = label_[ball.vertices[i]];
    }
    for (SimplexId v : touched_) {
      distance_[v] = HUGE_VAL;
      label_[v] = -1;
    }
    work_.clean = true;
  }

private:
  void pushEvent(double key, std::int64_t id) { queue_.push({key, id}); }

  double distance(SimplexId v) const { return distance_[v]; }

  // A shorter path to v; v spreads from it when paths may bend there.
  void relax(SimplexId v, double d, SimplexId label, bool seed = false) {
    if (!(d < distance_[v]))
      return;
    if (distance_[v] == HUGE_VAL)
      touched_.push_back(v);
    distance_[v] = d;
    label_[v] = label;
    if (d <= radius_ && (seed || bends(v)))
      pushEvent(d, -(v + 1));
  }

  // Whether shortest paths may pass through v and turn: unless v is an interior
  // manifold vertex (its triangles one cycle around it, each edge in two of them) whose
  // angles sum to at most 2 pi (a convex or flat vertex), or v has a degenerate triangle.
  bool bends(SimplexId v) {
    if (bends_[v] != kUnknown)
      return bends_[v] == kBends;
    const int star = tri_.getVertexStarNumber(v);
    std::vector<std::pair<SimplexId, SimplexId>>& fan = work_.fan;
    fan.resize(static_cast<std::size_t>(star));
    double angle = 0;
    bool result = false;
    for (int i = 0; i < star && !result; ++i) {
      const SimplexId t = tri_.getVertexStar(v, i);
      const int k = corner(tri_, t, v);
      fan[i] = {tri_.getCellVertex(t, (k + 1) % 3), tri_.getCellVertex(t, (k + 2) % 3)};
      const double* l = &mesh_.length[3 * std::size_t(t)];
      const double x = l[(k + 2) % 3], y = l[(k + 1) % 3], opposite = l[k];
      if (!(x > 0 && y > 0) || isDegenerate(t)) {
        result = true;
        break;
      }
      angle += std::acos(
          std::clamp((x * x + y * y - opposite * opposite) / (2 * x * y), -1.0, 1.0));
    }
    if (!result)
      result = star == 0 || angle > 2 * M_PI * (1 + 1e-9) ||
               !oneCycle(fan, work_.ends, work_.used);
    bends_[v] = result ? kBends : kStraight;
    return result;
  }

  bool isDegenerate(SimplexId t) const {
    const double* l = &mesh_.length[3 * std::size_t(t)];
    const double s = (l[0] + l[1] + l[2]) / 2;
    const double area2 = s * (s - l[0]) * (s - l[1]) * (s - l[2]);
    const double longest = std::max({l[0], l[1], l[2]});
    return !(area2 > 1e-20 * longest * longest * longest * longest);
  }

  // The triangles around a vertex, as their opposite edges (p, q): one closed cycle, each
  // endpoint shared by exactly two of them (ends and used: scratch).
  static bool oneCycle(const std::vector<std::pair<SimplexId, SimplexId>>& fan,
                       std::vector<SimplexId>& ends, std::vector<std::uint8_t>& used) {
    const std::size_t n = fan.size();
    if (n < 3)
      return false;
    ends.clear();
    for (const auto& [p, q] : fan) {
      ends.push_back(p);
      ends.push_back(q);
    }
    std::sort(ends.begin(), ends.end());
    for (std::size_t i = 0; i < ends.size(); i += 2)
      if (ends[i] != ends[i + 1] || (i + 2 < ends.size() && ends[i + 2] == ends[i]))
        return false;
    used.assign(n, 0);
    std::size_t walked = 0;
    SimplexId next = fan[0].second;
    used[0] = 1;
    while (++walked < n) {
      std::size_t found = n;
      for (std::size_t i = 0; i < n && found == n; ++i)
        if (!used[i] && (fan[i].first == next || fan[i].second == next))
          found = i;
      if (found == n)
        return false;
      used[found] = 1;
      next = fan[found].first == next ? fan[found].second : fan[found].first;
    }
    return next == fan[0].first;
  }

  // A pseudo-source at v (a seed or a vertex where paths bend): v's own distance, and a
  // window over the far edge of each of its triangles.
  void spread(SimplexId v) {
    const auto sourced = sourcedAt_.find(v);
    if (sourced != sourcedAt_.end() && !(distance_[v] < sourced->second))
      return; // spread already from this distance
    sourcedAt_[v] = distance_[v];
    const double sigma = distance_[v];
    const SimplexId label = label_[v];
    const int star = tri_.getVertexStarNumber(v);
    for (int i = 0; i < star; ++i) {
      const SimplexId t = tri_.getVertexStar(v, i);
      const int k = corner(tri_, t, v);
      const SimplexId a = tri_.getCellVertex(t, (k + 1) % 3);
      const SimplexId b = tri_.getCellVertex(t, (k + 2) % 3);
      const double* l = &mesh_.length[3 * std::size_t(t)];
      const double length = l[k], toA = l[(k + 2) % 3], toB = l[(k + 1) % 3];
      relax(a, sigma + toA, label);
      relax(b, sigma + toB, label);
      if (!(length > 0))
        continue;
      const double x = (toA * toA - toB * toB + length * length) / (2 * length);
      const double y2 = toA * toA - x * x;
      if (!(y2 > 1e-24 * length * length))
        continue; // v on the line ab: nothing lit beyond
      push({a, b, t, label, length, 0, length, x, -std::sqrt(y2), sigma, 0, 0});
    }
  }

  // Queues w unless it is past the radius or every path through it is matched by one
  // through an end of its edge (Xin and Wang's filter: the travel time through a point x
  // of the interval minus that through the end, along the edge, is monotone in x, so
  // testing the far end of the interval suffices).
  void push(Window w) {
    w.end0 = w.sigma + hypotenuse(w.b0 - w.sx, w.sy);
    w.end1 = w.sigma + hypotenuse(w.b1 - w.sx, w.sy);
    const double key = w.sx < w.b0 ? w.end0 : w.sx > w.b1 ? w.end1 : w.sigma + -w.sy;
    if (key > radius_ || dominated(w))
      return;
    pushEvent(key, std::int64_t(windows_.size()));
    windows_.push_back(w);
  }

  bool dominated(const Window& w) const {
    const double slack = 1e-12 * (w.sigma + w.length);
    const double viaA = distance(w.a) + w.b1;
    if (w.end1 > viaA + slack)
      return true;
    const double viaB = distance(w.b) + (w.length - w.b0);
    return w.end0 > viaB + slack;
  }

  // w across each triangle beyond its edge: the third vertex c when the line from the
  // source reaches it through the interval, and the parts of the interval's light that
  // leave through the edges (a, c) and (c, b).
  void propagate(Window w) {
    if (dominated(w))
      return; // its ends were reached by shorter paths since it was queued
    const int star = tri_.getVertexStarNumber(w.a);
    for (int i = 0; i < star; ++i) {
      const SimplexId t = tri_.getVertexStar(w.a, i);
      if (t == w.from)
        continue;
      int ka = -1, kb = -1, kc = -1;
      for (int k = 0; k < 3; ++k) {
        const SimplexId u = tri_.getCellVertex(t, k);
        if (u == w.a)
          ka = k;
        else if (u == w.b)
          kb = k;
        else
          kc = k;
      }
      if (kb < 0)
        continue;
      const SimplexId c = tri_.getCellVertex(t, kc);
      const double* l = &mesh_.length[3 * std::size_t(t)];
      const double toA = l[kb], toB = l[ka], length = w.length;
      const double cx = (toA * toA - toB * toB + length * length) / (2 * length);
      const double cy2 = toA * toA - cx * cx;
      if (!(cy2 > 1e-24 * length * length) || !(toA > 0) || !(toB > 0))
        continue; // a degenerate triangle: its vertices are pseudo-sources (bends)
      const double cy = std::sqrt(cy2);
      const double xc = w.sx + (cx - w.sx) * (-w.sy) / (cy - w.sy);
      const double tolerance = 1e-9 * length;
      if (xc >= w.b0 - tolerance && xc <= w.b1 + tolerance)
        relax(c, w.sigma + hypotenuse(cx - w.sx, cy - w.sy), w.label);
      if (w.b0 < xc) {
        const double t0 = along(0, 0, cx, cy, w.sx, w.sy, w.b0);
        const double t1 = w.b1 >= xc ? 1.0 : along(0, 0, cx, cy, w.sx, w.sy, w.b1);
        child(w, w.a, c, t, 0, 0, cx, cy, toA, t0, t1);
      }
      if (w.b1 > xc) {
        const double qx = length - cx, qy = -cy;
        const double t0 = w.b0 <= xc ? 0.0 : along(cx, cy, qx, qy, w.sx, w.sy, w.b0);
        const double t1 = w.b1 >= length ? 1.0 : along(cx, cy, qx, qy, w.sx, w.sy, w.b1);
        child(w, c, w.b, t, cx, cy, length, 0, toB, t0, t1);
      }
    }
  }

  // The window on the edge (p, q), from (px, py) to (qx, qy) in w's frame (|pq| =
  // length), lit over the parameters [t0, t1]; the triangle t (below it in its frame)
  // is where it came through.
  void child(const Window& w, SimplexId p, SimplexId q, SimplexId t, double px, double py,
             double qx, double qy, double length, double t0, double t1) {
    t0 = std::clamp(t0, 0.0, 1.0);
    t1 = std::clamp(t1, 0.0, 1.0);
    if (!(t1 - t0 > 1e-12) || !(length > 0))
      return;
    const double dx = qx - px, dy = qy - py;
    const double norm = hypotenuse(dx, dy);
    if (!(norm > 0))
      return;
    const double ex = dx / norm, ey = dy / norm;
    const double rx = w.sx - px, ry = w.sy - py;
    const double sy = std::min(ex * ry - ey * rx, 0.0);
    if (!(sy < -1e-12 * length))
      return; // the source on the edge's line: the light grazes it
    push({p, q, t, w.label, length, t0 * length, t1 * length, ex * rx + ey * ry, sy,
          w.sigma, 0, 0});
  }

  const Mesh& mesh_;
  const ExplicitTriangulation& tri_;
  double radius_;
  std::size_t maxWindows_;
  ExactWorkspace::Data& work_;
  double* distance_;
  SimplexId* label_;
  // Per vertex: whether paths may bend there (bends), computed when first reached.
  std::uint8_t* bends_;
  std::vector<Window>& windows_;
  EventQueue& queue_;
  std::vector<SimplexId>& touched_;
  std::unordered_map<SimplexId, double>& sourcedAt_;
};

} // namespace

void exactDistancesNearSeeds(const Mesh& mesh, const std::vector<SimplexId>& seeds,
                             double radius, std::size_t maxWindows,
                             ExactWorkspace& workspace, ExactBall& ball) {
  Propagation propagation(mesh, radius, maxWindows, workspace.data(mesh.vertices));
  propagation.run(seeds, ball);
}

} // namespace topogpu::eikonal::detail
