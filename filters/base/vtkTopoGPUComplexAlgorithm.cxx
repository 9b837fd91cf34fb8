#include "vtkTopoGPUComplexAlgorithm.h"

#include "TopoGPUFilterRun.h"
#include "TopoGPUMemoryBudget.h"

#include <memory>
#include <variant>

vtkTopoGPUComplexAlgorithm::vtkTopoGPUComplexAlgorithm() = default;

vtkTopoGPUComplexAlgorithm::~vtkTopoGPUComplexAlgorithm() = default;

void vtkTopoGPUComplexAlgorithm::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Complex: " << (this->Complex ? "Simplicial" : "Cubical") << "\n";
  os << indent << "Triangulation: " << this->Triangulation << "\n";
  os << indent << "MemoryBudget: " << this->MemoryBudget << "\n";
}

bool vtkTopoGPUComplexAlgorithm::UsesCubicalComplex(
    const topogpu::vtk::FilterRun& run) const {
  return this->Complex == COMPLEX_CUBICAL &&
         std::holds_alternative<std::shared_ptr<topogpu::ImplicitTriangulation>>(
             *run.triangulation);
}

double vtkTopoGPUComplexAlgorithm::MemoryBudgetBytes() const {
  return topogpu::vtk::memoryBudgetBytes(this->MemoryBudget);
}
