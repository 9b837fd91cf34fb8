// Output-array creation shared by the filters.
#pragma once

#include <vtkSmartPointer.h>
#include <vtkType.h>

namespace topogpu::vtk {

// A new array of n tuples (uninitialised), named as the output port documents it.
template <typename ArrayT>
vtkSmartPointer<ArrayT> namedArray(const char* name, vtkIdType n) {
  auto array = vtkSmartPointer<ArrayT>::New();
  array->SetName(name);
  array->SetNumberOfTuples(n);
  return array;
}

} // namespace topogpu::vtk
