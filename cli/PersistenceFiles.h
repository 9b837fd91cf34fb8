// `topogpu persistence --out FILE` and `--curve FILE`: the diagram records
// (core/persistence_diagram/PersistenceDiagram.h) as files, documented in docs/cli.md
// ("Persistence diagram files").
#pragma once

#include "core/morse_smale_complex/OutputRecords.h"
#include "core/persistence_diagram/PersistenceDiagram.h"

#include <string>

namespace topogpu::cli {

// A .vtu file (TTK's diagram layout; Coordinates from points, the domain's vertex
// positions) where the CLI is built with VTK, else CSV: one row per pair. Error naming
// the file when it cannot be written.
void writeDiagramFile(const std::string& path,
                      const persistence_diagram::Diagram& diagram,
                      const morse_smale_complex::PointGeometry* points);

// The persistence curve as CSV: PairType (-1 for all pairs), Persistence, NumberOfPairs.
void writeCurveFile(const std::string& path, const persistence_diagram::Diagram& diagram);

#if TOPOGPU_WITH_VTK
// The .vtu file (VtkOutput.cxx).
void writeDiagramVtu(const std::string& path, const persistence_diagram::Diagram& diagram,
                     const morse_smale_complex::PointGeometry* points);
#endif

} // namespace topogpu::cli
