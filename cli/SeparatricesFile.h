// `topogpu msc --separatrices-out FILE`: the 1-separatrices of either complex as one JSON
// object, VTK-free, written from the core's output records
// (core/morse_smale_complex/OutputRecords.h, the arrays the filter's port 1 holds).
// The format is documented in docs/cli.md ("Separatrices file").
#pragma once

#include "Arguments.h"
#include "Domain.h"

#include "core/morse_smale_complex/OutputRecords.h"

#include <memory>
#include <string>

namespace topogpu::cli {

// The vertex positions of the domain: a --raw grid's points (unit spacing, origin 0),
// else the mesh's points (loadDomain with keepPoints); Error when the domain has none.
std::unique_ptr<morse_smale_complex::PointGeometry> domainPoints(const Arguments& args,
                                                                 const Domain& domain);

// Writes records to path: a .vtp file (VTK's XML polydata, the filter's port 1) where the
// CLI is built with VTK, else the JSON format; Error naming the file when it cannot be
// written. Consumes the records (the .vtp's copy frees each column once copied).
void writeSeparatricesFile(const std::string& path, const std::string& complex,
                           int dimension,
                           morse_smale_complex::Separatrix1Records&& records);

#if TOPOGPU_WITH_VTK
// The .vtp file (VtkOutput.cxx).
void writeSeparatricesVtp(const std::string& path,
                          morse_smale_complex::Separatrix1Records&& records);
#endif

} // namespace topogpu::cli
