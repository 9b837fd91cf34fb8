#include "SeparatricesFile.h"

#include <array>
#include <charconv>
#include <fstream>
#include <type_traits>
#include <utility>
#include <vector>

namespace topogpu::cli {

std::unique_ptr<morse_smale_complex::PointGeometry> domainPoints(const Arguments& args,
                                                                 const Domain& domain) {
  namespace msc = morse_smale_complex;
  if (args.has("--raw"))
    return std::make_unique<msc::GridPoints>(parseDims(args.require("--dims")),
                                             std::array<double, 3>{0, 0, 0},
                                             std::array<double, 3>{1, 1, 1});
  if (SimplexId(domain.points.size()) != 3 * domain.numberOfVertices())
    throw Error("--separatrices-out needs the points of '" + domain.input +
                "', which were not read");
  return std::make_unique<msc::ArrayPoints>(domain.points.data());
}

namespace {

// Numbers in their shortest round-trip form (std::to_chars), a buffer at a time: the
// file can hold millions of them.
template <typename T>
void writeList(std::ofstream& file, const char* name, const std::vector<T>& values,
               bool first = false) {
  file << (first ? "" : ",") << "\"" << name << "\":[";
  std::array<char, 1 << 16> buffer;
  char* at = buffer.data();
  char* const end = buffer.data() + buffer.size();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (end - at < 32) {
      file.write(buffer.data(), at - buffer.data());
      at = buffer.data();
    }
    if (i)
      *at++ = ',';
    if constexpr (std::is_same_v<T, signed char>)
      at = std::to_chars(at, end, int(values[i])).ptr;
    else
      at = std::to_chars(at, end, values[i]).ptr;
  }
  file.write(buffer.data(), at - buffer.data());
  file << ']';
}

} // namespace

void writeSeparatricesFile(const std::string& path, const std::string& complex,
                           int dimension,
                           morse_smale_complex::Separatrix1Records&& records) {
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".vtp") == 0) {
#if TOPOGPU_WITH_VTK
    writeSeparatricesVtp(path, std::move(records));
    return;
#else
    throw Error("this build has no VTK: --separatrices-out writes JSON only (got '" +
                path + "')");
#endif
  }
  std::ofstream file(path);
  if (!file)
    throw Error("cannot write the separatrices file '" + path + "'");
  file << "{\"format\":\"topogpu-separatrices1\",\"version\":2,\"complex\":\"" << complex
       << "\",\"dimension\":" << dimension << ",\"count\":" << records.size()
       << ",\"separatrices\":" << records.separatrices;
  writeList(file, "points", records.points);
  file << ",\"point_data\":{";
  writeList(file, "CellDimension", records.cellDimension, true);
  writeList(file, "CellId", records.cellId);
  writeList(file, "ttkMaskScalarField", records.mask);
  file << "}";
  writeList(file, "connectivity", records.connectivity);
  std::vector<double> difference(records.functionMaximum.size());
  for (std::size_t i = 0; i < difference.size(); ++i)
    difference[i] = records.functionMaximum[i] - records.functionMinimum[i];
  file << ",\"cell_data\":{";
  writeList(file, "SourceId", records.sourceId, true);
  writeList(file, "DestinationId", records.destinationId);
  writeList(file, "SeparatrixId", records.separatrixId);
  writeList(file, "SeparatrixType", records.separatrixType);
  writeList(file, "SeparatrixFunctionMaximum", records.functionMaximum);
  writeList(file, "SeparatrixFunctionMinimum", records.functionMinimum);
  writeList(file, "SeparatrixFunctionDifference", difference);
  writeList(file, "NumberOfCriticalPointsOnBoundary", records.onBoundary);
  writeList(file, "Multiplicity", records.multiplicity);
  file << "}}\n";
  if (!file)
    throw Error("cannot write the separatrices file '" + path + "'");
}

} // namespace topogpu::cli
