// The Morse-Smale complex's output records (core/morse_smale_complex/OutputRecords.h)
// as TTK 1.2's vtkPolyData ports: array names and types, vertices, lines, polygons.
// One copy for the filter's ports 0-2 and the CLI's .vtp separatrices file.
#pragma once

#include "core/morse_smale_complex/OutputRecords.h"

class vtkDataArray;
class vtkPolyData;

namespace topogpu::vtk {

// Port 0: a vertex per critical point; the value array takes the name and type of
// `scalars` (the input's, as TTK's).
void writeCriticalPoints(vtkPolyData* output,
                         const morse_smale_complex::CriticalPointRecords& records,
                         vtkDataArray* scalars);
// Port 1: a line cell per V-path step (TTK 1.2's), the separatrix's data on each.
// The separatrix writers consume their records, each column freed once copied.
void writeSeparatrices1(vtkPolyData* output,
                        morse_smale_complex::Separatrix1Records&& records);
// Port 2: a polygon per wall cell.
void writeSeparatrices2(vtkPolyData* output,
                        morse_smale_complex::Separatrix2Records&& records);

} // namespace topogpu::vtk
