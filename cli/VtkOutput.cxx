// The CLI's VTK output: `msc --separatrices-out FILE.vtp` through the filter's own copy
// of the records into a vtkPolyData (TopoGPUMscPolyData.h), `persistence --out FILE.vtu`
// through TTK's diagram layout (TopoGPUDiagramLayout.h), and VTK's XML writers.
#include "PersistenceFiles.h"
#include "SeparatricesFile.h"

#include "base/TopoGPUDiagramLayout.h"

#include "morse_smale_complex/TopoGPUMscPolyData.h"

#include <vtkNew.h>
#include <vtkPolyData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPolyDataWriter.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <algorithm>

#include <utility>

namespace topogpu::cli {

void writeSeparatricesVtp(const std::string& path,
                          morse_smale_complex::Separatrix1Records&& records) {
  vtkNew<vtkPolyData> poly;
  topogpu::vtk::writeSeparatrices1(poly, std::move(records));
  vtkNew<vtkXMLPolyDataWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputData(poly);
  if (writer->Write() != 1)
    throw Error("cannot write the separatrices file '" + path + "'");
}

void writeDiagramVtu(const std::string& path, const persistence_diagram::Diagram& diagram,
                     const morse_smale_complex::PointGeometry* points) {
  std::vector<topogpu::vtk::DiagramRow> rows(diagram.pairs.size());
  // TTK's diagonal: from the lowest to the highest birth.
  topogpu::vtk::DiagramDiagonal diagonal;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const persistence_diagram::DiagramPair& p = diagram.pairs[i];
    topogpu::vtk::DiagramRow& row = rows[i];
    row = {p.type,        p.isFinite,    p.birth,     p.death,
           p.birthVertex, p.deathVertex, p.birthType, p.deathType};
    if (points) {
      points->position(p.birthVertex, row.birthPosition.data());
      points->position(p.deathVertex, row.deathPosition.data());
    }
    diagonal.low = i ? std::min(diagonal.low, p.birth) : p.birth;
    diagonal.high = i ? std::max(diagonal.high, p.birth) : p.birth;
    diagonal.persistence = std::max(diagonal.persistence, 2 * p.persistence());
  }
  vtkNew<vtkUnstructuredGrid> grid;
  topogpu::vtk::writeDiagramLayout(grid, rows, diagonal, points != nullptr);
  vtkNew<vtkXMLUnstructuredGridWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputData(grid);
  if (writer->Write() != 1)
    throw Error("cannot write the diagram file '" + path + "'");
}

} // namespace topogpu::cli
