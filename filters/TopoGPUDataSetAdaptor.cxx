#include "TopoGPUDataSetAdaptor.h"

#include "core/common/GivenVertexOrder.h"
#include "cuda/gale/GaleGpu.h"

#include <vtkCellArray.h>
#include <vtkCellType.h>
#include <vtkCellTypes.h>
#include <vtkDataArray.h>
#include <vtkDataSetAttributes.h>
#include <vtkIdList.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkType.h>
#include <vtkTypeInt32Array.h>
#include <vtkTypeInt64Array.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

namespace topogpu::vtk {

namespace {

const char* cellTypeName(int type) {
  return type == VTK_TETRA ? "VTK_TETRA" : "VTK_TRIANGLE";
}

// vtkTypeInt64 may be long long where std::int64_t is long: same width and
// representation, so the ids are read in place either way.
const std::int32_t* asFixedWidth(const vtkTypeInt32* ids) {
  static_assert(sizeof(vtkTypeInt32) == sizeof(std::int32_t), "32-bit ids");
  return reinterpret_cast<const std::int32_t*>(ids);
}
const std::int64_t* asFixedWidth(const vtkTypeInt64* ids) {
  static_assert(sizeof(vtkTypeInt64) == sizeof(std::int64_t), "64-bit ids");
  return reinterpret_cast<const std::int64_t*>(ids);
}

// One vtkCellArray read in its own storage width (32- or 64-bit offsets and ids), as
// ExplicitTriangulation can view either without a copy.
template <typename Visitor>
decltype(auto) withStorage(vtkCellArray* cells, Visitor&& visit) {
  if (cells->IsStorage64Bit())
    return visit(cells->GetOffsetsArray64()->GetPointer(0),
                 cells->GetConnectivityArray64());
  return visit(cells->GetOffsetsArray32()->GetPointer(0),
               cells->GetConnectivityArray32());
}

// The cells of one vtkCellArray (an unstructured grid's, or a poly data's polygons)
// whose first data-set cell id is firstId; typeOf(c, size) gives the VTK type of cell c.
// Reads cells through the offsets, so a cell's ids are never mixed with its neighbour's,
// and rejects a triangle or tetrahedron with the wrong number of ids, naming it.
template <typename TypeOf>
TriangulationResult fromCellArray(vtkDataSet* input, vtkCellArray* cellArray,
                                  vtkIdType firstId, vtkIdType totalCells,
                                  TypeOf typeOf) {
  const vtkIdType cells = cellArray == nullptr ? 0 : cellArray->GetNumberOfCells();
  if (totalCells == 0)
    throw Error("the input has no cells");
  return withStorage(
      cellArray,
      [&](const auto* offsets, auto* connectivityArray) -> TriangulationResult {
        vtkIdType tets = 0, triangles = 0;
        for (vtkIdType c = 0; c < cells; ++c) {
          const vtkIdType size = vtkIdType(offsets[c + 1] - offsets[c]);
          const int type = typeOf(c, size);
          if (type != VTK_TETRA && type != VTK_TRIANGLE)
            continue;
          const vtkIdType expected = type == VTK_TETRA ? 4 : 3;
          if (size != expected)
            throw Error("cell " + std::to_string(firstId + c) + " is a " +
                        cellTypeName(type) + " with " + std::to_string(size) +
                        " point ids (a " +
                        (type == VTK_TETRA ? "tetrahedron" : "triangle") + " has " +
                        std::to_string(expected) + ")");
          (type == VTK_TETRA ? tets : triangles) += 1;
        }
        if (tets == 0 && triangles == 0)
          throw Error("the input has no triangle or tetrahedron cells (" +
                      std::to_string(totalCells) +
                      " cells of other types); triangulate it first (Tetrahedralize or "
                      "Triangulate filter)");
        const int dimension = tets > 0 ? 3 : 2;
        const int wanted = tets > 0 ? VTK_TETRA : VTK_TRIANGLE;
        const vtkIdType used = tets > 0 ? tets : triangles;
        const SimplexId points = input->GetNumberOfPoints();
        TriangulationResult result;
        if (used == totalCells) {
          // Every cell is wanted and has arity ids: the connectivity array is the cell
          // list. View it in place; the triangulation holds a reference to the VTK array.
          vtkSmartPointer<vtkDataArray> keep = connectivityArray;
          std::shared_ptr<const void> owner(connectivityArray->GetPointer(0),
                                            [keep](const void*) {});
          result.triangulation =
              std::make_shared<ExplicitTriangulation>(ExplicitTriangulation::view(
                  points, dimension, asFixedWidth(connectivityArray->GetPointer(0)),
                  SimplexId(used), std::move(owner)));
          return result;
        }
        result.notes.push_back({WarningCode::MixedCellsIgnored,
                                std::to_string(totalCells - used) + " of " +
                                    std::to_string(totalCells) + " cells are not " +
                                    (tets > 0 ? "tetrahedra" : "triangles") +
                                    " and were ignored"});
        const auto* ids = connectivityArray->GetPointer(0);
        std::vector<SimplexId> connectivity;
        connectivity.reserve(std::size_t(used) * (dimension + 1));
        for (vtkIdType c = 0; c < cells; ++c) {
          const vtkIdType size = vtkIdType(offsets[c + 1] - offsets[c]);
          if (typeOf(c, size) == wanted)
            connectivity.insert(connectivity.end(), ids + offsets[c],
                                ids + offsets[c + 1]);
        }
        result.triangulation = std::make_shared<ExplicitTriangulation>(
            points, dimension, std::move(connectivity));
        return result;
      });
}

TriangulationResult fromCells(vtkUnstructuredGrid* grid) {
  vtkUnsignedCharArray* types = grid->GetCellTypesArray();
  if (grid->GetNumberOfCells() == 0 || types == nullptr || grid->GetCells() == nullptr)
    throw Error("the input has no cells");
  if (types->GetNumberOfTuples() != grid->GetCells()->GetNumberOfCells())
    throw Error("the input's cell types (" + std::to_string(types->GetNumberOfTuples()) +
                ") and cells (" + std::to_string(grid->GetCells()->GetNumberOfCells()) +
                ") differ in number");
  const unsigned char* type = types->GetPointer(0);
  return fromCellArray(grid, grid->GetCells(), 0, grid->GetNumberOfCells(),
                       [type](vtkIdType c, vtkIdType) { return int(type[c]); });
}

// Poly data: triangles are the polygons with 3 ids (VTK types a polygon by its size, so
// none is malformed); vertices, lines, strips and larger polygons are skipped.
TriangulationResult fromCells(vtkPolyData* poly) {
  const vtkIdType before = poly->GetNumberOfVerts() + poly->GetNumberOfLines();
  if (poly->GetNumberOfCells() == 0)
    throw Error("the input has no cells");
  vtkCellArray* polys = poly->GetPolys();
  if (polys == nullptr || polys->GetNumberOfCells() == 0)
    throw Error("the input has no triangle or tetrahedron cells (" +
                std::to_string(poly->GetNumberOfCells()) +
                " cells of other types); triangulate it first (Tetrahedralize or "
                "Triangulate filter)");
  return fromCellArray(
      poly, polys, before, poly->GetNumberOfCells(),
      [](vtkIdType, vtkIdType size) { return size == 3 ? VTK_TRIANGLE : VTK_POLYGON; });
}

} // namespace

TriangulationResult makeTriangulation(vtkDataSet* input) {
  if (input == nullptr || input->GetNumberOfPoints() == 0)
    throw Error("the input is empty (no points)");
  if (auto* image = vtkImageData::SafeDownCast(input)) {
    int dims[3];
    image->GetDimensions(dims);
    auto grid = std::make_shared<ImplicitTriangulation>(dims[0], dims[1], dims[2]);
    // A piece of a distributed image: a face made of ghost points is a cut between
    // pieces, not the domain's boundary (TTK's boundary rule reads it).
    if (vtkUnsignedCharArray* ghosts = image->GetPointData()->GetGhostArray()) {
      int faces = 0;
      for (int f = 0; f < 6; ++f) {
        int ijk[3] = {dims[0] / 2, dims[1] / 2, dims[2] / 2};
        ijk[f / 2] = f % 2 ? dims[f / 2] - 1 : 0;
        const vtkIdType v =
            ijk[0] + vtkIdType(dims[0]) * (ijk[1] + vtkIdType(dims[1]) * ijk[2]);
        if (!(ghosts->GetValue(v) & vtkDataSetAttributes::DUPLICATEPOINT))
          faces |= 1 << f;
      }
      grid->setBoundaryFaces(faces);
    }
    TriangulationResult result;
    result.triangulation = std::move(grid);
    return result;
  }
  if (auto* grid = vtkUnstructuredGrid::SafeDownCast(input))
    return fromCells(grid);
  if (auto* poly = vtkPolyData::SafeDownCast(input))
    return fromCells(poly);
  throw Error(std::string("unsupported input type ") + input->GetClassName() +
              " (expected vtkImageData, vtkUnstructuredGrid or vtkPolyData)");
}

TriangulationResult makeTriangulation(vtkDataSet* input, TriangulationChoice choice,
                                      const gale::Parameters& parameters) {
  TriangulationResult result = makeTriangulation(input);
  if (choice == TriangulationChoice::Auto)
    return result;
  if (auto* grid =
          std::get_if<std::shared_ptr<ImplicitTriangulation>>(&result.triangulation))
    result.triangulation =
        std::make_shared<ExplicitTriangulation>(explicitCopyOf(**grid));
  if (choice == TriangulationChoice::Explicit)
    return result;
  std::vector<double> points(3 * std::size_t(input->GetNumberOfPoints()));
  for (vtkIdType v = 0; v < input->GetNumberOfPoints(); ++v)
    input->GetPoint(v, &points[3 * std::size_t(v)]);
  gale::Parameters chosen = parameters;
  chosen.producer = choice == TriangulationChoice::GaleGpu ? gale::ProducerKind::Gpu
                                                           : gale::ProducerKind::Cpu;
  chosen.gpuFactory = gpu::galeGpuProducerFactory();
  // The explicit mesh validated the cells (same checks): GALE takes them from it, and
  // it is dropped here.
  auto mesh = std::get<std::shared_ptr<ExplicitTriangulation>>(result.triangulation);
  result.triangulation = GaleTriangulation::fromExplicit(*mesh, points, chosen);
  for (Warning& warning :
       std::get<std::shared_ptr<GaleTriangulation>>(result.triangulation)->warnings())
    result.notes.push_back(std::move(warning));
  return result;
}

std::string notesMessage(const TriangulationResult& result) {
  if (result.notes.empty())
    return {};
  std::string message =
      result.notes.front().code == WarningCode::MixedCellsIgnored ? "Mixed cells: " : "";
  for (std::size_t i = 0; i < result.notes.size(); ++i)
    message += (i > 0 ? "; " : "") + result.notes[i].text;
  return message + ".";
}

std::string vtkCellTypeName(int type) {
  const char* name = vtkCellTypes::GetClassNameFromTypeId(type);
  return name ? name : "cell type " + std::to_string(type);
}

std::string triangleSurfaceProblem(vtkDataSet* input) {
  if (input == nullptr || input->GetNumberOfPoints() == 0 ||
      input->GetNumberOfCells() == 0)
    return {};
  const vtkIdType cells = input->GetNumberOfCells();
  vtkIdType others = 0, first = -1;
  if (auto* poly = vtkPolyData::SafeDownCast(input)) {
    // Cell ids run over verts, lines, polys, then strips; a poly is a triangle when it
    // has 3 ids.
    const vtkIdType before = poly->GetNumberOfVerts() + poly->GetNumberOfLines();
    others = before + poly->GetNumberOfStrips();
    if (before > 0)
      first = 0;
    if (vtkCellArray* polys = poly->GetPolys()) {
      for (vtkIdType c = 0; c < polys->GetNumberOfCells(); ++c) {
        if (polys->GetCellSize(c) != 3 && others++ == 0)
          first = before + c;
      }
      if (first < 0 && others > 0)
        first = before + polys->GetNumberOfCells(); // the first strip
    }
  } else if (auto* grid = vtkUnstructuredGrid::SafeDownCast(input);
             grid != nullptr && grid->GetCellTypesArray() != nullptr) {
    const unsigned char* types = grid->GetCellTypesArray()->GetPointer(0);
    for (vtkIdType c = 0; c < cells; ++c) {
      if (types[c] != VTK_TRIANGLE && others++ == 0)
        first = c;
    }
  } else {
    for (vtkIdType c = 0; c < cells; ++c) {
      if (input->GetCellType(c) != VTK_TRIANGLE && others++ == 0)
        first = c;
    }
  }
  if (others == 0)
    return {};
  return std::to_string(others) + " of the " + std::to_string(cells) +
         " cells are not triangles (cell " + std::to_string(first) + " is a " +
         vtkCellTypeName(input->GetCellType(first)) +
         "); a triangle surface is needed: triangulate it first (ParaView: "
         "Extract Surface, then Triangulate)";
}

ScalarArrayView viewScalarArray(vtkDataArray* array, const std::string& name) {
  if (array == nullptr)
    throw Error("no point scalar array '" + name + "' on the input");
  if (array->GetNumberOfComponents() != 1)
    throw Error("array '" + name + "' has " +
                std::to_string(array->GetNumberOfComponents()) +
                " components; a scalar (1 component) array is needed");
  ScalarArrayView view;
  view.data = array->GetVoidPointer(0);
  view.size = array->GetNumberOfTuples();
  switch (array->GetDataType()) {
  case VTK_CHAR:
  case VTK_SIGNED_CHAR:
    view.type = ScalarType::Int8;
    break;
  case VTK_UNSIGNED_CHAR:
    view.type = ScalarType::UInt8;
    break;
  case VTK_SHORT:
    view.type = ScalarType::Int16;
    break;
  case VTK_UNSIGNED_SHORT:
    view.type = ScalarType::UInt16;
    break;
  case VTK_INT:
    view.type = ScalarType::Int32;
    break;
  case VTK_UNSIGNED_INT:
    view.type = ScalarType::UInt32;
    break;
  case VTK_LONG:
  case VTK_LONG_LONG:
  case VTK_ID_TYPE:
    view.type = sizeof(long) == 8 || array->GetDataType() != VTK_LONG ? ScalarType::Int64
                                                                      : ScalarType::Int32;
    break;
  case VTK_UNSIGNED_LONG:
  case VTK_UNSIGNED_LONG_LONG:
    view.type = sizeof(unsigned long) == 8 || array->GetDataType() != VTK_UNSIGNED_LONG
                    ? ScalarType::UInt64
                    : ScalarType::UInt32;
    break;
  case VTK_FLOAT:
    view.type = ScalarType::Float32;
    break;
  case VTK_DOUBLE:
    view.type = ScalarType::Float64;
    break;
  default:
    throw Error("array '" + name + "' has the non-numeric type " +
                std::string(array->GetDataTypeAsString()));
  }
  return view;
}

std::string orderArrayName(const std::string& fieldName) {
  return fieldName + "_Order";
}

namespace {

bool isIntegralType(int type) {
  switch (type) {
  case VTK_CHAR:
  case VTK_SIGNED_CHAR:
  case VTK_UNSIGNED_CHAR:
  case VTK_SHORT:
  case VTK_UNSIGNED_SHORT:
  case VTK_INT:
  case VTK_UNSIGNED_INT:
  case VTK_LONG:
  case VTK_UNSIGNED_LONG:
  case VTK_LONG_LONG:
  case VTK_UNSIGNED_LONG_LONG:
  case VTK_ID_TYPE:
    return true;
  default:
    return false;
  }
}

} // namespace

std::string attachOrderArray(vtkDataSet* input, const std::string& fieldName,
                             ScalarArrayView& values, std::vector<SimplexId>& ranks,
                             const std::string& orderName, bool renumber) {
  std::string name = orderName.empty() ? orderArrayName(fieldName) : orderName;
  vtkAbstractArray* found =
      input == nullptr ? nullptr : input->GetPointData()->GetAbstractArray(name.c_str());
  if (found == nullptr) {
    if (!orderName.empty())
      throw Error("no point array '" + name +
                  "' (the order array asked for) on the input");
    return {};
  }
  auto* array = vtkDataArray::SafeDownCast(found);
  if (array == nullptr || !isIntegralType(array->GetDataType()))
    throw Error("order array '" + name + "' has the type " +
                std::string(found->GetDataTypeAsString()) +
                "; a vertex order is an integer array (TTK's `<field>_Order`)");
  if (array->GetNumberOfComponents() != 1)
    throw Error("order array '" + name + "' has " +
                std::to_string(array->GetNumberOfComponents()) +
                " components; a vertex order has 1");
  if (array->GetNumberOfTuples() != values.size)
    throw Error("order array '" + name + "' has " +
                std::to_string(array->GetNumberOfTuples()) + " values for " +
                std::to_string(values.size) + " points");
  ranks.resize(std::size_t(values.size));
  switch (array->GetDataType()) {
    vtkTemplateMacro({
      const auto* given = static_cast<const VTK_TT*>(array->GetVoidPointer(0));
      std::copy(given, given + values.size, ranks.begin());
    });
  }
  if (renumber) {
    std::vector<SimplexId> all(ranks.size());
    std::iota(all.begin(), all.end(), SimplexId(0));
    ranks = restrictVertexOrder(ranks.data(), all);
  }
  values.order = ranks.data();
  checkGivenVertexOrder(values, "order array '" + name + "'", "'" + fieldName + "'");
  return name;
}

} // namespace topogpu::vtk
