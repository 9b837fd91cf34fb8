// What the Morse-Smale Complex filter keeps between runs so that moving only its
// PersistenceThreshold answers from the cancellation hierarchy
// (core/morse_smale_complex/CancellationHierarchy.h) without recomputing the gradient:
// the simplicial complex, its hierarchy, the last answer and the walls of port 2, under a
// key made of the field (array and modification time), the triangulation and every other
// property the complex depends on.
#pragma once

#include "core/morse_smale_complex/CancellationHierarchy.h"
#include "core/morse_smale_complex/OutputRecords.h"

#include <string>
#include <vector>

namespace topogpu::vtk {

struct MscCache {
  std::string key;
  morse_smale_complex::simplicial::Output complex;
  bool hasHierarchy = false;
  morse_smale_complex::simplicial::CancellationHierarchy hierarchy;
  RunReport hierarchyReport; // the diagram's and the hierarchy's timings
  // The last threshold's answer: the next one rewrites its arrays in place instead of
  // allocating them again.
  morse_smale_complex::simplicial::SimplifiedComplex answer;
  bool hasWalls = false;
  morse_smale_complex::Separatrix2Records walls; // of every saddle
  std::vector<Warning> wallWarnings;
  void clear() { *this = MscCache(); }
};

} // namespace topogpu::vtk
