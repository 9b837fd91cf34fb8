// The CLI's checked VTK reader (VtkInput.cxx): legacy .vtk or any XML data set, with
// VTK's errors, a truncated XML file and a data set without points as Error.
#pragma once

#include <vtkDataSet.h>
#include <vtkSmartPointer.h>

#include <string>

namespace topogpu::cli {

vtkSmartPointer<vtkDataSet> readDataSet(const std::string& path);

} // namespace topogpu::cli
