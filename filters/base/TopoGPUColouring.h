// Default colour maps for output arrays, so outputs look right without a state file.
#pragma once

#include <string>
#include <vector>

namespace topogpu::vtk {

struct Category {
  int value;
  std::string label;
  double rgb[3];
};

// Registers, once per process and at the lowest priority (a user's own settings win),
// ParaView's per-array-name colour map defaults (settings key array_lookup_tables) for
// arrayName: a categorical map (a swatch and a label per category in the legend, no
// numeric ticks) and the legend title. Settings name properties by their XML names:
// pvpython's InterpretValuesAsCategories is the property IndexedLookup. The map's
// continuous points put one band on each value too, for views that draw it as a range.
void registerCategoricalColours(const std::string& arrayName, const std::string& title,
                                const std::vector<Category>& categories);

// TTK's critical point legend (blue minima to red maxima), by index 0..3: CellDimension.
std::vector<Category> criticalIndexCategories();
// The same and degenerate (4): CriticalType. The states take these colours too.
std::vector<Category> criticalTypeCategories();
// TTK's SeparatrixType: 0 to a minimum, 1 saddle-saddle in 3D (to a maximum in 2D),
// 2 to a maximum (3D); the colours of the states.
std::vector<Category> separatrixTypeCategories();
// TTK's gradient glyphs' PairType: the dimension of a pair's lower cell (0 vertex-edge,
// 1 edge-face, 2 face-cell: triangle-tet or square-voxel).
std::vector<Category> gradientPairTypeCategories();
// A persistence diagram's PairType, the homology dimension (TTK's: 0 minimum-saddle,
// 1 saddle-saddle in 3D or saddle-maximum in 2D, 2 saddle-maximum in 3D; a Rips
// diagram's dimensions), the diagonal (-1) grey. Both diagram filters register it.
std::vector<Category> pairTypeCategories();

} // namespace topogpu::vtk
