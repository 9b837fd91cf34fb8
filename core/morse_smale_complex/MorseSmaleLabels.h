// TTK's MorseSmaleManifold: one id per (DescendingManifold, AscendingManifold) pair
// present, numbered in the pairs' order; the vertices where either label is -1 share the
// first id (TTK's setFinalSegmentation), so no vertex gets -1.
#pragma once

#include "core/morse_smale_complex/MorseSmaleComplex.h"

#include <vector>

namespace topogpu::morse_smale_complex {

// labels (resized to the shorter input) as above, on all cores: a table of the pairs
// present when `minima` x `maxima` is small, else a parallel sort of the pairs' keys.
// minima and maxima bound the labels (every label is below them); -1: read them off the
// labels.
void morseSmaleLabels(const std::vector<ManifoldLabel>& descending,
                      const std::vector<ManifoldLabel>& ascending,
                      std::vector<SimplexId>& labels, SimplexId minima = -1,
                      SimplexId maxima = -1);

inline std::vector<SimplexId>
morseSmaleLabels(const std::vector<ManifoldLabel>& descending,
                 const std::vector<ManifoldLabel>& ascending) {
  std::vector<SimplexId> labels;
  morseSmaleLabels(descending, ascending, labels);
  return labels;
}

} // namespace topogpu::morse_smale_complex
