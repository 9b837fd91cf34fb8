// The "persistence_pairs" object of `topogpu msc --persistence-pairs` (docs/cli.md), the
// same for both complexes: {"pairs": [[dim, birth_rank, death_rank, birth_cell,
// death_cell, birth_value, death_value], ...], "essential_minima", "saddles_left",
// "maxima_left"}. Ranks (the vertex order) make the pairs comparable with a persistence
// diagram of the lower-star filtration whatever the ties in the values.
#pragma once

#include "Json.h"

#include "base/Types.h"

#include <cstddef>
#include <string>

namespace topogpu::cli {

class PersistencePairsJson {
public:
  void add(int dimension, SimplexId birthRank, SimplexId deathRank, SimplexId birthCell,
           SimplexId deathCell, double birthValue, double deathValue) {
    pairs_ += (count_++ ? ",[" : "[") + std::to_string(dimension) + "," +
              std::to_string(birthRank) + "," + std::to_string(deathRank) + "," +
              std::to_string(birthCell) + "," + std::to_string(deathCell) + "," +
              jsonNumber(birthValue) + "," + jsonNumber(deathValue) + "]";
  }
  std::size_t size() const { return count_; }
  // The object, with the unpaired critical cells: minima, 1-saddles and (d-1)-saddles in
  // 3D, maxima.
  JsonObject object(long long essentialMinima, long long saddles1Left,
                    long long saddlesTopLeft, long long maximaLeft) const {
    JsonObject out;
    out.addRaw("pairs", pairs_ + "]");
    out.add("essential_minima", essentialMinima);
    out.addRaw("saddles_left", "[" + std::to_string(saddles1Left) + "," +
                                   std::to_string(saddlesTopLeft) + "]");
    out.add("maxima_left", maximaLeft);
    return out;
  }

private:
  std::string pairs_ = "[";
  std::size_t count_ = 0;
};

} // namespace topogpu::cli
