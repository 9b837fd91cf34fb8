#include "Patches.h"

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
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

// Patches grown breadth-first, each closed at patchSize vertices. Each starts from the
// first unassigned vertex of a breadth-first order of the whole mesh, so new patches
// start next to the old ones and few small leftovers remain.
std::vector<std::int32_t> bfsPartition(const ExplicitTriangulation& tri, int patchSize,
                                       std::int32_t& count) {
  const SimplexId n = tri.getNumberOfVertices();
  std::vector<SimplexId> order;
  order.reserve(std::size_t(n));
  {
    std::vector<std::uint8_t> seen(std::size_t(n), 0);
    for (SimplexId root = 0; root < n; ++root) {
      if (seen[root])
        continue;
      seen[root] = 1;
      order.push_back(root);
      for (std::size_t head = order.size() - 1; head < order.size(); ++head) {
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
    }
  }
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
// One k-way call with n / patchSize parts costs time growing with the part count (17 s
// for 16384 parts of a 1M-vertex square, against 0.7 s for 256 parts). patchOf gets
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
  std::vector<std::int64_t> first(std::size_t(groups) + 1, 0);
  for (SimplexId g = 0; g < groups; ++g)
    first[g + 1] = first[g] + (offsets[g + 1] - offsets[g] + patchSize - 1) / patchSize;
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
                                            std::vector<std::string>& warnings) {
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
    warnings.push_back("METIS could not partition the mesh (" + why +
                       "): patches grown breadth-first instead");
#else
    warnings.push_back("this build has no METIS (Debian libmetis-dev): patchFIM's "
                       "patches are grown breadth-first instead");
#endif
  }
  method = "bfs";
  return bfsPartition(tri, patchSize, count);
}

std::size_t PatchArrays::bytes() const {
  return patchOf.size() * sizeof(std::int32_t) +
         localOffsets.size() * sizeof(std::int64_t) +
         ownCount.size() * sizeof(std::int32_t) +
         localVertices.size() * sizeof(SimplexId) +
         solveOffsets.size() * sizeof(std::int64_t) + solves.size() * sizeof(PatchSolve) +
         (neighborOffsets.size() + neighbors.size()) * sizeof(std::int32_t) +
         border.size();
}

void buildPatchArrays(const detail::Mesh& mesh, int patchSize, bool useMetis,
                      PatchArrays& arrays, std::vector<std::string>& warnings) {
  const ExplicitTriangulation& tri = *mesh.tri;
  const SimplexId n = mesh.vertices;
  arrays = PatchArrays();
  arrays.patchOf = partitionVertices(tri, patchSize, useMetis, arrays.patches,
                                     arrays.method, warnings);
  const std::int32_t np = arrays.patches;

  // Own vertices grouped by patch (counting sort, increasing vertex id in each patch).
  std::vector<std::int64_t> ownOffsets(std::size_t(np) + 1, 0);
  for (SimplexId v = 0; v < n; ++v)
    ++ownOffsets[arrays.patchOf[v] + 1];
  for (std::int32_t p = 0; p < np; ++p)
    ownOffsets[p + 1] += ownOffsets[p];
  std::vector<SimplexId> own(static_cast<std::size_t>(n));
  std::vector<std::int32_t> ownIndex(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> fill(ownOffsets.begin(), ownOffsets.end() - 1);
    for (SimplexId v = 0; v < n; ++v) {
      const std::int32_t p = arrays.patchOf[v];
      ownIndex[v] = std::int32_t(fill[p] - ownOffsets[p]);
      own[fill[p]++] = v;
    }
  }

  // Per patch (in parallel): its halo, its solves and the patches its halo lies in.
  struct Local {
    std::vector<SimplexId> halo;
    std::vector<std::int64_t> solveCounts; // per own vertex
    std::vector<PatchSolve> solves;
    std::vector<std::int32_t> reads; // patches of the halo
  };
  std::vector<Local> locals(static_cast<std::size_t>(np));
  tbb::parallel_for(
      tbb::blocked_range<std::int32_t>(0, np, 64),
      [&](const tbb::blocked_range<std::int32_t>& r) {
        for (std::int32_t p = r.begin(); p < r.end(); ++p) {
          Local& L = locals[p];
          const std::int64_t b = ownOffsets[p], e = ownOffsets[p + 1];
          // Pass 1: the halo (every vertex a solve reads that is not the patch's own).
          const auto reads = [&](SimplexId u) {
            if (arrays.patchOf[u] != p)
              L.halo.push_back(u);
          };
          for (std::int64_t i = b; i < e; ++i) {
            const SimplexId v = own[i];
            const int star = tri.getVertexStarNumber(v);
            for (int s = 0; s < star; ++s) {
              const SimplexId t = tri.getVertexStar(v, s);
              int k = 0;
              while (tri.getCellVertex(t, k) != v)
                ++k;
              reads(tri.getCellVertex(t, (k + 1) % 3));
              reads(tri.getCellVertex(t, (k + 2) % 3));
              if (mesh.splitCorner[t] == k)
                reads(mesh.virtualEdges[mesh.virtualIndex[t]].vertex);
            }
          }
          std::sort(L.halo.begin(), L.halo.end());
          L.halo.erase(std::unique(L.halo.begin(), L.halo.end()), L.halo.end());
          const std::int32_t ownN = std::int32_t(e - b);
          const auto localIndex = [&](SimplexId u) -> std::int32_t {
            if (arrays.patchOf[u] == p)
              return ownIndex[u];
            return ownN + std::int32_t(std::lower_bound(L.halo.begin(), L.halo.end(), u) -
                                       L.halo.begin());
          };
          // Pass 2: the solves, in updateVertex's order (star order; x1-c then c-x2).
          L.solveCounts.assign(std::size_t(ownN), 0);
          for (std::int64_t i = b; i < e; ++i) {
            const SimplexId v = own[i];
            const std::size_t before = L.solves.size();
            const int star = tri.getVertexStarNumber(v);
            for (int s = 0; s < star; ++s) {
              const SimplexId t = tri.getVertexStar(v, s);
              int k = 0;
              while (tri.getCellVertex(t, k) != v)
                ++k;
              const SimplexId v1 = tri.getCellVertex(t, (k + 1) % 3);
              const SimplexId v2 = tri.getCellVertex(t, (k + 2) % 3);
              const double* l = &mesh.length[3 * std::size_t(t)];
              const double l12 = l[k], l13 = l[(k + 2) % 3], l23 = l[(k + 1) % 3];
              const double sl = mesh.slowness[t];
              if (mesh.splitCorner[t] == k) {
                const detail::VirtualEdge& ve = mesh.virtualEdges[mesh.virtualIndex[t]];
                const std::int32_t c = localIndex(ve.vertex);
                L.solves.push_back({l13, ve.toC, ve.fromX1, sl, localIndex(v1), c, 0, 0});
                L.solves.push_back({ve.toC, l23, ve.toX2, sl, c, localIndex(v2), 0, 0});
              } else {
                L.solves.push_back({l13, l23, l12, sl, localIndex(v1), localIndex(v2),
                                    mesh.edgesOnly[t] != 0 ? 1 : 0, 0});
              }
            }
            L.solveCounts[i - b] = std::int64_t(L.solves.size() - before);
          }
          for (SimplexId u : L.halo)
            L.reads.push_back(arrays.patchOf[u]);
          std::sort(L.reads.begin(), L.reads.end());
          L.reads.erase(std::unique(L.reads.begin(), L.reads.end()), L.reads.end());
        }
      });

  // Concatenation.
  arrays.localOffsets.assign(std::size_t(np) + 1, 0);
  arrays.ownCount.resize(std::size_t(np));
  std::int64_t solveTotal = 0;
  for (std::int32_t p = 0; p < np; ++p) {
    arrays.ownCount[p] = std::int32_t(ownOffsets[p + 1] - ownOffsets[p]);
    const std::int64_t local = arrays.ownCount[p] + std::int64_t(locals[p].halo.size());
    arrays.localOffsets[p + 1] = arrays.localOffsets[p] + local;
    arrays.maxOwn = std::max(arrays.maxOwn, arrays.ownCount[p]);
    if (local > std::numeric_limits<std::int32_t>::max())
      throw Error("a patch reads too many vertices");
    arrays.maxLocal = std::max(arrays.maxLocal, std::int32_t(local));
    solveTotal += std::int64_t(locals[p].solves.size());
  }
  const std::int64_t slots = arrays.localOffsets[np];
  arrays.localVertices.resize(std::size_t(slots));
  arrays.solveOffsets.assign(std::size_t(slots) + 1, 0);
  arrays.solves.resize(std::size_t(solveTotal));
  std::vector<std::int64_t> solveStart(std::size_t(np) + 1, 0);
  for (std::int32_t p = 0; p < np; ++p)
    solveStart[p + 1] = solveStart[p] + std::int64_t(locals[p].solves.size());
  tbb::parallel_for(std::int32_t(0), np, [&](std::int32_t p) {
    const Local& L = locals[p];
    const std::int64_t base = arrays.localOffsets[p];
    const std::int32_t ownN = arrays.ownCount[p];
    std::copy(own.begin() + ownOffsets[p], own.begin() + ownOffsets[p + 1],
              arrays.localVertices.begin() + base);
    std::copy(L.halo.begin(), L.halo.end(), arrays.localVertices.begin() + base + ownN);
    std::copy(L.solves.begin(), L.solves.end(), arrays.solves.begin() + solveStart[p]);
  });
  // solveOffsets[s + 1] - solveOffsets[s]: the solves of slot s (0 for halo slots).
  {
    std::int64_t at = 0;
    for (std::int32_t p = 0; p < np; ++p) {
      const std::int64_t base = arrays.localOffsets[p];
      const std::int64_t end = arrays.localOffsets[p + 1];
      for (std::int64_t s = base; s < end; ++s) {
        const std::int64_t j = s - base;
        if (j < arrays.ownCount[p])
          at += locals[p].solveCounts[j];
        arrays.solveOffsets[s + 1] = at;
      }
    }
  }

  arrays.border.assign(std::size_t(n), 0);
  for (std::int32_t p = 0; p < np; ++p)
    for (SimplexId u : locals[p].halo)
      arrays.border[u] = 1;

  // NBH: "p reads q" made symmetric (a change of either may change the other).
  std::vector<std::int64_t> degree(std::size_t(np) + 1, 0);
  for (std::int32_t p = 0; p < np; ++p) {
    for (std::int32_t q : locals[p].reads) {
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
      for (std::int32_t q : locals[p].reads) {
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

std::vector<std::int32_t> initialActivePatches(const PatchArrays& arrays,
                                               const PatchFimState& state) {
  std::vector<std::uint8_t> flag(std::size_t(arrays.patches), 0);
  for (std::size_t v = 0; v < state.seed.size(); ++v) {
    if (!state.seed[v])
      continue;
    const std::int32_t p = arrays.patchOf[v];
    flag[p] = 1;
    for (std::int32_t i = arrays.neighborOffsets[p]; i < arrays.neighborOffsets[p + 1];
         ++i)
      flag[arrays.neighbors[i]] = 1;
  }
  std::vector<std::int32_t> active;
  for (std::int32_t p = 0; p < arrays.patches; ++p) {
    if (flag[p])
      active.push_back(p);
  }
  return active;
}

void runPatchFimHost(const PatchArrays& arrays, const PatchFimSettings& settings,
                     const Monitor& monitor, PatchFimState& state) {
  const std::int32_t np = arrays.patches;
  std::vector<double> valueNext = state.value;
  std::vector<SimplexId> labelNext = state.label;
  std::vector<std::atomic<std::uint8_t>> flag(static_cast<std::size_t>(np));
  for (auto& f : flag)
    f.store(0, std::memory_order_relaxed);
  std::vector<std::int32_t> active = initialActivePatches(arrays, state);
  tbb::combinable<long long> solves([] { return 0LL; });
  while (!active.empty()) {
    if (state.rounds == settings.maxRounds) {
      state.converged = false;
      state.activeAtCap = active.size();
      break;
    }
    ++state.rounds;
    monitor.checkAbort();
    tbb::parallel_for(std::size_t(0), active.size(), [&](std::size_t a) {
      const std::int32_t p = active[a];
      const std::int64_t base = arrays.localOffsets[p];
      const std::int32_t nLocal = std::int32_t(arrays.localOffsets[p + 1] - base);
      const std::int32_t ownN = arrays.ownCount[p];
      const auto own = static_cast<std::size_t>(ownN);
      std::vector<double> val(static_cast<std::size_t>(nLocal)), start(own), next(own);
      std::vector<SimplexId> lab(static_cast<std::size_t>(nLocal)), nextLab(own);
      for (std::int32_t i = 0; i < nLocal; ++i) {
        val[i] = state.value[arrays.localVertices[base + i]];
        lab[i] = state.label[arrays.localVertices[base + i]];
      }
      for (std::int32_t i = 0; i < ownN; ++i)
        start[i] = val[i];
      long long count = 0;
      bool converged = false;
      // Sweep 0 solves every vertex (the halo may have changed since the last round);
      // later sweeps only those reading a value the previous sweep changed.
      std::vector<unsigned char> dirty(static_cast<std::size_t>(nLocal), 1);
      for (int it = 0; it < settings.internalIterations; ++it) {
        bool changed = false;
        for (std::int32_t i = 0; i < ownN; ++i) {
          next[i] = val[i];
          nextLab[i] = lab[i];
          const std::int64_t sb = arrays.solveOffsets[base + i];
          const std::int64_t se = arrays.solveOffsets[base + i + 1];
          if (state.seed[arrays.localVertices[base + i]] ||
              !readsChanged(arrays.solves.data(), sb, se, dirty.data()))
            continue;
          const PatchUpdate u =
              updateFromPatch(arrays.solves.data(), sb, se, val.data(), lab.data());
          count += se - sb;
          if (u.value < val[i] && u.value <= settings.stopDistance) {
            changed = changed || val[i] - u.value > settings.epsilon;
            next[i] = u.value;
            nextLab[i] = u.label;
          }
        }
        for (std::int32_t i = 0; i < ownN; ++i) {
          dirty[i] = next[i] != val[i];
          val[i] = next[i];
          lab[i] = nextLab[i];
        }
        for (std::int32_t i = ownN; i < nLocal; ++i)
          dirty[i] = 0;
        if (!changed) {
          converged = true;
          break;
        }
      }
      bool moved = false;
      for (std::int32_t i = 0; i < ownN; ++i) {
        moved = moved || (arrays.border[arrays.localVertices[base + i]] != 0 &&
                          start[i] - val[i] > settings.epsilon);
        valueNext[arrays.localVertices[base + i]] = val[i];
        labelNext[arrays.localVertices[base + i]] = lab[i];
      }
      solves.local() += count;
      if (!converged)
        flag[p].store(1, std::memory_order_relaxed);
      if (moved) {
        for (std::int32_t i = arrays.neighborOffsets[p];
             i < arrays.neighborOffsets[p + 1]; ++i)
          flag[arrays.neighbors[i]].store(1, std::memory_order_relaxed);
      }
    });
    // The round's values become visible to the next round only (Jacobi between patches).
    tbb::parallel_for(std::size_t(0), active.size(), [&](std::size_t a) {
      const std::int32_t p = active[a];
      const std::int64_t base = arrays.localOffsets[p];
      for (std::int32_t i = 0; i < arrays.ownCount[p]; ++i) {
        const SimplexId v = arrays.localVertices[base + i];
        state.value[v] = valueNext[v];
        state.label[v] = labelNext[v];
      }
    });
    active.clear();
    for (std::int32_t p = 0; p < np; ++p) {
      if (flag[p].exchange(0, std::memory_order_relaxed))
        active.push_back(p);
    }
  }
  state.solves += solves.combine([](long long a, long long b) { return a + b; });
}

} // namespace topogpu::eikonal
