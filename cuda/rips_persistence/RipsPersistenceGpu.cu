// The GPU backend of Rips persistence: RipsBatching.h's driver over device steps. One
// thread (dense graph) or one warp (sparse graph) per facet counts and writes the
// simplices made from it (the combinatorial number system on the uploaded binomial
// table), one thread per simplex classifies it (apparent by lemma 7; cleared when the
// previous dimension's apparent test, run again, pairs it or when it is among that
// dimension's few reduced pivots, uploaded sorted), Thrust's (CUB's) stable selection
// compacts the columns to reduce and a merge sort orders them by reverse filtration
// order. Only those columns and the number of apparent pairs come back: the apparent
// pairs themselves are found again by the CPU's reduction where it meets them (never
// downloaded, never uploaded for the clearing). The simplices the next dimension needs
// as facets stay on the device when they fit. Memory: RAII buffers, sized from the
// counts before anything is made; batches from the plan (RipsBatching.h).
#include "core/rips_persistence/RipsPersistenceGpu.h"

#include "core/rips_persistence/RipsBatching.h"

#include "base/HostMemory.h"
#include "base/Timer.h"
#include "core/common/GpuDevice.h"
#include "cuda/common/CudaCheck.h"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <algorithm>
#include <string>

namespace topogpu::gpu {

namespace {

namespace rp = rips_persistence;
namespace rd = rips_persistence::device;

constexpr const char* kEntry = "rips persistence";

// A device allocation that frees itself (no initialisation: every byte is written
// before it is read).
template <typename T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size) : size_(size) {
    if (size > 0)
      cudaCheck(cudaMalloc(reinterpret_cast<void**>(&data_), size * sizeof(T)),
                "rips persistence: device allocation");
  }
  DeviceBuffer(const T* host, std::size_t size) : DeviceBuffer(size) {
    if (size > 0)
      cudaCheck(cudaMemcpy(data_, host, size * sizeof(T), cudaMemcpyHostToDevice),
                "rips persistence: upload");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_ != nullptr)
      cudaFree(data_);
  }
  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  // Appends the buffer's first `count` elements to a host vector.
  void appendTo(std::vector<T>& host, std::size_t count) const {
    if (count == 0)
      return;
    const std::size_t old = host.size();
    host.resize(old + count);
    cudaCheck(
        cudaMemcpy(host.data() + old, data_, count * sizeof(T), cudaMemcpyDeviceToHost),
        "rips persistence: download");
  }

private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

constexpr int kBlock = 128;

unsigned gridFor(SimplexId size) {
  const SimplexId blocks = (size + kBlock - 1) / kBlock;
  return unsigned(
      std::max<SimplexId>(1, std::min<SimplexId>(blocks, SimplexId(1) << 20)));
}

#define RIPS_GRID_STRIDE(i, size)                                                        \
  for (SimplexId i = SimplexId(blockIdx.x) * blockDim.x + threadIdx.x; i < (size);       \
       i += SimplexId(gridDim.x) * blockDim.x)

template <class Graph>
__global__ void countKernel(Graph graph, rd::Binomials binomial, float threshold,
                            const rp::Simplex* facets, SimplexId size, int count,
                            SimplexId* made) {
  RIPS_GRID_STRIDE(f, size) {
    made[f] = rd::countCofacetsAbove(graph, binomial, threshold, facets[f], count);
  }
}

template <class Graph>
__global__ void writeKernel(Graph graph, rd::Binomials binomial, float threshold,
                            const rp::Simplex* facets, SimplexId size, int count,
                            const SimplexId* offsets, rp::Simplex* simplices) {
  RIPS_GRID_STRIDE(f, size) {
    rd::writeCofacetsAbove(graph, binomial, threshold, facets[f], count,
                           simplices + offsets[f]);
  }
}

// The sparse graph's cofacets, one warp per facet (Ripser++'s warp-based filtering):
// a facet's candidates (the neighbours, above its largest vertex, of its vertex of
// smallest degree) number from none to hundreds, so one thread per facet leaves most
// lanes idle behind the longest list. The lanes take 32 consecutive candidates at a
// time, from the largest down (lane 0 the largest), each testing its own; a ballot
// gives the chunk's cofacets and the popcount of the lower lanes' bits a lane's slot,
// so that they are written in forEachCofacet's order (decreasing index) and the arrays
// are those of the thread version. The new vertex is above every vertex of the facet:
// the cofacet's index is C(w, count + 1) plus the facet's.
constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

template <bool kWrite>
__device__ void sparseCofacetsWarp(const rd::SparseDistances& graph,
                                   const rd::Binomials& binomial, float threshold,
                                   const rp::Simplex& s, int count, int lane,
                                   SimplexId* made, rp::Simplex* out) {
  SimplexId v[rd::kMaxVertices] = {};
  rp::simplexVertices(binomial, s.index, count, v);
  const rd::SparseDistances::Cursor range = graph.candidates(v, count, v[0]);
  const unsigned lower = (1u << lane) - 1u;
  SimplexId total = 0;
  for (SimplexId top = range.position;; top -= kWarp) {
    const SimplexId position = top - lane;
    const bool candidate =
        position >= range.begin && graph.neighbors[position] > range.floor;
    float d = 0;
    const bool cofacet =
        candidate && rd::cofacetDiameter(graph, threshold, v, count, s.diameter,
                                         graph.neighbors[position], d);
    const unsigned found = __ballot_sync(kFullMask, cofacet);
    if (kWrite && cofacet) {
      const SimplexId w = graph.neighbors[position];
      out[total + __popc(found & lower)] =
          rp::Simplex{d, binomial(w, count + 1) + s.index};
    }
    total += __popc(found);
    // The candidates are a suffix of the sorted list: a lane past it ends the walk.
    if (__ballot_sync(kFullMask, candidate) != kFullMask)
      break;
  }
  if (!kWrite && lane == 0)
    *made = total;
}

#define RIPS_WARP_STRIDE(f, size)                                                        \
  for (SimplexId f = (SimplexId(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;         \
       f < (size); f += SimplexId(gridDim.x) * blockDim.x / kWarp)

__global__ void countSparseWarpKernel(rd::SparseDistances graph, rd::Binomials binomial,
                                      float threshold, const rp::Simplex* facets,
                                      SimplexId size, int count, SimplexId* made) {
  const int lane = int(threadIdx.x % kWarp);
  RIPS_WARP_STRIDE(f, size) {
    sparseCofacetsWarp<false>(graph, binomial, threshold, facets[f], count, lane,
                              made + f, nullptr);
  }
}

__global__ void writeSparseWarpKernel(rd::SparseDistances graph, rd::Binomials binomial,
                                      float threshold, const rp::Simplex* facets,
                                      SimplexId size, int count, const SimplexId* offsets,
                                      rp::Simplex* simplices) {
  const int lane = int(threadIdx.x % kWarp);
  RIPS_WARP_STRIDE(f, size) {
    sparseCofacetsWarp<true>(graph, binomial, threshold, facets[f], count, lane, nullptr,
                             simplices + offsets[f]);
  }
}

// Blocks for one warp per item.
unsigned warpGridFor(SimplexId size) {
  return gridFor(size * kWarp);
}

template <class Graph>
__global__ void classifyKernel(Graph graph, rd::Binomials binomial,
                               const rp::Simplex* simplices, SimplexId size, int count,
                               bool clearing, const SimplexId* reduced,
                               SimplexId reducedCount, rd::SimplexKind* kind) {
  RIPS_GRID_STRIDE(i, size) {
    kind[i] = rd::classify(graph, binomial, simplices[i], count, clearing, reduced,
                           reducedCount);
  }
}

// One block per row i (grid-stride over rows), its threads over j < i; the CPU's sum
// order (coordinate by coordinate) in double, FMA contraction off (CMakeLists.txt).
__global__ void distanceKernel(const double* points, SimplexId n, int dim, float* lower) {
  for (SimplexId i = SimplexId(blockIdx.x) + 1; i < n; i += gridDim.x) {
    const double* a = points + i * dim;
    for (SimplexId j = threadIdx.x; j < i; j += blockDim.x) {
      const double* b = points + j * dim;
      double sum = 0;
      for (int k = 0; k < dim; ++k)
        sum += (a[k] - b[k]) * (a[k] - b[k]);
      lower[i * (i - 1) / 2 + j] = float(sqrt(sum));
    }
  }
}

struct IsToReduce {
  __host__ __device__ bool operator()(rd::SimplexKind k) const {
    return k == rd::kToReduce;
  }
};
struct IsApparent {
  __host__ __device__ bool operator()(rd::SimplexKind k) const {
    return k == rd::kApparent;
  }
};

void sample(RunReport& report) {
  report.peakDeviceBytes = std::max(report.peakDeviceBytes, deviceMemoryInUse());
}

class GpuOps : public rd::BatchOps {
public:
  GpuOps(const rp::RipsGraph& graph, std::size_t budget, RunReport& report)
      : report_(report), threshold_(graph.threshold), sparse_(graph.sparse),
        plan_(budget) {
    const std::size_t n = std::size_t(graph.n);
    binomial_ = DeviceBuffer<SimplexId>(graph.binomial,
                                        std::size_t(graph.maxDimension + 3) * (n + 1));
    if (sparse_) {
      offsets_ = DeviceBuffer<SimplexId>(graph.offsets.data(), graph.offsets.size());
      neighbors_ =
          DeviceBuffer<SimplexId>(graph.neighbors.data(), graph.neighbors.size());
      distances_ = DeviceBuffer<float>(graph.distances.data(), graph.distances.size());
      sparseGraph_ = rd::SparseDistances{graph.n, offsets_.data(), neighbors_.data(),
                                         distances_.data()};
    } else {
      lower_ = DeviceBuffer<float>(graph.lower, n * (n - 1) / 2);
      denseGraph_ = rd::DenseDistances{graph.n, lower_.data()};
    }
    binomialView_ = rd::Binomials{binomial_.data(), graph.n};
    persistent_ = binomial_.bytes() + offsets_.bytes() + neighbors_.bytes() +
                  distances_.bytes() + lower_.bytes();
    stageDone("upload");
    sample(report_);
  }

  const char* name() const override { return "gpu"; }

  std::size_t available() const override {
    const std::size_t held = persistent_ + kept_.bytes() + next_.bytes();
    return plan_ > held ? plan_ - held : 0;
  }

  void setClearing(const std::vector<SimplexId>& reduced) override {
    translateCudaFailures(kEntry, [&] {
      clearReduced_ = DeviceBuffer<SimplexId>();
      clearReduced_ = DeviceBuffer<SimplexId>(reduced.data(), reduced.size());
    });
  }

  void countMade(const rp::Simplex* hostFacets, std::size_t first, std::size_t size,
                 int count, SimplexId* made) override {
    translateCudaFailures(kEntry, [&] {
      Timer timer;
      DeviceBuffer<rp::Simplex> uploaded;
      const rp::Simplex* facets = facetsAt(hostFacets, first, size, uploaded);
      DeviceBuffer<SimplexId> deviceMade(size);
      if (sparse_)
        countSparseWarpKernel<<<warpGridFor(SimplexId(size)), kBlock>>>(
            sparseGraph_, binomialView_, threshold_, facets, SimplexId(size), count,
            deviceMade.data());
      else
        countKernel<<<gridFor(SimplexId(size)), kBlock>>>(
            denseGraph_, binomialView_, threshold_, facets, SimplexId(size), count,
            deviceMade.data());
      stageDone("columns");
      sample(report_);
      cudaCheck(cudaMemcpy(made, deviceMade.data(), size * sizeof(SimplexId),
                           cudaMemcpyDeviceToHost),
                "rips persistence: download of the counts");
      seconds_[0] += timer.seconds();
    });
  }

  void buildBatch(int dim, const rp::Simplex* hostFacets, std::size_t first,
                  const SimplexId* made, std::size_t size, rd::Keep keep,
                  std::size_t nextOffset, rp::PreparedDimension& out) override {
    translateCudaFailures(kEntry, [&] {
      Timer timer;
      DeviceBuffer<rp::Simplex> uploaded;
      const rp::Simplex* facets = facetsAt(hostFacets, first, size, uploaded);
      // The counts (a zero after them), scanned into offsets: offsets[size] is the total.
      DeviceBuffer<SimplexId> counts(size + 1), offsets(size + 1);
      cudaCheck(cudaMemcpy(counts.data(), made, size * sizeof(SimplexId),
                           cudaMemcpyHostToDevice),
                "rips persistence: upload of the counts");
      cudaCheck(cudaMemset(counts.data() + size, 0, sizeof(SimplexId)),
                "rips persistence: memset");
      thrust::exclusive_scan(thrust::device, counts.data(), counts.data() + size + 1,
                             offsets.data());
      SimplexId total = 0;
      cudaCheck(cudaMemcpy(&total, offsets.data() + size, sizeof(SimplexId),
                           cudaMemcpyDeviceToHost),
                "rips persistence: download of the total");
      counts = DeviceBuffer<SimplexId>();
      // Kept for the next dimension: written in place in its buffer.
      DeviceBuffer<rp::Simplex> own;
      rp::Simplex* simplices = nullptr;
      if (keep == rd::Keep::Device) {
        simplices = next_.data() + nextOffset;
      } else {
        own = DeviceBuffer<rp::Simplex>(std::size_t(total));
        simplices = own.data();
      }
      if (sparse_)
        writeSparseWarpKernel<<<warpGridFor(SimplexId(size)), kBlock>>>(
            sparseGraph_, binomialView_, threshold_, facets, SimplexId(size), dim,
            offsets.data(), simplices);
      else
        writeKernel<<<gridFor(SimplexId(size)), kBlock>>>(
            denseGraph_, binomialView_, threshold_, facets, SimplexId(size), dim,
            offsets.data(), simplices);
      stageDone("columns");
      sample(report_);
      offsets = DeviceBuffer<SimplexId>();
      uploaded = DeviceBuffer<rp::Simplex>();
      seconds_[0] += timer.seconds();
      classifyAndCompact(dim, simplices, std::size_t(total), true, out);
      if (keep == rd::Keep::Host) {
        timer.reset();
        own.appendTo(out.simplices, std::size_t(total));
        seconds_[3] += timer.seconds();
      }
    });
  }

  void classifyGiven(int dim, const rp::Simplex* columns, std::size_t size,
                     rp::PreparedDimension& out) override {
    translateCudaFailures(kEntry, [&] {
      Timer timer;
      const DeviceBuffer<rp::Simplex> simplices(columns, size);
      seconds_[1] += timer.seconds();
      classifyAndCompact(dim, simplices.data(), size, false, out);
    });
  }

  bool holdsKept() const override { return holdsKept_; }
  std::size_t keptSize() const override { return kept_.size(); }

  void fetchKept(std::vector<rp::Simplex>& host) override {
    translateCudaFailures(kEntry, [&] {
      Timer timer;
      host.clear();
      kept_.appendTo(host, kept_.size());
      dropKept();
      seconds_[3] += timer.seconds();
    });
  }

  void dropKept() override {
    kept_ = DeviceBuffer<rp::Simplex>();
    holdsKept_ = false;
  }

  void reserveNext(std::size_t size) override {
    translateCudaFailures(kEntry, [&] { next_ = DeviceBuffer<rp::Simplex>(size); });
  }

  void promoteNext() override {
    kept_ = std::move(next_);
    next_ = DeviceBuffer<rp::Simplex>();
    holdsKept_ = true;
  }

  void dropNext() override { next_ = DeviceBuffer<rp::Simplex>(); }

  void takeTimings(double seconds[4]) override {
    for (int i = 0; i < 4; ++i) {
      seconds[i] = seconds_[i];
      seconds_[i] = 0;
    }
  }

private:
  // The facets [first, first + size): uploaded from the host, or the kept ones.
  const rp::Simplex* facetsAt(const rp::Simplex* hostFacets, std::size_t first,
                              std::size_t size, DeviceBuffer<rp::Simplex>& uploaded) {
    if (hostFacets == nullptr)
      return kept_.data() + first;
    uploaded = DeviceBuffer<rp::Simplex>(hostFacets + first, size);
    return uploaded.data();
  }

  void classifyAndCompact(int dim, const rp::Simplex* simplices, std::size_t size,
                          bool clearing, rp::PreparedDimension& out) {
    Timer timer;
    DeviceBuffer<rd::SimplexKind> kind(size);
    const SimplexId reducedCount = SimplexId(clearReduced_.size());
    if (sparse_)
      classifyKernel<<<gridFor(SimplexId(size)), kBlock>>>(
          sparseGraph_, binomialView_, simplices, SimplexId(size), dim + 1, clearing,
          clearReduced_.data(), reducedCount, kind.data());
    else
      classifyKernel<<<gridFor(SimplexId(size)), kBlock>>>(
          denseGraph_, binomialView_, simplices, SimplexId(size), dim + 1, clearing,
          clearReduced_.data(), reducedCount, kind.data());
    stageDone("apparent pairs");
    sample(report_);
    seconds_[1] += timer.seconds();

    timer.reset();
    const std::size_t toReduce = std::size_t(
        thrust::count_if(thrust::device, kind.data(), kind.data() + size, IsToReduce{}));
    out.apparentCount += SimplexId(
        thrust::count_if(thrust::device, kind.data(), kind.data() + size, IsApparent{}));
    DeviceBuffer<rp::Simplex> columns(toReduce);
    thrust::copy_if(thrust::device, simplices, simplices + size, kind.data(),
                    columns.data(), IsToReduce{});
    kind = DeviceBuffer<rd::SimplexKind>();
    // Distinct indices: the order is total, any sort gives the same columns.
    thrust::sort(thrust::device, columns.data(), columns.data() + toReduce,
                 rd::ReverseFiltration{});
    stageDone("compact");
    sample(report_);
    seconds_[2] += timer.seconds();

    timer.reset();
    columns.appendTo(out.columns, toReduce);
    stageDone("download");
    seconds_[3] += timer.seconds();
  }

  RunReport& report_;
  float threshold_;
  bool sparse_;
  std::size_t plan_ = 0, persistent_ = 0;
  DeviceBuffer<SimplexId> binomial_, offsets_, neighbors_;
  DeviceBuffer<float> distances_, lower_;
  rd::Binomials binomialView_;
  rd::DenseDistances denseGraph_;
  rd::SparseDistances sparseGraph_;
  DeviceBuffer<SimplexId> clearReduced_;
  DeviceBuffer<rp::Simplex> kept_, next_; // the last dimension's simplices, this one's
  bool holdsKept_ = false;
  double seconds_[4] = {0, 0, 0, 0};
};

} // namespace

std::unique_ptr<rp::ColumnBuilder> makeRipsColumnBuilder(const rp::RipsGraph& graph,
                                                         std::size_t budget,
                                                         const Monitor& monitor,
                                                         RunReport& report) {
  std::unique_ptr<rp::ColumnBuilder> builder;
  translateCudaFailures(kEntry, [&] {
    Timer timer;
    builder = std::make_unique<rd::BatchedColumnBuilder>(
        std::make_unique<GpuOps>(graph, budget, report), monitor);
    report.timings.emplace_back("upload (gpu)", timer.seconds());
  });
  return builder;
}

void ripsPointDistances(const std::vector<double>& points, SimplexId n, int dim,
                        std::size_t budget, std::vector<float>& lower,
                        RunReport& report) {
  translateCudaFailures(kEntry, [&] {
    Timer timer;
    const std::size_t entries = std::size_t(n) * std::size_t(n - 1) / 2;
    const std::size_t need = entries * sizeof(float) + points.size() * sizeof(double);
    if (need > budget)
      throw GpuError("the distance matrix of " + std::to_string(n) + " points needs " +
                         mebibytes(double(need)) + " of device memory, " +
                         mebibytes(double(budget)) + " are in the budget",
                     true);
    const DeviceBuffer<double> devicePoints(points.data(), points.size());
    DeviceBuffer<float> deviceLower(entries);
    const unsigned rows =
        unsigned(std::max<SimplexId>(1, std::min<SimplexId>(n - 1, SimplexId(1) << 16)));
    distanceKernel<<<rows, 256>>>(devicePoints.data(), n, dim, deviceLower.data());
    stageDone("distances");
    sample(report);
    lower.clear();
    deviceLower.appendTo(lower, entries);
    report.timings.emplace_back("distances (gpu)", timer.seconds());
  });
}

} // namespace topogpu::gpu
