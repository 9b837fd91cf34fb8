// Distributed runs of the filters whose result needs everything on one rank (a gradient
// pairing cells across piece borders, a Rips diagram, a geodesic distance): the one way
// their pieces reach rank 0, and how their outputs then say where the result is.
#pragma once

#include <vtkSmartPointer.h>

#include <vector>

class vtkDataObject;
class vtkInformationVector;
class vtkMultiProcessController;

namespace topogpu::vtk {

// The rank that gathers the pieces and computes (the one pvbatch's script and a
// pvserver's client read).
constexpr int kResultRank = 0;

// Collective over every rank of controller: each rank's piece (an empty poly data where
// it has none, so every rank enters the collective step), in rank order on kResultRank;
// empty elsewhere.
std::vector<vtkSmartPointer<vtkDataObject>>
gatherToRoot(vtkMultiProcessController* controller, vtkDataObject* piece);

// An input vector of one data object: runs a filter's serial path on what was gathered.
vtkSmartPointer<vtkInformationVector> inputVectorOf(vtkDataObject* data);

// The field data "TopoGPUResultRank" (kResultRank) on an output, or on every output:
// each rank's outputs say which rank holds the result.
void addResultRank(vtkDataObject* output);
void addResultRank(vtkInformationVector* outputVector);

} // namespace topogpu::vtk
