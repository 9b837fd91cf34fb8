#include "Patches.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#if TOPOGPU_HAS_METIS
#include <metis.h>
#endif

namespace topogpu::eikonal {

bool hasMetis() {
  return TOPOGPU_HAS_METIS != 0;
}

namespace {

// Every vertex in breadth-first order over VV: from the flagged roots first (none when
// null), then from the lowest vertex not reached yet, component by component.
std::vector<SimplexId> breadthFirstOrder(const ExplicitTriangulation& tri,
                                         const std::uint8_t* roots) {
  const SimplexId n = tri.getNumberOfVertices();
  std::vector<SimplexId> order;
  order.reserve(std::size_t(n));
  std::vector<std::uint8_t> seen(std::size_t(n), 0);
  if (roots != nullptr)
    for (SimplexId v = 0; v < n; ++v)
      if (roots[v]) {
        seen[v] = 1;
        order.push_back(v);
      }
  std::size_t head = 0;
  for (SimplexId root = 0;; ++root) {
    for (; head < order.size(); ++head) {
      const SimplexId v = order[head];
      const int m = tri.getVertexNeighborNumber(v);
      for (int i = 0; i < m; ++i) {
        const SimplexId u = tri.getVertexNeighbor(v, i);
        if (!seen[u]) {
          seen[u] = 1;
          order.push_back(u);
        }
      }
    }
    while (root < n && seen[root])
      ++root;
    if (root >= n)
      break;
    seen[root] = 1;
    order.push_back(root);
  }
  return order;
}

// Patches grown breadth-first, each closed at patchSize vertices. Each starts from the
// first unassigned vertex of a breadth-first order of the whole mesh, so new patches
// start next to the old ones and few small leftovers remain.
std::vector<std::int32_t> bfsPartition(const ExplicitTriangulation& tri, int patchSize,
                                       std::int32_t& count) {
  const SimplexId n = tri.getNumberOfVertices();
  const std::vector<SimplexId> order = breadthFirstOrder(tri, nullptr);
  std::vector<std::int32_t> patchOf(std::size_t(n), -1);
  std::vector<SimplexId> queue;
  count = 0;
  for (SimplexId start : order) {
    if (patchOf[start] >= 0)
      continue;
    const std::int32_t p = count++;
    queue.assign(1, start);
    patchOf[start] = p;
    int size = 1;
    for (std::size_t head = 0; head < queue.size() && size < patchSize; ++head) {
      const SimplexId v = queue[head];
      const int m = tri.getVertexNeighborNumber(v);
      for (int i = 0; i < m && size < patchSize; ++i) {
        const SimplexId u = tri.getVertexNeighbor(v, i);
        if (patchOf[u] < 0) {
          patchOf[u] = p;
          queue.push_back(u);
          ++size;
        }
      }
    }
  }
  return patchOf;
}

// Renumbers the patches in the order a breadth-first search from the seeds (then from
// the lowest unreached vertex, component by component) first reaches one of their
// vertices: the front meets the patches roughly in that order.
void numberPatchesFromSeeds(const ExplicitTriangulation& tri, const std::uint8_t* seed,
                            std::int32_t count, UploadVector<std::int32_t>& patchOf) {
  std::vector<std::int32_t> renumber(std::size_t(count), -1);
  std::int32_t next = 0;
  for (SimplexId v : breadthFirstOrder(tri, seed))
    if (renumber[patchOf[v]] < 0)
      renumber[patchOf[v]] = next++;
  for (std::int32_t& p : patchOf)
    p = renumber[p];
}

#if TOPOGPU_HAS_METIS
// METIS k-way on a graph in compressed rows; false when METIS fails.
bool metisKway(std::vector<idx_t>& xadj, std::vector<idx_t>& adjncy, idx_t parts,
               std::vector<idx_t>& part, std::string& why) {
  idx_t vertices = idx_t(xadj.size() - 1), constraints = 1, nparts = parts, cut = 0;
  part.assign(xadj.size() - 1, 0);
  if (parts <= 1)
    return true;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  const int status = METIS_PartGraphKway(
      &vertices, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
      &nparts, nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK) {
    why = "METIS_PartGraphKway returned " + std::to_string(status);
    return false;
  }
  return true;
}

// METIS k-way in two levels: groups of about 64 patches, then each group into patches.
// One k-way call with n / patchSize parts costs time growing with the part count
// (docs/filters/geodesic-distance.md gives the measurement). patchOf gets
// ids below `parts` (some may be unused); false (and a reason) when METIS fails.
bool metisPartition(const ExplicitTriangulation& tri, int patchSize,
                    std::vector<std::int32_t>& patchOf, std::int64_t& parts,
                    std::string& why) {
  const SimplexId n = tri.getNumberOfVertices();
  if (n >= SimplexId(std::numeric_limits<idx_t>::max() / 2)) {
    why = "the mesh has too many vertices for this METIS build's index type";
    return false;
  }
  std::vector<idx_t> xadj(std::size_t(n) + 1, 0);
  for (SimplexId v = 0; v < n; ++v)
    xadj[v + 1] = xadj[v] + idx_t(tri.getVertexNeighborNumber(v));
  std::vector<idx_t> adjncy(static_cast<std::size_t>(xadj[n]));
  for (SimplexId v = 0; v < n; ++v) {
    const int m = tri.getVertexNeighborNumber(v);
    for (int i = 0; i < m; ++i)
      adjncy[xadj[v] + i] = idx_t(tri.getVertexNeighbor(v, i));
  }
  const SimplexId groupSize = SimplexId(patchSize) * 64;
  const SimplexId groups = n > 2 * groupSize ? (n + groupSize - 1) / groupSize : 1;
  std::vector<idx_t> group;
  if (!metisKway(xadj, adjncy, idx_t(groups), group, why))
    return false;
  // Vertices by group, then each group's induced subgraph into patches.
  std::vector<SimplexId> offsets(std::size_t(groups) + 1, 0);
  std::vector<SimplexId> members(static_cast<std::size_t>(n));
  for (SimplexId v = 0; v < n; ++v)
    ++offsets[group[v] + 1];
  for (SimplexId g = 0; g < groups; ++g)
    offsets[g + 1] += offsets[g];
  {
    std::vector<SimplexId> fill(offsets.begin(), offsets.end() - 1);
    for (SimplexId v = 0; v < n; ++v)
      members[fill[group[v]]++] = v;
  }
  // The groups one after the other: METIS's random number generator is global, so
  // concurrent calls made the partition (and patchFIM's rounds) vary between runs.
  // METIS lets a part exceed the mean by 3% (ufactor 30): aiming at patchSize / 1.03
  // keeps the largest within patchSize (the kernel's block is lanes x the largest
  // patch, and one vertex more took it past 256 threads: 2 blocks per multiprocessor
  // instead of 3 on the H200).
  std::vector<std::int64_t> first(std::size_t(groups) + 1, 0);
  for (SimplexId g = 0; g < groups; ++g) {
    const SimplexId size = offsets[g + 1] - offsets[g];
    first[g + 1] = first[g] + (size * 103 + SimplexId(patchSize) * 100 - 1) /
                                  (SimplexId(patchSize) * 100);
  }
  parts = first[groups];
  std::vector<idx_t> localId(static_cast<std::size_t>(n), 0);
  patchOf.assign(std::size_t(n), 0);
  bool failed = false;
  std::string failure;
  for (SimplexId g = 0; g < groups && !failed; ++g) {
    const SimplexId b = offsets[g], size = offsets[g + 1] - b;
    for (SimplexId i = 0; i < size; ++i)
      localId[members[b + i]] = idx_t(i);
    std::vector<idx_t> subX(std::size_t(size) + 1, 0), subAdj, part;
    for (SimplexId i = 0; i < size; ++i) {
      const SimplexId v = members[b + i];
      for (idx_t k = xadj[v]; k < xadj[v + 1]; ++k) {
        if (group[adjncy[k]] == group[v])
          subAdj.push_back(localId[adjncy[k]]);
      }
      subX[i + 1] = idx_t(subAdj.size());
    }
    const std::int64_t k = first[g + 1] - first[g];
    std::string why;
    bool ok = metisKway(subX, subAdj, idx_t(k), part, why);
    for (SimplexId i = 0; ok && i < size; ++i) {
      if (part[i] < 0 || part[i] >= k) {
        why = "METIS returned an invalid part " + std::to_string(part[i]);
        ok = false;
      } else {
        patchOf[members[b + i]] = std::int32_t(first[g] + part[i]);
      }
    }
    if (!ok) {
      failed = true;
      failure = why;
    }
  }
  if (failed) {
    why = failure;
    return false;
  }
  return true;
}
#endif

} // namespace

std::vector<std::int32_t> partitionVertices(const ExplicitTriangulation& tri,
                                            int patchSize, bool useMetis,
                                            std::int32_t& count, std::string& method,
                                            std::vector<Warning>& warnings) {
  if (patchSize < 1)
    throw Error("the patch size must be at least 1, got " + std::to_string(patchSize));
  const SimplexId n = tri.getNumberOfVertices();
  const SimplexId parts = (n + patchSize - 1) / patchSize;
  if (parts > SimplexId(std::numeric_limits<std::int32_t>::max()))
    throw Error("too many patches (" + std::to_string(parts) + "); raise the patch size");
  std::vector<std::int32_t> patchOf;
  if (useMetis && parts > 1) {
#if TOPOGPU_HAS_METIS
    std::string why;
    std::int64_t used = 0;
    if (metisPartition(tri, patchSize, patchOf, used, why)) {
      method = "metis";
      // METIS may leave parts empty: number the used ones densely.
      std::vector<std::int32_t> renumber(static_cast<std::size_t>(used), -1);
      count = 0;
      for (std::int32_t& p : patchOf) {
        if (renumber[p] < 0)
          renumber[p] = count++;
        p = renumber[p];
      }
      return patchOf;
    }
    warnings.push_back(
        {WarningCode::MetisFailed, "METIS could not partition the mesh (" + why +
                                       "): patches grown breadth-first instead"});
#else
    warnings.push_back({WarningCode::MetisMissing,
                        "this build has no METIS (Debian libmetis-dev): patchFIM's "
                        "patches are grown breadth-first instead"});
#endif
  }
  method = "bfs";
  return bfsPartition(tri, patchSize, count);
}

std::size_t PatchArrays::bytes() const {
  return patchOf.size() * sizeof(std::int32_t) +
         localOffsets.size() * sizeof(std::int64_t) +
         ownCount.size() * sizeof(std::int32_t) +
         (localVertices.size() + slotPatch.size()) * sizeof(std::int32_t) +
         solveOffsets.size() * sizeof(std::int64_t) + solves.size() * sizeof(PatchSolve) +
         (readerOffsets.size() + readers.size() + neighborOffsets.size() +
          neighbors.size()) *
             sizeof(std::int32_t) +
         border.size();
}

std::size_t PatchArrays::deviceBytes() const {
  return localOffsets.size() * sizeof(std::int64_t) +
         ownCount.size() * sizeof(std::int32_t) +
         (patchOf.size() + localVertices.size() + slotPatch.size()) *
             sizeof(std::int32_t) +
         solveOffsets.size() * sizeof(std::int64_t) + solves.size() * sizeof(PatchSolve) +
         (readerOffsets.size() + readers.size()) * sizeof(std::int32_t);
}

namespace {

// f(u1, u2, l13, l23, l12, slowness, edgesOnly) for each solve of vertex v in
// updateVertex's order (its star triangles; a split obtuse angle's fan of virtual
// triangles from x1 to x2): detail::forEachSolve, shared with the CPU solvers, so that
// GEO and the halo hold exactly what their updates read.
template <typename F>
void forEachVertexSolve(const detail::Mesh& mesh, SimplexId v, const F& f) {
  const ExplicitTriangulation& tri = *mesh.tri;
  const int star = tri.getVertexStarNumber(v);
  for (int s = 0; s < star; ++s) {
    const SimplexId t = tri.getVertexStar(v, s);
    int k = 0;
    while (tri.getCellVertex(t, k) != v)
      ++k;
    const double slowness = mesh.slowness[t];
    detail::forEachSolve(
        mesh, t, k, tri.getCellVertex(t, (k + 1) % 3), tri.getCellVertex(t, (k + 2) % 3),
        [&](SimplexId u1, SimplexId u2, double l13, double l23, double l12,
            bool edgesOnly) { f(u1, u2, l13, l23, l12, slowness, edgesOnly); });
  }
}

// GEO's entries of vertex v, written from out on; localIndex maps a read vertex to its
// slot. Lengths times the triangle's slowness (PatchSolve.h).
template <typename LocalIndex>
PatchSolve* writeSolves(const detail::Mesh& mesh, SimplexId v,
                        const LocalIndex& localIndex, PatchSolve* out) {
  forEachVertexSolve(mesh, v,
                     [&](SimplexId u1, SimplexId u2, double l13, double l23, double l12,
                         double slowness, bool edgesOnly) {
                       *out++ =
                           makePatchSolve(l13 * slowness, l23 * slowness, l12 * slowness,
                                          localIndex(u1), localIndex(u2), edgesOnly);
                     });
  return out;
}

// out = the sorted distinct values of a small list (halos, readers: tens of entries).
void sortUnique(std::vector<std::int32_t>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

// Exclusive prefix sum of counts into offsets (offsets[0] = 0, size counts + 1).
template <typename Offsets, typename Count>
void prefixSum(std::size_t size, const Count& count, Offsets& offsets) {
  offsets.resize(size + 1);
  offsets[0] = 0;
  for (std::size_t i = 0; i < size; ++i)
    offsets[i + 1] = offsets[i] + count(i);
}

// Readers: per vertex, the patches holding it in their halo (PatchArrays::readers), and
// the border flags.
void buildReaders(const detail::Mesh& mesh, PatchArrays& arrays) {
  const SimplexId n = mesh.vertices;
  const auto& patchOf = arrays.patchOf;
  // Readers: per vertex, the patches holding it in their halo, in increasing order: the
  // patches of the vertices that read it (reads are symmetric on the one-ring; the
  // dependents read it through their fans), its own patch left out. Two passes
  // (count, fill) in parallel over the vertices.
  std::vector<std::int32_t> readerCount(static_cast<std::size_t>(n));
  const auto readersOf = [&](SimplexId v, std::vector<std::int32_t>& out) {
    out.clear();
    const ExplicitTriangulation& t = *mesh.tri;
    const int m = t.getVertexNeighborNumber(v);
    for (int i = 0; i < m; ++i) {
      const std::int32_t q = patchOf[t.getVertexNeighbor(v, i)];
      if (q != patchOf[v])
        out.push_back(q);
    }
    for (SimplexId i = mesh.dependentOffsets[v]; i < mesh.dependentOffsets[v + 1]; ++i) {
      const std::int32_t q = patchOf[mesh.dependents[i]];
      if (q != patchOf[v])
        out.push_back(q);
    }
    sortUnique(out);
  };
  tbb::enumerable_thread_specific<std::vector<std::int32_t>> scratch;
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n, 4096),
                    [&](const tbb::blocked_range<SimplexId>& r) {
                      std::vector<std::int32_t>& list = scratch.local();
                      for (SimplexId v = r.begin(); v < r.end(); ++v) {
                        readersOf(v, list);
                        readerCount[v] = std::int32_t(list.size());
                      }
                    });
  std::int64_t readerTotal = 0;
  arrays.readerOffsets.resize(std::size_t(n) + 1);
  arrays.readerOffsets[0] = 0;
  for (SimplexId v = 0; v < n; ++v) {
    readerTotal += readerCount[v];
    if (readerTotal > std::numeric_limits<std::int32_t>::max())
      throw GpuError("patchFIM: too many halo entries for 32-bit offsets", false);
    arrays.readerOffsets[v + 1] = std::int32_t(readerTotal);
  }
  arrays.readers.resize(std::size_t(readerTotal));
  arrays.border.resize(std::size_t(n));
  tbb::parallel_for(tbb::blocked_range<SimplexId>(0, n, 4096),
                    [&](const tbb::blocked_range<SimplexId>& r) {
                      std::vector<std::int32_t>& list = scratch.local();
                      for (SimplexId v = r.begin(); v < r.end(); ++v) {
                        readersOf(v, list);
                        std::copy(list.begin(), list.end(),
                                  arrays.readers.begin() + arrays.readerOffsets[v]);
                        arrays.border[v] = list.empty() ? 0 : 1;
                      }
                    });
}

// NBH (PatchArrays::neighbors) from the patches' halos.
void buildNeighbors(const std::vector<std::vector<std::int32_t>>& halo,
                    PatchArrays& arrays) {
  const std::int32_t np = arrays.patches;
  const auto& patchOf = arrays.patchOf;
  // NBH: "p reads q" made symmetric (a change of either may change the other).
  std::vector<std::vector<std::int32_t>> reads(static_cast<std::size_t>(np));
  tbb::parallel_for(std::int32_t(0), np, [&](std::int32_t p) {
    for (std::int32_t u : halo[p])
      reads[p].push_back(patchOf[u]);
    sortUnique(reads[p]);
  });
  std::vector<std::int64_t> degree(std::size_t(np) + 1, 0);
  for (std::int32_t p = 0; p < np; ++p) {
    for (std::int32_t q : reads[p]) {
      ++degree[p + 1];
      ++degree[q + 1];
    }
  }
  for (std::int32_t p = 0; p < np; ++p)
    degree[p + 1] += degree[p];
  std::vector<std::int32_t> pairs(static_cast<std::size_t>(degree[np]));
  {
    std::vector<std::int64_t> fill(degree.begin(), degree.end() - 1);
    for (std::int32_t p = 0; p < np; ++p) {
      for (std::int32_t q : reads[p]) {
        pairs[fill[p]++] = q;
        pairs[fill[q]++] = p;
      }
    }
  }
  arrays.neighborOffsets.assign(std::size_t(np) + 1, 0);
  for (std::int32_t p = 0; p < np; ++p) {
    auto first = pairs.begin() + degree[p], last = pairs.begin() + degree[p + 1];
    std::sort(first, last);
    last = std::unique(first, last);
    arrays.neighbors.insert(arrays.neighbors.end(), first, last);
    if (arrays.neighbors.size() > std::size_t(std::numeric_limits<std::int32_t>::max()))
      throw Error("too many patch neighbours");
    arrays.neighborOffsets[p + 1] = std::int32_t(arrays.neighbors.size());
  }
}

} // namespace

void buildPatchArrays(const detail::Mesh& mesh, int patchSize, bool useMetis,
                      PatchArrays& arrays, std::vector<Warning>& warnings,
                      const std::uint8_t* seed) {
  const ExplicitTriangulation& tri = *mesh.tri;
  const SimplexId n = mesh.vertices;
  if (n >= SimplexId(std::numeric_limits<std::int32_t>::max()))
    throw GpuError("patchFIM: too many vertices (" + std::to_string(n) +
                       ") for 32-bit vertex ids on the device",
                   false);
  arrays = PatchArrays();
  {
    const std::vector<std::int32_t> parts = partitionVertices(
        tri, patchSize, useMetis, arrays.patches, arrays.method, warnings);
    arrays.patchOf.assign(parts.begin(), parts.end());
  }
  const std::int32_t np = arrays.patches;
  if (seed != nullptr)
    numberPatchesFromSeeds(tri, seed, np, arrays.patchOf);
  const auto& patchOf = arrays.patchOf;

  // Own vertices grouped by patch (counting sort, increasing vertex id in each patch).
  std::vector<std::int64_t> ownOffsets(std::size_t(np) + 1, 0);
  for (SimplexId v = 0; v < n; ++v)
    ++ownOffsets[patchOf[v] + 1];
  for (std::int32_t p = 0; p < np; ++p)
    ownOffsets[p + 1] += ownOffsets[p];
  std::vector<SimplexId> own(static_cast<std::size_t>(n));
  std::vector<std::int32_t> ownIndex(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> fill(ownOffsets.begin(), ownOffsets.end() - 1);
    for (SimplexId v = 0; v < n; ++v) {
      const std::int32_t p = patchOf[v];
      ownIndex[v] = std::int32_t(fill[p] - ownOffsets[p]);
      own[fill[p]++] = v;
    }
  }

  // Pass 1, per patch in parallel: its halo (every vertex its solves read that is not
  // its own, sorted) and how many GEO entries its own vertices have.
  std::vector<std::vector<std::int32_t>> halo(static_cast<std::size_t>(np));
  std::vector<std::int64_t> patchSolves(static_cast<std::size_t>(np), 0);
  tbb::parallel_for(tbb::blocked_range<std::int32_t>(0, np, 64),
                    [&](const tbb::blocked_range<std::int32_t>& r) {
                      for (std::int32_t p = r.begin(); p < r.end(); ++p) {
                        std::vector<std::int32_t>& h = halo[p];
                        for (std::int64_t i = ownOffsets[p]; i < ownOffsets[p + 1]; ++i) {
                          forEachVertexSolve(mesh, own[i],
                                             [&](SimplexId u1, SimplexId u2, double,
                                                 double, double, double, bool) {
                                               if (patchOf[u1] != p)
                                                 h.push_back(std::int32_t(u1));
                                               if (patchOf[u2] != p)
                                                 h.push_back(std::int32_t(u2));
                                               ++patchSolves[p];
                                             });
                        }
                        sortUnique(h);
                      }
                    });
  // The local tables' layout.
  prefixSum(
      std::size_t(np),
      [&](std::size_t p) {
        return ownOffsets[p + 1] - ownOffsets[p] + std::int64_t(halo[p].size());
      },
      arrays.localOffsets);
  arrays.ownCount.resize(std::size_t(np));
  for (std::int32_t p = 0; p < np; ++p) {
    arrays.ownCount[p] = std::int32_t(ownOffsets[p + 1] - ownOffsets[p]);
    const std::int64_t local = arrays.localOffsets[p + 1] - arrays.localOffsets[p];
    if (local > kMaxLocalVertices)
      throw GpuError("patchFIM: a patch reads " + std::to_string(local) +
                         " vertices, more than its 16-bit local indices address (" +
                         std::to_string(kMaxLocalVertices) +
                         "; very high vertex degrees)",
                     false);
    arrays.maxOwn = std::max(arrays.maxOwn, arrays.ownCount[p]);
    arrays.maxLocal = std::max(arrays.maxLocal, std::int32_t(local));
  }
  std::vector<std::int64_t> solveStart;
  prefixSum(
      std::size_t(np), [&](std::size_t p) { return patchSolves[p]; }, solveStart);
  const std::int64_t slots = arrays.localOffsets[np];
  arrays.localVertices.resize(std::size_t(slots));
  arrays.slotPatch.resize(std::size_t(slots));
  arrays.solveOffsets.resize(std::size_t(slots) + 1);
  arrays.solves.resize(std::size_t(solveStart[np]));
  arrays.solveOffsets[0] = 0;

  // Pass 2, per patch in parallel: the local table, its slots' owners, and GEO written
  // in place (solveOffsets[s + 1] - solveOffsets[s]: the solves of slot s, none for the
  // halo's).
  tbb::parallel_for(tbb::blocked_range<std::int32_t>(0, np, 64),
                    [&](const tbb::blocked_range<std::int32_t>& r) {
                      for (std::int32_t p = r.begin(); p < r.end(); ++p) {
                        const std::int64_t base = arrays.localOffsets[p];
                        const std::int32_t ownN = arrays.ownCount[p];
                        const std::vector<std::int32_t>& h = halo[p];
                        const auto localIndex = [&](SimplexId u) -> std::uint16_t {
                          if (patchOf[u] == p)
                            return std::uint16_t(ownIndex[u]);
                          return std::uint16_t(
                              ownN + std::int32_t(std::lower_bound(h.begin(), h.end(),
                                                                   std::int32_t(u)) -
                                                  h.begin()));
                        };
                        PatchSolve* const first = arrays.solves.data();
                        PatchSolve* out = first + solveStart[p];
                        for (std::int32_t i = 0; i < ownN; ++i) {
                          const SimplexId v = own[ownOffsets[p] + i];
                          arrays.localVertices[base + i] = std::int32_t(v);
                          arrays.slotPatch[base + i] = p;
                          out = writeSolves(mesh, v, localIndex, out);
                          arrays.solveOffsets[base + i + 1] = out - first;
                        }
                        for (std::size_t i = 0; i < h.size(); ++i) {
                          const std::int64_t slot = base + ownN + std::int64_t(i);
                          arrays.localVertices[slot] = h[i];
                          arrays.slotPatch[slot] = patchOf[h[i]];
                          arrays.solveOffsets[slot + 1] = out - first;
                        }
                      }
                    });

  buildReaders(mesh, arrays);
  buildNeighbors(halo, arrays);
}

} // namespace topogpu::eikonal
