// The CLI's VTK output: `msc --separatrices-out FILE.vtp` through the filter's own copy
// of the records into a vtkPolyData (TopoGPUMscPolyData.h) and VTK's XML writer.
#include "SeparatricesFile.h"

#include "morse_smale_complex/TopoGPUMscPolyData.h"

#include <vtkNew.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataWriter.h>

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

} // namespace topogpu::cli
