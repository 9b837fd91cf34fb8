#include "vtkTopoGPUScalarFieldSmoother.h"

#include "TopoGPUDistributedPiece.h"
#include "TopoGPUFilterRun.h"

#include "base/Timer.h"
#include "core/scalar_field_smoother/ScalarFieldSmoother.h"

#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationVector.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkStreamingDemandDrivenPipeline.h>

#include <algorithm>
#include <string>
#include <vector>

vtkStandardNewMacro(vtkTopoGPUScalarFieldSmoother);

vtkTopoGPUScalarFieldSmoother::vtkTopoGPUScalarFieldSmoother() {
  this->Label = "TopoGPU Scalar Field Smoother";
  this->LocalResult = true; // a pass reads a vertex's neighbours only
}

vtkTopoGPUScalarFieldSmoother::~vtkTopoGPUScalarFieldSmoother() = default;

void vtkTopoGPUScalarFieldSmoother::PrintSelf(ostream& os, vtkIndent indent) {
  this->Superclass::PrintSelf(os, indent);
  os << indent << "NumberOfIterations: " << this->NumberOfIterations << "\n";
  os << indent << "ForceInputMaskScalarField: " << this->ForceInputMaskScalarField
     << "\n";
}

int vtkTopoGPUScalarFieldSmoother::FillOutputPortInformation(int port,
                                                             vtkInformation* info) {
  if (port != 0)
    return 0;
  // "vtkDataSet": the base class creates an output of the input's type.
  info->Set(vtkDataObject::DATA_TYPE_NAME(), "vtkDataSet");
  return 1;
}

int vtkTopoGPUScalarFieldSmoother::RequestUpdateExtent(
    vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) {
  this->Superclass::RequestUpdateExtent(request, inputVector, outputVector);
  // Each pass reads one more ring of neighbours: the ghost layers a consumer asks for
  // plus one per pass keep an image piece's points and those layers exact (the output
  // is cropped to them in Compute). Meshes rebuild one layer themselves and refresh it
  // after each pass (TopoGPUDistributedPiece.h). A count out of range asks for nothing:
  // the run refuses it.
  const int passes = this->NumberOfIterations;
  vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
  vtkInformation* outInfo = outputVector->GetInformationObject(0);
  if (inInfo != nullptr && vtkImageData::GetData(inInfo) != nullptr && passes >= 0 &&
      passes <= topogpu::scalar_field_smoother::kMaxIterations) {
    const auto key = vtkStreamingDemandDrivenPipeline::UPDATE_NUMBER_OF_GHOST_LEVELS();
    const int asked = outInfo != nullptr && outInfo->Has(key) ? outInfo->Get(key) : 0;
    inInfo->Set(key, std::max(inInfo->Get(key), asked + passes));
  }
  return 1;
}

namespace {

// Input array 1 as one byte per vertex (nonzero = smoothed).
std::vector<std::uint8_t> maskOf(vtkDataArray* array, vtkIdType n) {
  if (array == nullptr)
    throw topogpu::Error("ForceInputMaskScalarField is on but no mask array (input array "
                         "1) is selected or found on the input's points");
  if (array->GetNumberOfComponents() != 1 || array->GetNumberOfTuples() != n)
    throw topogpu::Error(std::string("mask array '") +
                         (array->GetName() ? array->GetName() : "(unnamed)") +
                         "' must be a one-component point array");
  std::vector<std::uint8_t> mask(n);
  for (vtkIdType v = 0; v < n; ++v)
    mask[v] = array->GetComponent(v, 0) != 0 ? 1 : 0;
  return mask;
}

} // namespace

// A distributed mesh (run.piece): one pass at a time on the rebuilt piece, the ghost
// vertices' values refreshed from their owners after each, so one ghost layer serves
// any number of passes. The passes work in the serial run's working type (double for
// floating-point fields, rounded to the input's type once at the end; the input's own
// type for integers, each pass exact), so the pieces equal one serial call. Every rank
// takes every exchange, also after a failure (the exchange then stops all of them).
vtkSmartPointer<vtkDataArray>
vtkTopoGPUScalarFieldSmoother::SmoothPiece(topogpu::vtk::FilterRun& run,
                                           const std::vector<std::uint8_t>& mask) {
  namespace sfs = topogpu::scalar_field_smoother;
  using topogpu::ScalarType;
  const topogpu::vtk::DistributedPiece& piece = *run.piece;
  const int passes = this->NumberOfIterations;
  const topogpu::Timer timer;
  const topogpu::SimplexId n = run.values.size;
  const bool floating =
      run.values.type == ScalarType::Float32 || run.values.type == ScalarType::Float64;
  const ScalarType working = floating ? ScalarType::Float64 : run.values.type;
  const std::size_t width = topogpu::scalarTypeSize(working);
  std::string error;
  bool aborted = false;
  std::vector<unsigned char> current, next;
  try {
    current.resize(std::size_t(n) * width);
    next.resize(current.size());
    TOPOGPU_DISPATCH_SCALAR(run.values.type, {
      const auto* in = static_cast<const ValueT*>(run.values.data);
      auto* out = reinterpret_cast<sfs::Working<ValueT>*>(current.data());
      for (topogpu::SimplexId v = 0; v < n; ++v)
        out[v] = in[v];
    });
  } catch (const std::exception& e) {
    error = e.what();
  }
  sfs::Parameters onePass;
  onePass.backend = run.backend;
  onePass.numberOfIterations = 1;
  onePass.mask = mask.empty() ? nullptr : mask.data();
  for (int pass = 0; pass < passes; ++pass) {
    if (error.empty() && !aborted) {
      try {
        const topogpu::ScalarArrayView view{current.data(), working, n};
        const topogpu::Monitor monitor =
            run.monitor.stage(double(pass) / passes, double(pass + 1) / passes);
        run.visit([&](auto& triangulation) {
          sfs::execute(triangulation, view, onePass, monitor, next.data(), run.report);
        });
        current.swap(next);
      } catch (const topogpu::Aborted&) {
        aborted = true;
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    piece.exchange(current.data(), width, error, aborted);
  }
  if (!error.empty())
    throw topogpu::Error(error); // no passes: nothing was exchanged
  if (passes == 0)               // validates the input as the serial run does
    run.visit([&](auto& triangulation) {
      sfs::execute(triangulation, run.values, onePass, run.monitor, next.data(),
                   run.report);
    });
  run.report.timings.assign(
      1, {"smooth, " + std::to_string(passes) + " passes with ghost exchanges",
          timer.seconds()});

  vtkSmartPointer<vtkDataArray> local;
  local.TakeReference(vtkDataArray::CreateDataArray(run.scalars->GetDataType()));
  local->SetNumberOfTuples(n);
  TOPOGPU_DISPATCH_SCALAR(run.values.type, {
    const auto* in = reinterpret_cast<const sfs::Working<ValueT>*>(current.data());
    auto* out = static_cast<ValueT*>(local->GetVoidPointer(0));
    for (topogpu::SimplexId v = 0; v < n; ++v)
      out[v] = sfs::toValue<ValueT>(in[v]);
  });
  // The input piece's points take their vertex's value; an input ghost point beyond
  // the rebuilt layers keeps its own (it is another rank's to smooth).
  std::string name;
  vtkDataArray* original =
      this->ResolveInputScalars(run.inputVector, piece.input(), name);
  vtkSmartPointer<vtkDataArray> smoothed;
  smoothed.TakeReference(original->NewInstance());
  smoothed->SetName(original->GetName());
  smoothed->SetNumberOfComponents(1);
  smoothed->SetNumberOfTuples(original->GetNumberOfTuples());
  for (vtkIdType i = 0; i < original->GetNumberOfTuples(); ++i) {
    const vtkIdType v = piece.meshPoint(i);
    if (v >= 0)
      smoothed->SetTuple(i, v, local);
    else
      smoothed->SetTuple(i, i, original);
  }
  return smoothed;
}

void vtkTopoGPUScalarFieldSmoother::ComputeEmptyPiece(topogpu::vtk::FilterRun& run) {
  // The other ranks' passes exchange with every rank.
  for (int pass = 0; pass < this->NumberOfIterations; ++pass)
    run.piece->exchange(nullptr, 0, "", false);
}

void vtkTopoGPUScalarFieldSmoother::Compute(topogpu::vtk::FilterRun& run) {
  namespace sfs = topogpu::scalar_field_smoother;
  sfs::Parameters parameters;
  parameters.backend = run.backend;
  parameters.numberOfIterations = this->NumberOfIterations;
  std::vector<std::uint8_t> mask;
  vtkSmartPointer<vtkDataArray> smoothed;
  if (run.piece) {
    std::string error;
    try {
      if (this->ForceInputMaskScalarField) {
        vtkDataArray* array =
            this->GetInputArrayToProcess(1, run.inputVector); // the input piece's
        mask = maskOf(array ? run.piece->carried(array) : nullptr,
                      run.input->GetNumberOfPoints());
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      // Every rank stops at the first exchange, as in SmoothPiece (none without passes).
      if (this->NumberOfIterations > 0)
        run.piece->exchange(nullptr, 0, error, false);
      throw topogpu::Error(error);
    }
    smoothed = this->SmoothPiece(run, mask);
  } else {
    if (this->ForceInputMaskScalarField) {
      mask = maskOf(this->GetInputArrayToProcess(1, run.inputVector),
                    run.input->GetNumberOfPoints());
      parameters.mask = mask.data();
    }
    // A plain (array-of-structs) array of the input's VTK type receives the result.
    smoothed.TakeReference(vtkDataArray::CreateDataArray(run.scalars->GetDataType()));
    smoothed->SetName(run.scalars->GetName());
    smoothed->SetNumberOfComponents(1);
    smoothed->SetNumberOfTuples(run.values.size);
    run.visit([&](auto& triangulation) {
      sfs::execute(triangulation, run.values, parameters, run.monitor,
                   smoothed->GetVoidPointer(0), run.report);
    });
  }

  const topogpu::Timer outputTimer;
  // As TTK: the input passed through, its array replaced (same name: AddArray replaces
  // it in place, so it stays the active scalars when it was).
  vtkDataSet* output = vtkDataSet::GetData(run.outputVector, 0);
  output->ShallowCopy(run.piece ? run.piece->input() : run.input);
  if (run.scalars->GetName() != nullptr) {
    output->GetPointData()->AddArray(smoothed);
    // The field's vertex order array (TTK's <name>_Order) ranks the old values.
    output->GetPointData()->RemoveArray(
        topogpu::vtk::orderArrayName(run.scalars->GetName()).c_str());
  } else { // an unnamed input can only have been the active scalars
    output->GetPointData()->SetScalars(smoothed);
  }
  // An image piece's outer ghost layers, read by the passes but short of neighbours
  // themselves, are left out: the output holds the extent asked for, all of it exact.
  auto* image = vtkImageData::SafeDownCast(output);
  int extent[6];
  if (image != nullptr &&
      RequestedPieceExtent(run.outputVector->GetInformationObject(0), extent))
    image->Crop(extent);
  run.report.timings.emplace_back("output", outputTimer.seconds());
}
