"""Persistence of the lower-star filtration of a simplicial complex, written without the
project's code, for tests/cli/test_persistence.py:

  * gudhi_diagram: GUDHI's SimplexTree with every face of the given top simplices, each
    simplex's filtration value the largest of its vertices' values, then persistence();
    returns the finite pairs (dimension, birth, death) and the essential (dimension,
    birth) classes, as values;
  * brute_force_pairs: a Z/2 boundary-matrix reduction of the whole complex in the
    lexicographic order of its simplices (the vertices' ranks sorted decreasingly, the
    ranks being the values sorted with ties by vertex id: TTK's order), returning per pair
    (dimension, vertex of the creator, vertex of the destroyer) (each simplex's vertex of
    highest rank) and the essential classes as (dimension, vertex).
"""
import itertools

import numpy as np

from freudenthal import freudenthal_tets


def faces_of(tops):
    """Every face (sorted vertex tuple) of the top simplices, by dimension."""
    seen = set()
    for top in tops:
        top = tuple(sorted(top))
        for k in range(1, len(top) + 1):
            seen.update(itertools.combinations(top, k))
    return sorted(seen, key=lambda s: (len(s), s))


def grid_simplices(nx, ny, nz):
    """TTK's split of a grid: tets ABCG BCDG ABEG BEFG BFGH BDGH per voxel (corners A..H,
    x fastest); a 2D grid's pixel ABCD gives ABC, BCD (the first two axes of size > 1)."""
    dims = [n for n in (nx, ny, nz) if n > 1]
    if len(dims) == 3:
        return freudenthal_tets(nx, ny, nz)
    strides = [s for s, n in zip((1, nx, nx * ny), (nx, ny, nz)) if n > 1]
    (n0, n1), (s0, s1) = dims, strides
    triangles = []
    for j, i in itertools.product(range(n1 - 1), range(n0 - 1)):
        A = i * s0 + j * s1
        B, C, D = A + s0, A + s1, A + s0 + s1
        triangles += [(A, B, C), (B, C, D)]
    return triangles


def gudhi_diagram(tops, values):
    """Each dimension's faces inserted from the top down with their own value: GUDHI keeps
    the smaller of two values given to one simplex, so a face first created by a coface
    (at the coface's value) ends at its own."""
    st = lower_star_tree(tops, values)
    finite, essential = [], []
    for dim, (b, d) in st.persistence(homology_coeff_field=2, min_persistence=-1,
                                        persistence_dim_max=True):
        if d == float("inf"):
            essential.append((dim, b))
        elif d > b:
            finite.append((dim, b, d))
    return finite, essential


def lower_star_tree(tops, values):
    """GUDHI's SimplexTree of every face of tops, each with its highest vertex value."""
    import gudhi
    values = np.asarray(values, dtype=np.float64)
    tops = np.sort(np.asarray(tops, dtype=np.int64), axis=1)
    st = gudhi.SimplexTree()
    for k in range(tops.shape[1], 0, -1):
        faces = np.unique(np.concatenate(
            [tops[:, list(c)] for c in itertools.combinations(range(tops.shape[1]), k)]),
            axis=0)
        st.insert_batch(faces.T.copy(), values[faces].max(axis=1))
    return st


def gudhi_vertex_pairs(tops, rank):
    """GUDHI's pairs of the lower-star filtration of a vertex order (rank: a permutation),
    as vertices: finite (dimension, birth vertex, death vertex) and essential (dimension,
    birth vertex); each simplex stands for its vertex of highest rank. The ranks are
    distinct, so these pairs do not depend on how GUDHI orders equal simplices."""
    rank = np.asarray(rank, dtype=np.int64)
    st = lower_star_tree(tops, rank)
    st.compute_persistence(homology_coeff_field=2, min_persistence=-1,
                           persistence_dim_max=True)
    top = lambda s: max(s, key=lambda v: rank[v])  # noqa: E731
    finite, essential = [], []
    for b, d in st.persistence_pairs():
        if not d:
            essential.append((len(b) - 1, top(b)))
        elif top(d) != top(b):
            finite.append((len(b) - 1, top(b), top(d)))
    return finite, essential


def vertex_ranks(values):
    values = np.asarray(values)
    order = np.lexsort((np.arange(len(values)), values))
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values))
    return rank


def brute_force_pairs(tops, values):
    rank = vertex_ranks(values)
    simplices = faces_of(tops)
    key = lambda s: tuple(sorted((int(rank[v]) for v in s), reverse=True))  # noqa: E731
    simplices.sort(key=key)
    index = {s: i for i, s in enumerate(simplices)}
    highest = [max(s, key=lambda v: rank[v]) for s in simplices]
    columns = []
    for s in simplices:
        bits = 0
        if len(s) > 1:
            for face in itertools.combinations(s, len(s) - 1):
                bits ^= 1 << index[face]
        columns.append(bits)
    pivot_owner = {}
    pairs, paired = [], set()
    for j, col in enumerate(columns):
        while col:
            low = col.bit_length() - 1
            if low not in pivot_owner:
                break
            col ^= columns[pivot_owner[low]]
        columns[j] = col
        if col:
            low = col.bit_length() - 1
            pivot_owner[low] = j
            pairs.append((len(simplices[low]) - 1, highest[low], highest[j]))
            paired.update((low, j))
    essential = [(len(s) - 1, highest[i]) for i, s in enumerate(simplices)
                 if i not in paired]
    return pairs, essential
