// Output-array creation shared by the filters.
#pragma once

#include "vtkTopoGPUAlgorithm.h"

#include <vtkInformation.h>
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

// The same, for an array that labels rather than measures (a critical type, a cell id,
// a manifold index): tagged vtkTopoGPUAlgorithm::LABEL_ARRAY, so that no TopoGPU filter
// downstream takes it as its default scalar field.
template <typename ArrayT>
vtkSmartPointer<ArrayT> labelArray(const char* name, vtkIdType n) {
  auto array = namedArray<ArrayT>(name, n);
  array->GetInformation()->Set(vtkTopoGPUAlgorithm::LABEL_ARRAY(), 1);
  return array;
}

} // namespace topogpu::vtk
