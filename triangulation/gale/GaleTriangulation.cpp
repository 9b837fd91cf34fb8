// GALE's construction (section 4.3: the segmentation, the cells in new ids, the cell
// lists, the producer), its preconditions (the relation servers, the lists they need)
// and its reports.
#include "GaleTriangulation.h"

#include "base/Timer.h"
#include "triangulation/explicit/MeshBuilding.h"
#include "triangulation/gale/detail/GaleRuntime.h"
#include "triangulation/gale/detail/RelationServer.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <atomic>
#include <future>
#include <string>
#include <utility>

namespace topogpu {

namespace {

using mesh_building::parallelFor;

std::atomic<std::uint64_t> nextInstance{1};

// The cells' count after the explicit backend's checks (ids in range, no repeated vertex,
// no identical cells), so both backends reject the same meshes with the same messages;
// its temporaries are freed on return.
template <typename Id>
SimplexId checkedCellCount(SimplexId numberOfVertices, int dimension,
                           const std::vector<Id>& cellVertices) {
  const SimplexId numberOfCells =
      mesh_building::cellCount(cellVertices.size(), dimension);
  ExplicitTriangulation::view(numberOfVertices, dimension, cellVertices.data(),
                              numberOfCells, nullptr);
  return numberOfCells;
}

} // namespace

gale::detail::Runtime::Runtime() = default;
gale::detail::Runtime::~Runtime() = default;

// ---- construction: validation, segmentation, cells per segment ----------------------

GaleTriangulation::GaleTriangulation(SimplexId numberOfVertices, int cellDimension,
                                     std::vector<SimplexId> cellVertices,
                                     const std::vector<double>& points,
                                     const gale::Parameters& parameters,
                                     std::shared_ptr<gale::SegmentProducer> producer)
    : dimension_(cellDimension), numberOfVertices_(numberOfVertices),
      parameters_(parameters), instance_(nextInstance.fetch_add(1)),
      runtime_(std::make_unique<gale::detail::Runtime>()) {
  startGpuContext(producer != nullptr);
  initialize(cellVertices, points, std::move(producer));
}

// From an explicit mesh: its cells were validated by the same checks; they are copied
// straight into GALE's 32/64-bit array (no 64-bit temporary).
GaleTriangulation::GaleTriangulation(Unchecked, const ExplicitTriangulation& mesh,
                                     const std::vector<double>& points,
                                     const gale::Parameters& parameters,
                                     std::shared_ptr<gale::SegmentProducer> producer)
    : dimension_(mesh.getDimension()), numberOfVertices_(mesh.getNumberOfVertices()),
      parameters_(parameters), instance_(nextInstance.fetch_add(1)),
      runtime_(std::make_unique<gale::detail::Runtime>()) {
  startGpuContext(producer != nullptr);
  Timer timer;
  checkParameters(points);
  numberOfCells_ = mesh.getNumberOfCells();
  const int arity = dimension_ + 1;
  cells_.allocate(std::size_t(numberOfCells_) * arity, numberOfVertices_ - 1, false);
  parallelFor(numberOfCells_, [&](SimplexId c) {
    for (int k = 0; k < arity; ++k)
      cells_.set(std::size_t(c) * arity + k, mesh.getCellVertex(c, k));
  });
  runtime_->initialization.cellListSeconds += timer.seconds();
  finishInitialization(points, std::move(producer));
}

GaleTriangulation::GaleTriangulation(Cells32, SimplexId numberOfVertices,
                                     int cellDimension,
                                     std::vector<std::int32_t>& cellVertices,
                                     std::vector<double>& points,
                                     const gale::Parameters& parameters,
                                     std::shared_ptr<gale::SegmentProducer> producer)
    : dimension_(cellDimension), numberOfVertices_(numberOfVertices),
      parameters_(parameters), instance_(nextInstance.fetch_add(1)),
      runtime_(std::make_unique<gale::detail::Runtime>()) {
  startGpuContext(producer != nullptr);
  checkParameters(points);
  if (numberOfVertices_ < 1 || cellVertices.empty()) // the checks name the problem
    checkedCellCount(numberOfVertices_, dimension_, cellVertices);
  // The octree first: the points are freed before the cells' checks, the peak memory
  // of the construction.
  Timer timer;
  buildSegments(points);
  std::vector<double>().swap(points);
  runtime_->initialization.segmentationSeconds += timer.seconds();
  // The GPU producer's copy of the cells goes up while the host checks them (nothing
  // reads it before they pass).
  std::future<std::shared_ptr<gale::DeviceCells>> upload;
  if (const gale::GpuProducerFactory* factory = gpuFactory(producer != nullptr))
    upload = std::async(std::launch::async, [this, factory, &cellVertices] {
      if (runtime_->gpuContext.valid())
        runtime_->gpuContext.get();
      return factory->uploadCells(cellVertices.data(), cellVertices.size());
    });
  timer.reset();
  numberOfCells_ = checkedCellCount(numberOfVertices_, dimension_, cellVertices);
  runtime_->validationSeconds = timer.seconds();
  if (upload.valid())
    runtime_->gpuCells = upload.get(); // before the host renumbers them in place
  cells_.adopt(std::move(cellVertices));
  finishInitialization({}, std::move(producer));
}

std::shared_ptr<GaleTriangulation> GaleTriangulation::fromCells32(
    SimplexId numberOfVertices, int cellDimension, std::vector<std::int32_t> cellVertices,
    std::vector<double> points, const gale::Parameters& parameters,
    std::shared_ptr<gale::SegmentProducer> producer) {
  return std::shared_ptr<GaleTriangulation>(
      new GaleTriangulation(Cells32{}, numberOfVertices, cellDimension, cellVertices,
                            points, parameters, std::move(producer)));
}

std::shared_ptr<GaleTriangulation> GaleTriangulation::fromExplicit(
    const ExplicitTriangulation& mesh, const std::vector<double>& points,
    const gale::Parameters& parameters, std::shared_ptr<gale::SegmentProducer> producer) {
  return std::shared_ptr<GaleTriangulation>(
      new GaleTriangulation(Unchecked{}, mesh, points, parameters, std::move(producer)));
}

// The GPU producer's first CUDA call starts the device's context: begun here on a
// thread of its own, it overlaps the validation and the segmentation. The future is
// waited on before the producer is made (and by the destructor if construction throws).
void GaleTriangulation::startGpuContext(bool producerGiven) {
  if (const gale::GpuProducerFactory* factory = gpuFactory(producerGiven))
    runtime_->gpuContext =
        std::async(std::launch::async, [factory] { factory->startContext(); });
}

// The GPU producer's factory when this construction makes one (none given, a GPU
// producer asked for, a factory passed in); null otherwise.
const gale::GpuProducerFactory* GaleTriangulation::gpuFactory(bool producerGiven) const {
  return !producerGiven && parameters_.producer == gale::ProducerKind::Gpu
             ? parameters_.gpuFactory.get()
             : nullptr;
}

void GaleTriangulation::checkParameters(const std::vector<double>& points) const {
  if (dimension_ != 2 && dimension_ != 3)
    throw Error("GALE triangulation needs triangles or tetrahedra (cell dimension " +
                std::to_string(dimension_) + ")");
  if (parameters_.segmentCapacity < 1)
    throw Error("GALE segment capacity must be at least 1 vertex (got " +
                std::to_string(parameters_.segmentCapacity) + ")");
  if (!points.empty() && points.size() != std::size_t(numberOfVertices_) * 3)
    throw Error("GALE triangulation: " + std::to_string(points.size()) +
                " point coordinates for " + std::to_string(numberOfVertices_) +
                " vertices (3 per vertex expected)");
}

void GaleTriangulation::initialize(std::vector<SimplexId>& cellVertices,
                                   const std::vector<double>& points,
                                   std::shared_ptr<gale::SegmentProducer> producer) {
  Timer timer;
  if (dimension_ != 2 && dimension_ != 3)
    checkParameters(points); // names the bad dimension
  numberOfCells_ = checkedCellCount(numberOfVertices_, dimension_, cellVertices);
  checkParameters(points);
  runtime_->validationSeconds = timer.seconds();
  timer.reset();
  cells_.allocate(cellVertices.size(), numberOfVertices_ - 1, false);
  parallelFor(SimplexId(cellVertices.size()),
              [&](SimplexId i) { cells_.set(std::size_t(i), cellVertices[i]); });
  std::vector<SimplexId>().swap(cellVertices);
  runtime_->initialization.cellListSeconds += timer.seconds();
  finishInitialization(points, std::move(producer));
}

void GaleTriangulation::finishInitialization(
    const std::vector<double>& points, std::shared_ptr<gale::SegmentProducer> producer) {
  Timer timer;
  if (segmentStart_.empty()) // (the 32-bit cells' path segmented first)
    buildSegments(points);
  runtime_->initialization.segmentationSeconds += timer.seconds();
  timer.reset();
  // The GPU producer's setup needs the cells and the segmentation only: with the cells
  // already on the device it runs while the host renumbers its own (else after) and
  // builds its cell lists.
  const gale::GpuProducerFactory* factory = gpuFactory(producer != nullptr);
  std::future<std::shared_ptr<gale::DeviceStart>> gpuStart;
  auto startGpu = [&] {
    if (factory != nullptr)
      gpuStart = std::async(std::launch::async,
                            [this, factory, cells = std::move(runtime_->gpuCells)] {
                              if (runtime_->gpuContext.valid())
                                runtime_->gpuContext.get();
                              return factory->begin(*this, cells);
                            });
  };
  if (runtime_->gpuCells)
    startGpu();
  // Cells in new ids from here on: producers read them without the renumbering's
  // random lookups.
  parallelFor(SimplexId(cells_.size()),
              [&](SimplexId i) { cells_.set(std::size_t(i), newOfOld_[cells_[i]]); });
  tets32_ = dimension_ == 3 ? cells_.narrowData() : nullptr;
  if (!gpuStart.valid())
    startGpu();
  // In 3D the device's cell lists serve the host too (fetched when a CPU computation
  // first needs them): critical points on the device's relations never hold them. In 2D
  // the host sorts its lists by tuple (findTriangle), so it builds its own meanwhile.
  std::shared_ptr<gale::DeviceStart> started;
  if (gpuStart.valid() && dimension_ == 3) {
    started = gpuStart.get();
    if (factory->cellOffsets(started.get(), internalOffsets_, externalOffsets_))
      runtime_->hostCellLists.store(false);
  }
  if (runtime_->hostCellLists.load()) {
    buildCellLists(internalOffsets_, externalOffsets_, internalCells_, externalCells_);
    if (dimension_ == 2)
      sortInternalByTuple(); // findTriangle searches the cells
  }
  runtime_->initialization.cellListSeconds += timer.seconds();
  timer.reset();
  if (producer) {
    runtime_->producer = std::move(producer);
  } else {
    if (parameters_.producer == gale::ProducerKind::Gpu) {
      std::string why = "no GPU producer was given";
      if (factory != nullptr)
        runtime_->producer = factory->make(
            *this, gpuStart.valid() ? gpuStart.get() : std::move(started), why);
      if (!runtime_->producer)
        runtime_->warnings.push_back(
            {WarningCode::GaleNoGpuProducer,
             "GALE: no GPU producer (" + why +
                 "); the relations are computed by CPU producers"});
    }
    if (!runtime_->producer)
      runtime_->producer = gale::makeCpuProducer();
  }
  if (!runtime_->producer->traits().onDevice)
    ensureHostCellLists(); // (built here: a CPU producer reads them at once)
  runtime_->initialization.producerSeconds += timer.seconds();
}

GaleTriangulation::~GaleTriangulation() {
  for (auto& server : runtime_->servers)
    server.reset(); // joins its leader
}

// The host's cell lists are fetched (or built) for the relations the producer computes
// on the CPU (consumers may too): the GPU producer's VV, star, VE and vertex flags never
// need them.
void GaleTriangulation::startServer(gale::ServedRelation relation) {
  if (!runtime_->producer->servesOnDevice(relation))
    ensureHostCellLists();
  if (!runtime_->servers[relation])
    runtime_->servers[relation] =
        std::make_unique<gale::RelationServer>(*this, relation, runtime_->producer);
}

void GaleTriangulation::precondition(Relations r) {
  r = expandRelations(r, dimension_);
  const bool is3D = dimension_ == 3;
  const bool needEdges = (r & (EV | VE | EF | ET | FE | TE | BoundaryEdges)) != 0;
  const bool needTriangles =
      is3D && (r & (FV | VF | EF | FE | FT | TF | BoundaryTriangles)) != 0;
  const Relations flags = r & (BoundaryEdges | BoundaryTriangles);
  const bool newFlags = (flags & ~runtime_->boundaryFlagsWanted.load()) != 0;
  const bool needTupleOrder = is3D && (r & TT) != 0 && !internalByTuple_;
  if ((needEdges && !edgesBuilt_) || (needTriangles && !trianglesBuilt_) || newFlags ||
      needTupleOrder) {
    // Segments cached so far were computed without these lists or flags (boundary
    // flags of edges, ...): finish the batches in flight, drop the caches.
    for (auto& server : runtime_->servers) {
      if (server)
        server->quiesceAndFlush();
    }
    ++generation_;
    runtime_->boundaryFlagsWanted.fetch_or(flags);
    buildEdgesAndTriangles(needEdges, needTriangles);
    if (needTupleOrder) {
      ensureHostCellLists();
      sortInternalByTuple();
    }
  }
  prepared_ |= r;
  using namespace gale;
  if (r & VV)
    startServer(kVertexNeighbors);
  if (r & VE)
    startServer(kVertexEdges);
  if (r & VF)
    startServer(is3D ? kVertexTriangles : kVertexStar);
  if (r & VertexStar)
    startServer(kVertexStar);
  if (r & EF)
    startServer(kEdgeTriangles);
  if (r & ET && is3D)
    startServer(kEdgeTets);
  if (r & FT && is3D)
    startServer(kTriangleTets);
  if (r & TT && is3D)
    startServer(kTetNeighbors);
  if (r & Boundary)
    startServer(kBoundaryFlags);
}

SimplexId GaleTriangulation::getNumberOfNonManifoldFacets() const {
  TOPOGPU_REQUIRE_RELATION(prepared_, BoundaryVertices);
  SimplexId known = runtime_->nonManifoldFacets.load();
  if (known >= 0)
    return known;
  // The boundary flags' segments count them (kept, never evicted): a segment-order
  // pass finds those a loop already computed and computes the others.
  const auto& server = runtime_->servers[gale::kBoundaryFlags];
  known = tbb::parallel_reduce(
      tbb::blocked_range<SimplexId>(0, getNumberOfSegments()), SimplexId(0),
      [&](const tbb::blocked_range<SimplexId>& r, SimplexId n) {
        for (SimplexId s = r.begin(); s < r.end(); ++s)
          n += server ? server->get(s)->nonManifoldFacets
                      : gale::computeSegmentCpu(*this, gale::kBoundaryFlags, s)
                            ->nonManifoldFacets;
        return n;
      },
      [](SimplexId x, SimplexId y) { return x + y; });
  runtime_->nonManifoldFacets.store(known);
  return known;
}

gale::Statistics GaleTriangulation::statistics() const {
  gale::Statistics s;
  s.initialization = runtime_->initialization;
  s.validationSeconds = runtime_->validationSeconds;
  s.initializationSeconds = runtime_->initialization.total();
  for (const auto& server : runtime_->servers) {
    if (server)
      server->addStatistics(s);
  }
  const std::array<double, 3> stages = runtime_->producer->stageSeconds();
  s.prepareSeconds = stages[0];
  s.kernelSeconds = stages[1];
  s.integrateSeconds = stages[2];
  return s;
}

std::string GaleTriangulation::producerName() const {
  return runtime_->producer->name();
}

std::vector<Warning> GaleTriangulation::warnings() const {
  std::vector<Warning> all = runtime_->warnings;
  for (Warning& w : runtime_->producer->warnings())
    all.push_back(std::move(w));
  return all;
}

Relations GaleTriangulation::boundaryFlagsWanted() const {
  return runtime_->boundaryFlagsWanted.load();
}

std::size_t GaleTriangulation::memoryBytes() const {
  auto ids = [](const IdArray& a) { return a.size() * (a.isWide() ? 8 : 4); };
  std::size_t bytes =
      ids(cells_) + ids(newOfOld_) + ids(oldOfNew_) + ids(segmentOfNew_) +
      ids(internalCells_) + ids(externalCells_) + ids(edgeNew_) + ids(triangleNew_) +
      ids(edgeFirst_) + ids(triangleFirst_) +
      sizeof(SimplexId) *
          (segmentStart_.size() + internalOffsets_.size() + externalOffsets_.size() +
           edgeOffsets_.size() + triangleOffsets_.size());
  for (const auto& server : runtime_->servers) {
    if (server)
      bytes += server->cacheBytes();
  }
  return bytes;
}

} // namespace topogpu
