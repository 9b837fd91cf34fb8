#include "PersistenceFiles.h"

#include "Arguments.h"

#include <cstdio>
#include <fstream>

namespace topogpu::cli {

namespace {

// Round-trip precision: a double's 17 significant digits.
std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::ofstream openFile(const std::string& path, const char* what) {
  std::ofstream file(path);
  if (!file)
    throw Error(std::string("cannot write the ") + what + " file '" + path + "'");
  return file;
}

} // namespace

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
  std::ofstream file = openFile(path, "diagram");
  file << "PairIdentifier,PairType,IsFinite,Birth,Death,Persistence,BirthVertex,"
          "DeathVertex,BirthCriticalType,DeathCriticalType,BirthCellDimension,"
          "BirthCellId,DeathCellDimension,DeathCellId\n";
  for (std::size_t i = 0; i < diagram.pairs.size(); ++i) {
    const persistence_diagram::DiagramPair& p = diagram.pairs[i];
    file << i << ',' << p.type << ',' << (p.isFinite ? 1 : 0) << ',' << number(p.birth)
         << ',' << number(p.death) << ',' << number(p.persistence()) << ','
         << p.birthVertex << ',' << p.deathVertex << ',' << p.birthType << ','
         << p.deathType << ',' << p.birthDimension << ',' << p.birthCell << ','
         << p.deathDimension << ',' << p.deathCell << '\n';
  }
  if (!file)
    throw Error("cannot write the diagram file '" + path + "'");
}

void writeCurveFile(const std::string& path,
                    const persistence_diagram::Diagram& diagram) {
  std::ofstream file = openFile(path, "curve");
  file << "PairType,Persistence,NumberOfPairs\n";
  const auto curves = persistence_diagram::persistenceCurves(diagram);
  for (std::size_t t = 0; t < curves.size(); ++t)
    for (const auto& point : curves[t])
      file << (t == 3 ? -1 : int(t)) << ',' << number(point.persistence) << ','
           << point.pairs << '\n';
  if (!file)
    throw Error("cannot write the curve file '" + path + "'");
}

} // namespace topogpu::cli
