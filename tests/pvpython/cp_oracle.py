"""Brute-force oracle for critical points of a PL scalar field (numpy only).

Independent of the C++ code under test: it builds the simplicial complex from the cells,
takes each vertex's link from the triangles that contain it, splits the link into its
lower and upper parts under the total order (value, vertex id), counts their connected
components and classifies with TTK 1.2's rule (ScalarFieldCriticalPoints, restated in
classify below). Grids are split into cells from TTK's documented corner list. It also checks the Euler relation
sum_v (1 - chi(lower link of v)) == chi(complex), which holds for any simplicial complex
because every simplex is counted once, at its highest vertex.
"""
import itertools

import numpy as np

MINIMUM, SADDLE1, SADDLE2, MAXIMUM, DEGENERATE, REGULAR = range(6)
VTK_TRIANGLE, VTK_TETRA = 5, 10


# TTK's split of a voxel, corners A..H in x-fastest order (A=(0,0,0), B=(1,0,0),
# C=(0,1,0), D=(1,1,0), E=(0,0,1), F=(1,0,1), G=(0,1,1), H=(1,1,1)): ABCG, BCDG, ABEG,
# BEFG, BFGH, BDGH (around the B-G diagonal). A pixel a=(0,0), b=(1,0), c=(0,1), d=(1,1):
# abc and bcd (along the b-c diagonal). Corner k: bit i steps along active axis i.
TTK_VOXEL_TETS = ((0, 1, 2, 6), (1, 2, 3, 6), (0, 1, 4, 6), (1, 4, 5, 6), (1, 5, 6, 7),
                  (1, 3, 6, 7))
TTK_PIXEL_TRIANGLES = ((0, 1, 2), (1, 2, 3))


def grid_cells(dims):
    """TTK's triangulation of a grid of dims = (nx, ny, nz) points, x fastest.

    Axes with one point are dropped, so a one-voxel-thick grid is 2D (its pixels split
    along the (1,0)-(0,1) diagonal of the two remaining axes).
    """
    dims = [int(d) for d in dims]
    strides = [1, dims[0], dims[0] * dims[1]]
    axes = [a for a in range(3) if dims[a] > 1]
    if len(axes) < 2:
        raise ValueError("grid %s is not 2D or 3D" % (dims,))
    mesh = np.meshgrid(*[np.arange(dims[a] - 1, dtype=np.int64) for a in axes],
                       indexing="ij")
    base = sum(m.ravel() * strides[a] for m, a in zip(mesh, axes))

    def corner(k):
        return base + sum(((k >> i) & 1) * strides[a] for i, a in enumerate(axes))

    split = TTK_VOXEL_TETS if len(axes) == 3 else TTK_PIXEL_TRIANGLES
    return np.concatenate([np.stack([corner(k) for k in cell], axis=1) for cell in split])


def cells_of_highest_dimension(types, offsets, connectivity):
    """Tets if any, else triangles, from VTK cell types + offsets/connectivity arrays."""
    types = np.asarray(types)
    offsets = np.asarray(offsets, dtype=np.int64)
    connectivity = np.asarray(connectivity, dtype=np.int64)
    for vtk_type, k in ((VTK_TETRA, 4), (VTK_TRIANGLE, 3)):
        chosen = np.flatnonzero(types == vtk_type)
        if chosen.size:
            starts = offsets[chosen]
            return connectivity[starts[:, None] + np.arange(k)[None, :]]
    return np.zeros((0, 3), dtype=np.int64)


def _unique_faces(cells, size, n):
    """Unique sorted vertex tuples of the given size that are faces of the cells."""
    rows = np.concatenate([cells[:, list(c)] for c in
                           itertools.combinations(range(cells.shape[1]), size)])
    if size == 1:
        return np.unique(rows).reshape(-1, 1)
    if n ** size < 2 ** 62:
        key = np.zeros(len(rows), dtype=np.int64)
        for j in range(size):
            key = key * n + rows[:, j]
        key = np.unique(key)
        out = np.empty((len(key), size), dtype=np.int64)
        for j in reversed(range(size)):
            out[:, j] = key % n
            key = key // n
        return out
    return np.unique(rows, axis=0)


def _components(count, u, w):
    """Connected-component label (smallest node id) of each of count nodes."""
    try:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components
        graph = coo_matrix((np.ones(len(u), dtype=np.int8), (u, w)), shape=(count, count))
        _, labels = connected_components(graph, directed=False)
        # a root per component: its first node
        first = np.full(labels.max() + 1 if count else 0, count, dtype=np.int64)
        np.minimum.at(first, labels, np.arange(count))
        return first[labels]
    except ImportError:
        pass
    labels = np.arange(count, dtype=np.int64)
    a = np.concatenate([u, w])
    b = np.concatenate([w, u])
    if a.size == 0:
        return labels
    order = np.argsort(a, kind="stable")
    a, b = a[order], b[order]
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    heads = a[starts]
    while True:
        new = labels.copy()
        new[heads] = np.minimum(new[heads], np.minimum.reduceat(labels[b], starts))
        new = new[new]
        if np.array_equal(new, labels):
            return labels
        labels = new


class Result:
    pass


def classify(values, cells, number_of_points):
    """Critical type of every vertex, boundary flags and the Euler check.

    values: one scalar per point; cells: (m, d+1) vertex ids of triangles (d=2) or
    tets (d=3). Vertices in no cell have empty links: degenerate under TTK's rule.
    """
    n = int(number_of_points)
    values = np.asarray(values).reshape(-1)
    assert values.shape[0] == n, (values.shape, n)
    cells = np.sort(np.asarray(cells, dtype=np.int64), axis=1)
    dimension = cells.shape[1] - 1
    order = np.lexsort((np.arange(n), values))  # by value, then by vertex id
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)

    simplices = {k: _unique_faces(cells, k + 1, n) for k in range(dimension + 1)}
    referenced = np.zeros(n, dtype=bool)
    referenced[simplices[0][:, 0]] = True

    # chi of the lower link of v: its k-simplices are the (k+1)-simplices whose top is v
    chi_lower = np.zeros(n, dtype=np.int64)
    for k in range(1, dimension + 1):
        s = simplices[k]
        top = s[np.arange(len(s)), np.argmax(rank[s], axis=1)]
        chi_lower += (-1) ** (k - 1) * np.bincount(top, minlength=n)
    euler_domain = sum((-1) ** k * len(simplices[k]) for k in range(dimension + 1))
    euler_from_links = int(np.sum(1 - chi_lower[referenced]))

    # Link graph: nodes are directed edges (center, neighbour); the triangle {c, x, y}
    # joins (c, x) and (c, y) in the link of c. Lower and upper parts are separate.
    edges = simplices[1]
    center = np.concatenate([edges[:, 0], edges[:, 1]])
    other = np.concatenate([edges[:, 1], edges[:, 0]])
    node_key = center * n + other
    sort = np.argsort(node_key)
    node_key = node_key[sort]
    center, other = center[sort], other[sort]
    lower = rank[other] < rank[center]
    tris = simplices[2]
    u_list, w_list = [], []
    for c, x, y in ((0, 1, 2), (1, 0, 2), (2, 0, 1)):
        u_list.append(np.searchsorted(node_key, tris[:, c] * n + tris[:, x]))
        w_list.append(np.searchsorted(node_key, tris[:, c] * n + tris[:, y]))
    u = np.concatenate(u_list)
    w = np.concatenate(w_list)
    same_side = lower[u] == lower[w]
    labels = _components(len(node_key), u[same_side], w[same_side])
    roots = labels == np.arange(len(node_key))
    lower_count = np.bincount(center[roots & lower], minlength=n)
    upper_count = np.bincount(center[roots & ~lower], minlength=n)

    # boundary: vertices of facets that lie in exactly one cell
    facets = np.concatenate([cells[:, list(c)] for c in
                             itertools.combinations(range(dimension + 1), dimension)])
    facet_key = np.zeros(len(facets), dtype=np.int64)
    for j in range(dimension):
        facet_key = facet_key * n + facets[:, j]
    keys, first, counts = np.unique(facet_key, return_index=True, return_counts=True)
    on_boundary = np.zeros(n, dtype=bool)
    on_boundary[facets[first[counts == 1]].ravel()] = True

    # TTK's boundary case reads whether some lower / upper neighbour is on the boundary
    lower_on_boundary = np.bincount(center[lower & on_boundary[other]], minlength=n) > 0
    upper_on_boundary = np.bincount(center[~lower & on_boundary[other]], minlength=n) > 0

    # TTK 1.2's rule: (lower, upper) components (0,1) minimum, (1,0) maximum, (1,1)
    # regular but in 3D a boundary vertex with only its upper (lower) link touching the
    # boundary is a 1-saddle (2-saddle); 3D (2,1) 1-saddle, (1,2) 2-saddle; 2D (2,1),
    # (1,2), (2,2) saddle; anything else degenerate.
    types = np.full(n, DEGENERATE, dtype=np.int64)
    if dimension == 3:
        types[(lower_count == 2) & (upper_count == 1)] = SADDLE1
        types[(lower_count == 1) & (upper_count == 2)] = SADDLE2
    else:
        saddle = ((lower_count == 2) & (upper_count == 1)) | \
                 ((lower_count == 1) & (upper_count == 2)) | \
                 ((lower_count == 2) & (upper_count == 2))
        types[saddle] = SADDLE1
    one_one = (lower_count == 1) & (upper_count == 1)
    types[one_one] = REGULAR
    if dimension == 3:
        types[one_one & on_boundary & upper_on_boundary & ~lower_on_boundary] = SADDLE1
        types[one_one & on_boundary & lower_on_boundary & ~upper_on_boundary] = SADDLE2
    types[(lower_count == 1) & (upper_count == 0)] = MAXIMUM
    types[(lower_count == 0) & (upper_count == 1)] = MINIMUM

    r = Result()
    r.dimension = dimension
    r.types = types
    r.lower_count = lower_count
    r.upper_count = upper_count
    r.on_boundary = on_boundary
    r.euler_domain = euler_domain
    r.euler_from_links = euler_from_links
    r.critical = np.flatnonzero(types != REGULAR)
    r.counts = np.bincount(types, minlength=6)
    return r
