/* Persistence pairs of dimension 0 and 2 of a lower-star filtration on a 3D grid, by
 * union-find, written without the project's code for verify_persistence_volumes.py, which
 * compiles it with the system's C compiler and calls it through ctypes. The complex
 * (TTK's Freudenthal tets, or the cubical complex) comes as a vertex-star stencil
 * computed by the script from the oracles' own enumeration of a small grid's top cells.
 *
 *  - dimension 0: vertices in increasing rank, each joined to its lower neighbours
 *    (elder rule: the component whose minimum has the higher rank dies);
 *  - dimension 2: the dual graph (top cells = nodes, facets = edges, a facet on the box's
 *    boundary joined to one node at infinity) in decreasing rank: at vertex v the top
 *    cells whose highest vertex is v are created, then the facets whose highest vertex is
 *    v join their two sides (the component born latest in that order dies; infinity is
 *    the eldest). The pairs of the anti-transposed boundary matrix of the top cells are
 *    those of the primal filtration (cohomology duality), so this is exact;
 *  - the Euler characteristic of each vertex's lower star (1 - edges + facets - tops);
 *  - the sublevel "join" of each vertex: the smallest rank at which its sublevel
 * component holds a source vertex (simplification's kept extrema), and the minimum of the
 *    component that joined there, by a union-find by size without path compression
 *    (so the chain of a vertex's ancestors is the history of its component).
 * A 2D grid is a 3D one of extent 1 in z (its "top cells" the triangles or squares and
 * its "facets" the edges: the dimension-1 pairs). Ids are int64. */
#include <stdint.h>
#include <stdlib.h>

typedef int64_t id;

static id find(id* parent, id x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

static int inside(const int* d, int x, int y, int z) {
  return x >= 0 && y >= 0 && z >= 0 && x < d[0] && y < d[1] && z < d[2];
}

/* Whether the cell made of v at (x, y, z) and the k vertices at offsets other[k][3]
 * lies in the grid and in v's lower star (every other vertex of lower rank). */
static int in_lower_star(const int* d, const id* rank, id v, int x, int y, int z,
                         const int* other, int k) {
  for (int j = 0; j < k; ++j) {
    const int X = x + other[3 * j], Y = y + other[3 * j + 1], Z = z + other[3 * j + 2];
    if (!inside(d, X, Y, Z) || rank[X + (id)d[0] * (Y + (id)d[1] * Z)] > rank[v])
      return 0;
  }
  return 1;
}

/* Dimension-0 pairs (birth vertex, death vertex) with val[death] > val[birth]; returns
 * their number, or -1 when cap is too small. chi[v] is set to 1 - (lower edges). */
id lower_pairs(const int* d, const id* order, const id* rank, const double* val, int ne,
               const int* edge, id* parent, id* birth, id* pb, id* pd, id cap,
               int32_t* chi) {
  const id n = (id)d[0] * d[1] * d[2];
  id count = 0;
  for (id i = 0; i < n; ++i) {
    const id v = order[i];
    const int x = (int)(v % d[0]), y = (int)((v / d[0]) % d[1]),
              z = (int)(v / ((id)d[0] * d[1]));
    parent[v] = v;
    birth[v] = v;
    chi[v] = 1;
    for (int k = 0; k < ne; ++k) {
      const int X = x + edge[3 * k], Y = y + edge[3 * k + 1], Z = z + edge[3 * k + 2];
      if (!inside(d, X, Y, Z))
        continue;
      const id u = X + (id)d[0] * (Y + (id)d[1] * Z);
      if (rank[u] > rank[v])
        continue;
      chi[v] -= 1;
      const id ru = find(parent, u), rv = find(parent, v);
      if (ru == rv)
        continue;
      const id young = rank[birth[ru]] > rank[birth[rv]] ? ru : rv;
      const id old = young == ru ? rv : ru;
      if (val[v] > val[birth[young]]) {
        if (count >= cap)
          return -1;
        pb[count] = birth[young];
        pd[count] = v;
        ++count;
      }
      parent[young] = old;
    }
  }
  return count;
}

/* Pairs of dimension d-1 (birth = the facet's highest vertex, death = the top cell's
 * highest vertex) with val[death] > val[birth]. Top cells: ntop stencil entries, each
 * with tk other vertices (offsets top_other[ntop][7][3]), its voxel (top_voxel[ntop][3],
 * the offset of its lowest corner) and its type (top_type[ntop], < ntypes). Facets: nf
 * entries, fk other vertices (facet_other[nf][3][3]) and the voxel and type of the top
 * cell on each side (facet_voxel[nf][2][3], facet_type[nf][2]). chi[v] += facet_sign *
 * facets + top_sign * tops of v's lower star. parent, birth: (voxels * ntypes + 1)
 * entries. */
id upper_pairs(const int* d, const id* order, const id* rank, const double* val, int ntop,
               int tk, const int* top_other, const int* top_voxel, const int* top_type,
               int ntypes, int nf, int fk, const int* facet_other, const int* facet_voxel,
               const int* facet_type, int facet_sign, int top_sign, id* parent, id* birth,
               id* pb, id* pd, id cap, int32_t* chi) {
  const id n = (id)d[0] * d[1] * d[2];
  const int vd[3] = {d[0] - 1, d[1] - 1, d[2] > 1 ? d[2] - 1 : 1};
  const id infinity = (id)vd[0] * vd[1] * vd[2] * ntypes;
  parent[infinity] = infinity;
  birth[infinity] = -1;
  id count = 0;
  for (id i = n - 1; i >= 0; --i) {
    const id v = order[i];
    const int x = (int)(v % d[0]), y = (int)((v / d[0]) % d[1]),
              z = (int)(v / ((id)d[0] * d[1]));
    for (int s = 0; s < ntop; ++s) {
      if (!in_lower_star(d, rank, v, x, y, z, top_other + 21 * s, tk))
        continue;
      const int* w = top_voxel + 3 * s;
      const id node =
          ((x + w[0]) + (id)vd[0] * ((y + w[1]) + (id)vd[1] * (z + w[2]))) * ntypes +
          top_type[s];
      parent[node] = node;
      birth[node] = v;
      chi[v] += top_sign;
    }
    for (int f = 0; f < nf; ++f) {
      if (!in_lower_star(d, rank, v, x, y, z, facet_other + 9 * f, fk))
        continue;
      chi[v] += facet_sign;
      id side[2];
      for (int t = 0; t < 2; ++t) {
        const int* w = facet_voxel + 6 * f + 3 * t;
        const int X = x + w[0], Y = y + w[1], Z = z + w[2];
        side[t] = inside(vd, X, Y, Z) ? (X + (id)vd[0] * (Y + (id)vd[1] * Z)) * ntypes +
                                            facet_type[2 * f + t]
                                      : infinity;
      }
      const id ra = find(parent, side[0]), rb = find(parent, side[1]);
      if (ra == rb)
        continue;
      id young;
      if (ra == infinity)
        young = rb;
      else if (rb == infinity)
        young = ra;
      else
        young = rank[birth[ra]] < rank[birth[rb]] ? ra : rb;
      const id old = young == ra ? rb : ra;
      if (val[birth[young]] > val[v]) {
        if (count >= cap)
          return -1;
        pb[count] = v;
        pd[count] = birth[young];
        ++count;
      }
      parent[young] = old;
    }
  }
  return count;
}

/* For each vertex v (vertices in the order given, neighbours by the edge stencil, a
 * neighbour counts when it comes earlier in that order; rank[] = position in order):
 * join[v] = the position at which v's component first holds a source (a vertex with
 * source[v] != 0), and pair_min[v] = the earliest vertex of the source-free component
 * that joined a source's component there (meaningless when join[v] is v's own position:
 * v's component then held a source when v came). */
void joins(const int* d, const id* order, const id* rank, int ne, const int* edge,
           const int8_t* source, id* parent, id* size, id* first, id* link_time,
           id* became_time, id* became_min, id* link_min, int8_t* has, int8_t* link_has,
           id* join, id* pair_min) {
  const id n = (id)d[0] * d[1] * d[2];
  for (id i = 0; i < n; ++i) {
    const id v = order[i];
    parent[v] = v;
    size[v] = 1;
    first[v] = v;
    has[v] = source[v] != 0;
    link_time[v] = -1;
    became_time[v] = has[v] ? i : -1;
    became_min[v] = -1;
    link_has[v] = 0;
    link_min[v] = -1;
    const int x = (int)(v % d[0]), y = (int)((v / d[0]) % d[1]),
              z = (int)(v / ((id)d[0] * d[1]));
    for (int k = 0; k < ne; ++k) {
      const int X = x + edge[3 * k], Y = y + edge[3 * k + 1], Z = z + edge[3 * k + 2];
      if (!inside(d, X, Y, Z))
        continue;
      const id u = X + (id)d[0] * (Y + (id)d[1] * Z);
      if (rank[u] > i)
        continue;
      id a = u, b = v;
      while (parent[a] != a)
        a = parent[a];
      while (parent[b] != b)
        b = parent[b];
      if (a == b)
        continue;
      if (size[a] < size[b]) {
        const id t = a;
        a = b;
        b = t;
      }
      /* b is linked under a: the merged set holds a source if either did */
      const int merged = has[a] || has[b];
      link_time[b] = i;
      link_has[b] = (int8_t)merged;
      link_min[b] = has[b] ? -1 : first[b];
      if (merged && !has[a]) {
        became_time[a] = i;
        became_min[a] = first[a];
      }
      if (rank[first[b]] < rank[first[a]])
        first[a] = first[b];
      has[a] = (int8_t)merged;
      size[a] += size[b];
      parent[b] = a;
    }
  }
  for (id v = 0; v < n; ++v) {
    id a = v, entry = rank[v];
    join[v] = -1;
    pair_min[v] = -1;
    for (;;) {
      if (became_time[a] >= 0 && became_time[a] >= entry &&
          (link_time[a] < 0 || became_time[a] <= link_time[a])) {
        join[v] = became_time[a];
        pair_min[v] = became_min[a];
        break;
      }
      if (link_time[a] < 0)
        break;
      if (link_has[a]) {
        join[v] = link_time[a];
        pair_min[v] = link_min[a];
        break;
      }
      entry = link_time[a];
      a = parent[a];
    }
  }
}
