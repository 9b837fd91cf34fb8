#include "SimplifyFiles.h"

#include "Arguments.h"

#include <fstream>
#include <sstream>

namespace topogpu::cli {

namespace {

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream s(line);
  std::string cell;
  while (std::getline(s, cell, ','))
    cells.push_back(cell);
  return cells;
}

long long integerCell(const std::string& text, const std::string& path, int row) {
  try {
    std::size_t used = 0;
    const long long x = std::stoll(text, &used);
    if (used == text.size())
      return x;
  } catch (const std::exception&) {
  }
  throw Error("'" + path + "' row " + std::to_string(row) + ": '" + text +
              "' is not an integer");
}

std::vector<topological_simplification::Constraint>
readConstraintsCsv(const std::string& path) {
  std::ifstream file(path);
  if (!file)
    throw Error("cannot read the constraints file '" + path + "'");
  std::string line;
  std::getline(file, line);
  const std::vector<std::string> header = splitCsv(line);
  auto column = [&](const char* name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name)
        return i;
    throw Error("'" + path + "' has no column " + name +
                " (expected a `topogpu persistence --out` diagram CSV)");
  };
  const std::size_t columns[4] = {column("BirthVertex"), column("BirthCriticalType"),
                                  column("DeathVertex"), column("DeathCriticalType")};
  std::vector<topological_simplification::Constraint> constraints;
  for (int row = 1; std::getline(file, line); ++row) {
    if (line.empty())
      continue;
    const std::vector<std::string> cells = splitCsv(line);
    if (cells.size() != header.size())
      throw Error("'" + path + "' row " + std::to_string(row) + " has " +
                  std::to_string(cells.size()) + " cells, the header " +
                  std::to_string(header.size()));
    for (std::size_t end = 0; end < 2; ++end)
      constraints.push_back({integerCell(cells[columns[2 * end]], path, row),
                             int(integerCell(cells[columns[2 * end + 1]], path, row))});
  }
  return constraints;
}

} // namespace

std::vector<topological_simplification::Constraint>
readConstraints(const std::string& path) {
  if (endsWith(path, ".vtu") || endsWith(path, ".vtp")) {
#if TOPOGPU_WITH_VTK
    return readConstraintsVtk(path);
#else
    throw Error("'" + path + "': .vtu/.vtp constraints need the CLI built with VTK");
#endif
  }
  return readConstraintsCsv(path);
}

void writeSimplifiedField(const std::string& path, const SimplifiedField& field) {
  if (endsWith(path, ".raw")) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (file)
      file.write(static_cast<const char*>(field.values.data),
                 std::streamsize(field.values.size *
                                 SimplexId(scalarTypeSize(field.values.type))));
    if (!file || !file.flush())
      throw Error("cannot write the simplified field to '" + path + "'");
    return;
  }
#if TOPOGPU_WITH_VTK
  writeSimplifiedFieldVtk(path, field);
#else
  throw Error("'" + path + "': only .raw can be written by a CLI built without VTK");
#endif
}

} // namespace topogpu::cli
