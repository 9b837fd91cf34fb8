// The output records (OutputRecords.h) of the cubical complex (MorseSmaleComplex.h):
// cells are refined ids, points at their centres on the image's grid, the vertex order
// the one execute kept (Output::rank, Parameters::keepVertexOrder).
#pragma once

#include "core/morse_smale_complex/MorseSmaleComplex.h"
#include "core/morse_smale_complex/OutputRecords.h"
#include "core/morse_smale_complex/Separatrices2.h"

namespace topogpu::morse_smale_complex {

// Ports 0 and 1 as `on` asks. Throws Error when result holds no vertex order.
void buildRecords(const Output& result, const ScalarArrayView& values,
                  const PointGeometry& points, const RecordSwitches& on, Records& out);

// Port 2: one polygon per wall cell (separatrices2::polygonCorners), corners shared;
// SeparatrixType 2 for the descending walls (numbered first), 1 for the ascending ones.
void buildSeparatrices2(const Output& result, const separatrices2::Output& walls,
                        const ScalarArrayView& values, const PointGeometry& points,
                        Separatrix2Records& out);

} // namespace topogpu::morse_smale_complex
