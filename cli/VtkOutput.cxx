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
  vtkNew<vtkUnstructuredGrid> grid;
  topogpu::vtk::writeScalarFieldDiagram(grid, diagram, points);
  vtkNew<vtkXMLUnstructuredGridWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputData(grid);
  // zlib's fastest level: the default (5) took 4x longer on a diagram of 34k pairs for
  // a file 10% smaller, and every reader of the default reads it.
  writer->SetCompressionLevel(1);
  if (writer->Write() != 1)
    throw Error("cannot write the diagram file '" + path + "'");
}

} // namespace topogpu::cli
