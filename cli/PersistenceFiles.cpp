#include "PersistenceFiles.h"

#include "Arguments.h"
#include "TextLines.h"

#include "base/NumberText.h"

#include <utility>
#include <vector>

namespace topogpu::cli {

void writeDiagramFile(const std::string& path,
                      const persistence_diagram::Diagram& diagram,
                      const morse_smale_complex::PointGeometry* points) {
  if (endsWith(path, ".vtu")) {
#if TOPOGPU_WITH_VTK
    writeDiagramVtu(path, diagram, points);
    return;
#else
    (void)points;
    throw Error("'" + path + "': .vtu needs the CLI built with VTK; write a .csv");
#endif
  }
  // 14 numbers of at most kNumberTextSize characters and their separators.
  constexpr std::size_t kMaxLine = 15 * (kNumberTextSize + 1);
  writeTextLines<kMaxLine>(
      path,
      "PairIdentifier,PairType,IsFinite,Birth,Death,Persistence,BirthVertex,"
      "DeathVertex,BirthCriticalType,DeathCriticalType,BirthCellDimension,"
      "BirthCellId,DeathCellDimension,DeathCellId\n",
      diagram.pairs.size(),
      [&](std::size_t i, char* at) {
        const persistence_diagram::DiagramPair& p = diagram.pairs[i];
        const auto next = [&](char* end) {
          *end = ',';
          return end + 1;
        };
        at = next(writeInteger(at, i));
        at = next(writeInteger(at, p.type));
        at = next(writeInteger(at, p.isFinite ? 1 : 0));
        at = next(writeG17(at, p.birth));
        at = next(writeG17(at, p.death));
        at = next(writeG17(at, p.persistence()));
        at = next(writeInteger(at, p.birthVertex));
        at = next(writeInteger(at, p.deathVertex));
        at = next(writeInteger(at, p.birthType));
        at = next(writeInteger(at, p.deathType));
        at = next(writeInteger(at, p.birthDimension));
        at = next(writeInteger(at, p.birthCell));
        at = next(writeInteger(at, p.deathDimension));
        at = writeInteger(at, p.deathCell);
        *at = '\n';
        return at + 1;
      },
      "cannot write the diagram file '" + path + "'");
}

void writeCurveFile(const std::string& path,
                    const persistence_diagram::Diagram& diagram) {
  const auto curves = persistence_diagram::persistenceCurves(diagram);
  std::vector<std::pair<int, const persistence_diagram::CurvePoint*>> rows;
  for (std::size_t t = 0; t < curves.size(); ++t)
    for (const auto& point : curves[t])
      rows.emplace_back(t == 3 ? -1 : int(t), &point);
  writeTextLines<3 * (kNumberTextSize + 1)>(
      path, "PairType,Persistence,NumberOfPairs\n", rows.size(),
      [&](std::size_t i, char* at) {
        at = writeInteger(at, rows[i].first);
        *at++ = ',';
        at = writeG17(at, rows[i].second->persistence);
        *at++ = ',';
        at = writeInteger(at, rows[i].second->pairs);
        *at = '\n';
        return at + 1;
      },
      "cannot write the curve file '" + path + "'");
}

} // namespace topogpu::cli
