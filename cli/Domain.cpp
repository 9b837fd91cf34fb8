#include "Domain.h"

#include "base/Timer.h"
#include "cuda/gale/GaleGpu.h"
#include "triangulation/io/MeshFiles.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <future>
#include <limits>
#include <type_traits>

namespace topogpu::cli {

namespace {

// A triangle mesh read without VTK (.off, .ply) with the scalar array asked for.
Domain surfaceDomain(io::SurfaceMesh surface, const std::string& path,
                     const std::string& arrayName, bool offFile, bool keepPoints) {
  auto values = std::make_shared<std::vector<double>>();
  const int axis = coordinateAxis(arrayName);
  for (auto& [name, array] : surface.pointArrays) {
    if (name == arrayName) {
      *values = std::move(array);
      break;
    }
  }
  if (values->empty()) {
    if (axis < 0) {
      std::string known;
      for (const auto& [name, array] : surface.pointArrays)
        known += (known.empty() ? "" : ", ") + name;
      throw Error(offFile ? "OFF files carry no point arrays; use --array x, y or z (a "
                            "coordinate as the scalar field)"
                          : "'" + path + "' has no vertex property '" + arrayName +
                                "' (it has: " + known + ")");
    }
    values->resize(std::size_t(surface.numberOfVertices()));
    for (SimplexId v = 0; v < surface.numberOfVertices(); ++v)
      (*values)[v] = surface.points[3 * v + axis];
  }
  Domain domain;
  domain.input = path;
  domain.triangulation = "explicit";
  domain.values = viewOf(*values);
  domain.storage = values;
  const SimplexId vertices = surface.numberOfVertices();
  surface.pointArrays.clear();
  if (keepPoints)
    domain.points = std::move(surface.points);
  surface.points = {};
  domain.holder =
      std::make_shared<ExplicitTriangulation>(vertices, 2, std::move(surface.cells));
  return domain;
}

Domain loadRaw(const Arguments& args, CommandContext& context) {
  for (const char* meshOnly : {"--array", "--order-array"}) {
    if (args.has(meshOnly))
      throw Error(std::string(meshOnly) + " applies to --mesh inputs only");
  }
  const std::string path = args.require("--raw");
  const auto dims = parseDims(args.require("--dims"));
  const ScalarType type = parseScalarType(args.require("--type"));
  context.activity = "reading raw volume '" + path + "'";
  auto volume = std::make_shared<io::RawVolume>(io::readRawVolume(path, dims, type));
  Domain domain;
  domain.input = path;
  domain.holder = std::make_shared<ImplicitTriangulation>(dims[0], dims[1], dims[2]);
  domain.values = volume->view();
  domain.storage = volume;
  domain.triangulation = "implicit";
  return domain;
}

Domain loadMesh(const Arguments& args, CommandContext& context, bool keepPoints) {
  for (const char* rawOnly : {"--dims", "--type"}) {
    if (args.has(rawOnly))
      throw Error(std::string(rawOnly) + " applies to --raw inputs only");
  }
  const std::string path = args.require("--mesh");
  const std::string arrayName = args.require("--array");
  const std::string name = lowerCase(path);
  context.activity = "reading mesh '" + path + "'";
  io::readableFileSize(path, "mesh");
  if (args.has("--order-array") && !endsWith(name, ".vtu") && !endsWith(name, ".vtp") &&
      !endsWith(name, ".vti") && !endsWith(name, ".vtk"))
    throw Error("--order-array applies to VTK files (.vtu .vtp .vti .vtk) only");
  if (endsWith(name, ".off"))
    return surfaceDomain(io::readOff(path), path, arrayName, true, keepPoints);
  if (endsWith(name, ".ply"))
    return surfaceDomain(io::readPly(path), path, arrayName, false, keepPoints);
  const bool vtkFormat = endsWith(name, ".vtu") || endsWith(name, ".vtp") ||
                         endsWith(name, ".vti") || endsWith(name, ".vtk");
  if (!vtkFormat)
    throw Error("unsupported mesh format of '" + path +
                "' (expected .off .ply .vtu .vtp .vti .vtk)");
#if TOPOGPU_WITH_VTK
  return loadWithVtk(path, arrayName, keepPoints, false, args.get("--order-array", ""));
#else
  throw Error("this build has no VTK: --mesh reads only .off and .ply files (got '" +
              path + "')");
#endif
}

} // namespace

SimplexId Domain::numberOfVertices() const {
  return frontend::visitWithGale(
      holder, [](const auto& tri) -> SimplexId { return tri.getNumberOfVertices(); });
}

int Domain::dimension() const {
  return frontend::visitWithGale(
      holder, [](const auto& tri) -> int { return tri.getDimension(); });
}

int coordinateAxis(const std::string& arrayName) {
  if (arrayName == "x")
    return 0;
  if (arrayName == "y")
    return 1;
  if (arrayName == "z")
    return 2;
  return -1;
}

std::vector<OptionSpec> domainOptions() {
  return {
      {"--raw", "FILE",
       "headerless volume, x fastest, little-endian (needs --dims, --type)"},
      {"--dims", "X,Y[,Z]", "grid points per axis of --raw (a size-1 axis is dropped)"},
      {"--type", "T",
       "value type of --raw: uint8 int8 uint16 int16 uint32 int32 uint64 int64 float32 "
       "float64"},
      {"--mesh", "FILE",
       "triangle or tet mesh: .off .ply"
#if TOPOGPU_WITH_VTK
       " .vtu .vtp .vti .vtk (a .vti is a grid)"
#else
       " (this build has no VTK: no .vtu .vtp .vti .vtk)"
#endif
      },
      {"--array", "NAME",
       "point array of --mesh as the scalar field, or x, y, z (a coordinate)"},
      {"--order-array", "NAME",
       "integer point array of a VTK --mesh giving the vertex order (ranks, TTK's "
       "<field>_Order) to take instead of sorting the field; default: the array's "
       "<NAME>_Order when the file has one. It must be a permutation of 0..n-1 along "
       "which "
       "the values never decrease"},
      {"--triangulation", "implicit|explicit|gale-cpu|gale-gpu",
       "explicit on a grid stores its simplices as a mesh (the mesh backend on a known "
       "domain, for comparisons); gale-cpu / gale-gpu: the GALE "
       "localized triangulation with CPU or GPU producers (a grid is stored as tets "
       "first; critical-points, and discrete-gradient and msc on the simplicial "
       "complex); default implicit for grids, explicit for meshes"},
  };
}

std::vector<OptionSpec> galeOptions() {
  return {
      {"--drop-zero", "",
       "--raw stored as a mesh (--triangulation explicit or gale-*): drop the "
       "zero-valued vertices and the cells holding one, as GALE's paper prepares its "
       "volume meshes"},
      {"--segment-size", "N", "GALE: most vertices per octree segment (default 100)"},
      {"--cache-segments", "N",
       "GALE: computed segments kept per relation (default 0: twice the window the "
       "producers compute ahead plus 64 per core, at least 256)"},
      {"--segments-per-request", "N",
       "GALE: segments a producer computes per request, the requested one and those "
       "after it (default 0: 16 with CPU producers, 512 with the GPU one; 1 = no "
       "precomputation)"},
  };
}

namespace {

// The grid's vertices as points (x fastest), for GALE's octree.
std::vector<double> gridPoints(const std::array<SimplexId, 3>& dims) {
  std::vector<double> points;
  points.reserve(std::size_t(dims[0] * dims[1] * dims[2]) * 3);
  for (SimplexId z = 0; z < dims[2]; ++z)
    for (SimplexId y = 0; y < dims[1]; ++y)
      for (SimplexId x = 0; x < dims[0]; ++x)
        points.insert(points.end(), {double(x), double(y), double(z)});
  return points;
}

// --drop-zero: a raw grid's Freudenthal tets without its zero-valued vertices (and the
// tets holding one), vertices renumbered compactly with their values and positions, as
// the GALE paper prepares its volume meshes (background voxels dropped). Returns the
// cells for the caller to build a triangulation of; the grid is released.
MaskedGridCells dropZeroValued(Domain& domain, const std::array<SimplexId, 3>& dims) {
  const ImplicitTriangulation& grid = *domain.implicitTriangulation();
  const SimplexId n = grid.getNumberOfVertices();
  std::vector<std::uint8_t> keep(std::size_t(n), 0);
  TOPOGPU_DISPATCH_SCALAR(domain.values.type, {
    const auto* v = static_cast<const ValueT*>(domain.values.data);
    tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n),
                      [&](const tbb::blocked_range<SimplexId>& r) {
                        for (SimplexId i = r.begin(); i < r.end(); ++i)
                          keep[i] = v[i] != ValueT(0);
                      });
  });
  MaskedGridCells masked = maskedCellsOf(grid, keep);
  std::vector<std::uint8_t>().swap(keep);
  const auto kept = SimplexId(masked.keptVertices.size());
  if (kept == 0)
    throw Error("--drop-zero: every value of '" + domain.input + "' is zero");
  if (masked.numberOfCells == 0)
    throw Error("--drop-zero: no cell of '" + domain.input + "' is free of zero values");
  const std::size_t width = scalarTypeSize(domain.values.type);
  auto bytes = std::make_shared<std::vector<unsigned char>>(std::size_t(kept) * width);
  std::vector<double> points(std::size_t(kept) * 3);
  const auto* from = static_cast<const unsigned char*>(domain.values.data);
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, kept),
                    [&](const tbb::blocked_range<SimplexId>& r) {
                      for (SimplexId i = r.begin(); i < r.end(); ++i) {
                        const SimplexId g = masked.keptVertices[i];
                        std::copy(from + g * width, from + (g + 1) * width,
                                  bytes->data() + i * width);
                        // grid coordinates (integers)
                        const SimplexId x = g % dims[0], y = (g / dims[0]) % dims[1],
                                        z = g / (dims[0] * dims[1]);
                        points[3 * i] = double(x);
                        points[3 * i + 1] = double(y);
                        points[3 * i + 2] = double(z);
                      }
                    });
  domain.notes.push_back(
      {WarningCode::ZeroVerticesDropped,
       "--drop-zero: " + std::to_string(n - kept) +
           " zero-valued vertices and the cells holding them dropped (" +
           std::to_string(kept) + " vertices, " + std::to_string(masked.numberOfCells) +
           " cells left)"});
  domain.holder = frontend::AnyTriangulation(); // the grid, released
  domain.values = ScalarArrayView{bytes->data(), domain.values.type, kept};
  domain.storage = bytes;
  domain.points = std::move(points);
  domain.triangulation = "explicit";
  return masked;
}

void makeGale(Domain& domain, const Arguments& args, const std::string& kind,
              CommandContext& context, std::vector<std::int32_t>& cells32, int dimension,
              bool keepPoints) {
  gale::Parameters parameters;
  parameters.segmentCapacity = args.integer("--segment-size", 100, 1, 1 << 30);
  parameters.cacheSegments =
      int(args.integer("--cache-segments", parameters.cacheSegments, 0, 1 << 30));
  parameters.segmentsPerRequest = int(
      args.integer("--segments-per-request", parameters.segmentsPerRequest, 0, 1 << 20));
  parameters.producer =
      kind == "gale-gpu" ? gale::ProducerKind::Gpu : gale::ProducerKind::Cpu;
  parameters.gpuFactory = gpu::galeGpuProducerFactory();
  // msc follows V-paths across the mesh, revisiting segments in any order.
  parameters.randomAccess = context.command == "msc";
  context.activity = "building the GALE triangulation of '" + domain.input + "' (" +
                     std::to_string(domain.values.size) + " vertices)";
  Timer timer;
  std::shared_ptr<GaleTriangulation> gale;
  if (!cells32.empty()) { // --drop-zero's cells, taken as they are
    gale =
        GaleTriangulation::fromCells32(domain.values.size, dimension, std::move(cells32),
                                       std::move(domain.points), parameters);
  } else {
    if (const ImplicitTriangulation* grid = domain.implicitTriangulation()) {
      if (domain.points.empty() && args.has("--raw"))
        domain.points = gridPoints(parseDims(args.require("--dims")));
      domain.holder = std::make_shared<ExplicitTriangulation>(explicitCopyOf(*grid));
    }
    gale = GaleTriangulation::fromExplicit(*domain.explicitTriangulation(), domain.points,
                                           parameters);
  }
  domain.holder = std::move(gale); // the explicit mesh GALE took its cells from goes
  if (!keepPoints || args.has("--raw"))
    std::vector<double>().swap(domain.points);
  domain.triangulation = kind;
  domain.triangulationSeconds += timer.seconds();
  domain.inputTimings.emplace_back("GALE initialization", timer.seconds());
  const std::vector<Warning> said = domain.galeTriangulation()->warnings();
  domain.notes.insert(domain.notes.end(), said.begin(), said.end());
  domain.galeWarningsInNotes = said.size();
}

} // namespace

Domain loadDomain(const Arguments& args, CommandContext& context, bool withGale,
                  bool keepPoints) {
  if (args.has("--raw") == args.has("--mesh"))
    throw Error("give exactly one input: --raw FILE or --mesh FILE (see 'topogpu " +
                context.command + " --help')");
  const std::string kind = args.get("--triangulation", "");
  const bool gale = kind == "gale-cpu" || kind == "gale-gpu";
  if (gale && !withGale)
    throw Error("--triangulation " + kind + " is not available for " + context.command +
                " (GALE runs critical-points, discrete-gradient and msc)");
  if (!kind.empty() && kind != "implicit" && kind != "explicit" && !gale)
    throw Error("--triangulation must be implicit, explicit" +
                std::string(withGale ? ", gale-cpu or gale-gpu" : "") + ", got '" + kind +
                "'");
  // gale-gpu: the device's context started on a thread of its own while the mesh is
  // read and built (the GPU producer waits for it, not for a cold start)
  std::future<void> gpuContext;
  if (kind == "gale-gpu")
    gpuContext = std::async(std::launch::async,
                            [] { gpu::galeGpuProducerFactory()->startContext(); });
  const Timer readTimer;
  Domain domain = args.has("--raw") ? loadRaw(args, context)
                                    : loadMesh(args, context, gale || keepPoints);
  domain.inputTimings.emplace_back("read", readTimer.seconds());
  for (const char* flag : {"--raw", "--mesh"}) {
    if (args.has(flag))
      domain.input = args.get(flag);
  }
  std::vector<std::int32_t> galeCells; // --drop-zero's cells for GALE to take
  int dimension = 0;
  if (args.has("--drop-zero")) {
    if (!args.has("--raw") || (kind != "explicit" && !gale))
      throw Error("--drop-zero needs --raw and --triangulation explicit, gale-cpu or "
                  "gale-gpu");
    context.activity = "dropping the zero values of '" + domain.input + "'";
    Timer timer;
    dimension = domain.implicitTriangulation()->getDimension();
    MaskedGridCells masked = dropZeroValued(domain, parseDims(args.require("--dims")));
    domain.triangulationSeconds = timer.seconds();
    domain.inputTimings.emplace_back("drop zero", timer.seconds());
    if (gale && !masked.cells32.empty()) {
      galeCells = std::move(masked.cells32); // GALE takes them: no explicit mesh beside
    } else {
      context.activity = "building the explicit triangulation of '" + domain.input +
                         "' (" + std::to_string(domain.values.size) + " vertices)";
      const Timer meshTimer;
      const SimplexId vertices = domain.values.size;
      domain.holder = std::make_shared<ExplicitTriangulation>(
          masked.cells32.empty()
              ? ExplicitTriangulation(vertices, dimension, std::move(masked.cells))
              : ExplicitTriangulation::fromCells32(vertices, dimension,
                                                   std::move(masked.cells32)));
      domain.triangulationSeconds += meshTimer.seconds();
      domain.inputTimings.emplace_back("explicit triangulation", meshTimer.seconds());
    }
  }
  if (kind == "explicit" && domain.implicitTriangulation()) {
    context.activity = "building the explicit triangulation of '" + domain.input + "' (" +
                       std::to_string(domain.numberOfVertices()) + " vertices)";
    Timer timer;
    domain.holder = std::make_shared<ExplicitTriangulation>(
        explicitCopyOf(*domain.implicitTriangulation()));
    domain.triangulation = "explicit";
    domain.triangulationSeconds = timer.seconds();
    domain.inputTimings.emplace_back("explicit triangulation", timer.seconds());
  } else if (gale) {
    makeGale(domain, args, kind, context, galeCells, dimension, keepPoints);
  } else if (kind == "implicit" && !domain.implicitTriangulation()) {
    throw Error("--triangulation implicit needs a grid (--raw or .vti); '" +
                domain.input + "' is a mesh");
  }
  if (domain.values.size != domain.numberOfVertices())
    throw Error("the scalar array of '" + domain.input + "' has " +
                std::to_string(domain.values.size) + " values for " +
                std::to_string(domain.numberOfVertices()) + " vertices");
  return domain;
}

} // namespace topogpu::cli
