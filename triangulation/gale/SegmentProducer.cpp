#include "SegmentProducer.h"

#include "triangulation/explicit/MeshBuilding.h"

#include <algorithm>
#include <string>

namespace topogpu {

namespace gale {

const char* servedRelationName(int relation) {
  static const char* names[kServedRelationCount] = {
      "VV", "VE", "VF", "vertex star", "EF", "ET", "FT", "TT", "boundary flags"};
  return relation >= 0 && relation < kServedRelationCount ? names[relation] : "?";
}

std::size_t SegmentRelation::bytes() const {
  auto ids = [](const IdArray& a) { return a.size() * (a.isWide() ? 8 : 4); };
  return sizeof(*this) + ids(rows.offsets) + ids(rows.data) + vertexFlags.size() +
         edgeFlags.size() + triangleFlags.size();
}

} // namespace gale

// Rows from (row, value) pairs: sorted, duplicates dropped. The pairs are bucketed by
// row (a counting pass: rows are dense in [0, rowCount)), then each row, a handful of
// values, is sorted on its own: no sort of all the pairs (it was the CPU producer's
// largest cost on the coboundary relations).
CompressedRows gale::rowsFromPairs(std::vector<std::pair<SimplexId, SimplexId>>& pairs,
                                   SimplexId rowCount, SimplexId maxValue) {
  using mesh_building::sortSmall;
  thread_local std::vector<SimplexId> start, values;
  start.assign(std::size_t(rowCount) + 1, 0);
  for (const auto& [row, value] : pairs) {
    if (row < 0 || row >= rowCount)
      throw Error("internal error: GALE relation row " + std::to_string(row) +
                  " outside its segment's " + std::to_string(rowCount) + " rows");
    ++start[std::size_t(row) + 1];
  }
  for (std::size_t r = 1; r < start.size(); ++r)
    start[r] += start[r - 1];
  values.resize(pairs.size());
  for (const auto& [row, value] : pairs)
    values[std::size_t(start[std::size_t(row)]++)] = value;
  // start[r] is now row r's end; row r begins at start[r - 1] (0 for the first)
  std::size_t kept = 0, begin = 0;
  CompressedRows rows;
  rows.offsets.allocate(std::size_t(rowCount) + 1, SimplexId(pairs.size()), false);
  rows.offsets.set(0, 0);
  for (std::size_t r = 0; r < std::size_t(rowCount); ++r) {
    const std::size_t end = std::size_t(start[r]);
    SimplexId* first = values.data() + begin;
    SimplexId* last = values.data() + end;
    if (last - first <= 16) // rows are short: an insertion sort
      sortSmall(first, int(last - first));
    else
      std::sort(first, last);
    for (SimplexId* v = first; v != last; ++v)
      if (v == first || *v != v[-1])
        values[kept++] = *v;
    rows.offsets.set(r + 1, SimplexId(kept));
    begin = end;
  }
  rows.data.allocate(kept, maxValue, false);
  for (std::size_t k = 0; k < kept; ++k)
    rows.data.set(k, values[k]);
  return rows;
}

} // namespace topogpu
