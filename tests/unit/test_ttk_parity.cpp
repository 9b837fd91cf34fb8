// Parity with TTK 1.2: critical point counts per class on every raw volume of the shared
// data against ../shared/data/ttk-reference/volumes.json, TTK's own output (implicit
// triangulation, ScalarFieldCriticalPoints). Per-vertex classes are checked against the
// brute-force oracle in test_critical_points_oracle.cpp; these counts are the external
// anchor that the oracle's rule and orientation are TTK's.
#include "BruteForce.h"
#include "RawVolumes.h"

#include "core/critical_points/CriticalPoints.h"
#include "triangulation/explicit/ExplicitTriangulation.h"
#include "triangulation/implicit/ImplicitTriangulation.h"

#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <sstream>

namespace topogpu::test {
namespace {

template <typename T>
critical_points::Output run(const RawVolume& vol, const std::string& path, bool asMesh) {
  const std::size_t count = std::size_t(vol.n[0] * vol.n[1] * vol.n[2]);
  const std::vector<T> values = readRaw<T>(path, count);
  critical_points::Output out;
  if (values.empty()) {
    ADD_FAILURE() << "cannot read " << count << " values from " << path;
    return out;
  }
  ImplicitTriangulation grid(vol.n[0], vol.n[1], vol.n[2]);
  critical_points::Parameters params;
  params.backend = Backend::Cpu;
  if (asMesh) {
    ExplicitTriangulation mesh = explicitCopyOf(grid);
    critical_points::execute(mesh, viewOf(values), params, Monitor{}, out);
  } else {
    critical_points::execute(grid, viewOf(values), params, Monitor{}, out);
  }
  return out;
}

critical_points::Output runVolume(const RawVolume& vol, const std::string& path,
                                  bool asMesh) {
  if (vol.type == "uint8")
    return run<std::uint8_t>(vol, path, asMesh);
  if (vol.type == "int16le" || vol.type == "int16")
    return run<std::int16_t>(vol, path, asMesh);
  if (vol.type == "float32")
    return run<float>(vol, path, asMesh);
  if (vol.type == "float64")
    return run<double>(vol, path, asMesh);
  ADD_FAILURE() << "unknown value type '" << vol.type << "' in " << vol.file;
  return {};
}

// Every raw volume with a TTK reference; the explicit backend (the grid's cells as a tet
// mesh) on the volumes up to maxMeshVertices, to keep the suite fast.
void checkAllVolumes(bool asMesh, SimplexId maxMeshVertices) {
  const TtkReference reference = ttkReference(sharedDataDir());
  if (reference.missing())
    GTEST_SKIP() << reference.skipMessage();
  const auto& [data, json, volumes] = reference;
  static const std::pair<const char*, CriticalType> classes[] = {
      {"minimum", CriticalType::Minimum},
      {"saddle1", CriticalType::Saddle1},
      {"saddle2", CriticalType::Saddle2},
      {"maximum", CriticalType::Maximum},
      {"degenerate", CriticalType::Degenerate}};
  int checked = 0;
  for (const RawVolume& vol : volumes) {
    if (asMesh && vol.n[0] * vol.n[1] * vol.n[2] > maxMeshVertices)
      continue;
    SCOPED_TRACE(vol.file + (asMesh ? " (explicit)" : " (implicit)"));
    const std::map<std::string, SimplexId> expected =
        referenceCounts(json, vol.file, "critical_points");
    ASSERT_EQ(expected.size(), 5u) << "no critical_points entry for " << vol.file;
    const critical_points::Output out =
        runVolume(vol, data + "/volumes/" + vol.file, asMesh);
    for (const auto& [key, type] : classes)
      EXPECT_EQ(out.count(type), expected.at(key)) << key;
    ++checked;
  }
  EXPECT_GE(checked, asMesh ? 5 : 10) << "too few volumes found";
}

TEST(TtkParity, AllVolumesImplicit) {
  checkAllVolumes(false, 0);
}

TEST(TtkParity, SmallVolumesExplicit) {
  checkAllVolumes(true, 400000);
}

// Faces of a piece that are cuts between pieces are not boundary: with the x faces
// declared cuts, the boundary rule sees only the y and z faces, so the classes of the
// vertices that are not on a cut face match those of the whole grid's middle slab.
TEST(TtkParity, CutFacesAreNotBoundary) {
  std::mt19937 rng(7);
  const SimplexId n[3] = {9, 6, 5};
  std::vector<float> values(std::size_t(n[0] * n[1] * n[2]));
  std::uniform_int_distribution<int> d(0, 3);
  for (float& x : values)
    x = float(d(rng));
  critical_points::Parameters params;
  params.backend = Backend::Cpu;
  critical_points::Output whole;
  ImplicitTriangulation wholeGrid(n[0], n[1], n[2]);
  critical_points::execute(wholeGrid, viewOf(values), params, Monitor{}, whole);
  // the piece: x in [2, 6] with x = 2 and x = 6 its ghost (cut) layers
  const SimplexId lo = 2, hi = 6, px = hi - lo + 1;
  std::vector<float> piece;
  for (SimplexId z = 0; z < n[2]; ++z)
    for (SimplexId y = 0; y < n[1]; ++y)
      for (SimplexId x = lo; x <= hi; ++x)
        piece.push_back(values[std::size_t(x + n[0] * (y + n[1] * z))]);
  ImplicitTriangulation pieceGrid(px, n[1], n[2]);
  pieceGrid.setBoundaryFaces(0x3c); // y and z faces only
  critical_points::Output part;
  critical_points::execute(pieceGrid, viewOf(piece), params, Monitor{}, part);
  int compared = 0;
  for (SimplexId z = 0; z < n[2]; ++z)
    for (SimplexId y = 0; y < n[1]; ++y)
      for (SimplexId x = lo + 1; x < hi; ++x) {
        const SimplexId v = x + n[0] * (y + n[1] * z), p = x - lo + px * (y + n[1] * z);
        // the piece's vertex order differs from the whole's only by a shift of ids,
        // which keeps the order of tied values (x fastest)
        EXPECT_EQ(part.vertexTypes[p], whole.vertexTypes[v])
            << "x " << x << " y " << y << " z " << z;
        ++compared;
      }
  EXPECT_GT(compared, 0);
  EXPECT_TRUE(pieceGrid.isVertexOnBoundary(0 + px * (0 + n[1] * 2)))
      << "(x=0, y=0) is on a y face";
  EXPECT_FALSE(pieceGrid.isVertexOnBoundary(0 + px * (2 + n[1] * 2)))
      << "a vertex only on the cut x face is not boundary";
}

} // namespace
} // namespace topogpu::test
