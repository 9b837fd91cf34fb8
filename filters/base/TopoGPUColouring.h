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
// arrayName: categorical (IndexedLookup, the XML name of "Interpret Values As
// Categories": settings take XML names), one colour and one legend label per category,
// and the legend title; also a discretized continuous map with one band centred on each
// value, which reads the same, for a user who turns the categories off.
void registerCategoricalColours(const std::string& arrayName, const std::string& title,
                                const std::vector<Category>& categories);

// TTK's critical point legend (blue minima to red maxima), by index 0..3.
std::vector<Category> criticalIndexCategories();

} // namespace topogpu::vtk
