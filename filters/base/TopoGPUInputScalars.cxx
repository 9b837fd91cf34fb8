// The input point scalar of a TopoGPU filter (vtkTopoGPUAlgorithm::ResolveInputScalars):
// the array asked for, or the default one, and every message naming why an array cannot
// be the input.
#include "vtkTopoGPUAlgorithm.h"

#include "base/Types.h"

#include <vtkBitArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkFieldData.h>
#include <vtkInformation.h>
#include <vtkInformationIntegerKey.h>
#include <vtkInformationVector.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>

#include <string>
#include <vector>

vtkInformationKeyMacro(vtkTopoGPUAlgorithm, LABEL_ARRAY, Integer);

namespace {

// Why an array cannot be the input scalar; empty when it can (numeric, one component,
// not a bit array: the core reads whole values).
std::string unusableReason(vtkAbstractArray* array) {
  if (vtkBitArray::SafeDownCast(array))
    return "is a bit array (vtkBitArray); convert it to a numeric type first, e.g. with "
           "a Calculator";
  auto* data = vtkDataArray::SafeDownCast(array);
  if (data == nullptr)
    return std::string("is not numeric (") + array->GetClassName() + ")";
  if (data->GetNumberOfComponents() != 1)
    return "has " + std::to_string(data->GetNumberOfComponents()) +
           " components; a scalar (1 component) array is needed";
  return {};
}

std::string pointArrayList(vtkDataSet* input) {
  vtkPointData* pd = input->GetPointData();
  std::string list;
  for (int i = 0; i < pd->GetNumberOfArrays(); ++i) {
    const char* name = pd->GetArrayName(i);
    list += (list.empty() ? "" : ", ") + std::string(name ? name : "(unnamed)");
  }
  return list.empty() ? "the input has no point arrays" : "point arrays: " + list;
}

bool isLabelArray(vtkAbstractArray* array) {
  return array->HasInformation() &&
         array->GetInformation()->Has(vtkTopoGPUAlgorithm::LABEL_ARRAY());
}

// Where the input holds an array of that name ("cell data", "field data"), for messages.
std::string whereElse(vtkDataSet* input, const std::string& name) {
  std::string where;
  if (input->GetCellData()->GetAbstractArray(name.c_str()) != nullptr)
    where = "cell data";
  if (input->GetFieldData()->GetAbstractArray(name.c_str()) != nullptr)
    where += (where.empty() ? "" : " and ") + std::string("field data");
  return where;
}

const char* associationName(int association) {
  switch (association) {
  case vtkDataObject::FIELD_ASSOCIATION_POINTS:
    return "point data";
  case vtkDataObject::FIELD_ASSOCIATION_CELLS:
    return "cell data";
  case vtkDataObject::FIELD_ASSOCIATION_NONE:
    return "field data";
  default:
    return "another association";
  }
}

} // namespace

// The point scalar the filter runs on: the named array, or without a name the active
// point scalars, else the first usable point array; TopoGPU's own label arrays are no
// default.
vtkDataArray* vtkTopoGPUAlgorithm::ResolveInputScalars(vtkInformationVector** inputVector,
                                                       vtkDataSet* input,
                                                       std::string& name) {
  std::string requested;
  int asked = vtkDataObject::FIELD_ASSOCIATION_POINTS;
  if (vtkInformation* info = this->GetInputArrayInformation(0)) {
    if (info->Has(vtkDataObject::FIELD_NAME()) && info->Get(vtkDataObject::FIELD_NAME()))
      requested = info->Get(vtkDataObject::FIELD_NAME());
    if (info->Has(vtkDataObject::FIELD_ASSOCIATION()))
      asked = info->Get(vtkDataObject::FIELD_ASSOCIATION());
  }
  vtkPointData* pd = input->GetPointData();
  if (!requested.empty()) {
    name = requested;
    int association = -1;
    vtkAbstractArray* array =
        this->GetInputAbstractArrayToProcess(0, inputVector, association);
    if (array == nullptr && pd->GetAbstractArray(name.c_str()) != nullptr)
      throw topogpu::Error("array '" + name + "' was selected as " +
                           associationName(asked) +
                           ", but the input has it as point data: select it as a point "
                           "array, e.g. SelectInputScalars = ['POINTS', '" +
                           name + "']");
    const std::string elsewhere = whereElse(input, name);
    if (array == nullptr)
      throw topogpu::Error("no point scalar array '" + name + "' on the input" +
                           (elsewhere.empty() ? ""
                                              : " ('" + name + "' is " + elsewhere +
                                                    "; a point array is needed)") +
                           " (" + pointArrayList(input) + ")");
    if (association != vtkDataObject::FIELD_ASSOCIATION_POINTS)
      throw topogpu::Error("array '" + name + "' is " + associationName(association) +
                           ", not point data; select a point scalar (" +
                           pointArrayList(input) + ")");
    const std::string reason = unusableReason(array);
    if (!reason.empty())
      throw topogpu::Error("array '" + name + "' " + reason);
    return vtkDataArray::SafeDownCast(array);
  }
  std::vector<vtkAbstractArray*> candidates;
  if (pd->GetScalars() != nullptr)
    candidates.push_back(pd->GetScalars());
  for (int i = 0; i < pd->GetNumberOfArrays(); ++i)
    candidates.push_back(pd->GetAbstractArray(i));
  std::string labels;
  for (vtkAbstractArray* array : candidates) {
    if (array == nullptr || array == pd->GetGhostArray() ||
        !unusableReason(array).empty())
      continue;
    const std::string arrayName = array->GetName() ? array->GetName() : "(unnamed)";
    if (isLabelArray(array)) {
      if (labels.find("'" + arrayName + "'") == std::string::npos)
        labels += (labels.empty() ? "'" : ", '") + arrayName + "'";
      continue;
    }
    name = arrayName;
    return vtkDataArray::SafeDownCast(array);
  }
  if (!labels.empty())
    throw topogpu::Error("no array selected, and the input's numeric point arrays (" +
                         labels +
                         ") are labels that a TopoGPU filter outputs (types, ids, "
                         "manifold indices), not a scalar field; select one with "
                         "SelectInputScalars to use it anyway");
  throw topogpu::Error("no array selected and the input has no numeric one-component "
                       "point array (" +
                       pointArrayList(input) + ")");
}
