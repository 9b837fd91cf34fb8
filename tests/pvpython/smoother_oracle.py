"""Independent numpy oracle of the scalar field smoother (shared by the pvpython and CLI
tests): the edges come from the cells themselves (TTK's tets corner list on grids, the
mesh's cells otherwise), each pass is a plain scatter-add, in double for floating-point
values and on Python integers with the rounding restated here for integers. Nothing is
taken from the C++ code."""
import itertools

import numpy as np

# TTK's split of a voxel, corners x-fastest: A=(0,0,0) B=(1,0,0) C=(0,1,0) D=(1,1,0)
# E=(0,0,1) F=(1,0,1) G=(0,1,1) H=(1,1,1); tets ABCG BCDG ABEG BEFG BFGH BDGH. A pixel
# a b c d splits into abc and bcd.
TTK_TETS = [(0, 1, 2, 6), (1, 2, 3, 6), (0, 1, 4, 6), (1, 4, 5, 6), (1, 5, 6, 7), (1, 3, 6, 7)]
TTK_TRIANGLES = [(0, 1, 2), (1, 2, 3)]


def grid_cells(dims):
    """Point ids of every cell of TTK's triangulation of a grid of point dims (x fastest;
    axes of size 1 squeezed out)."""
    dims = [int(d) for d in dims] + [1] * (3 - len(dims))
    stride = [1, dims[0], dims[0] * dims[1]]
    axes = [a for a in range(3) if dims[a] > 1]
    pattern = TTK_TETS if len(axes) == 3 else TTK_TRIANGLES
    corner = [sum(((k >> i) & 1) * stride[axes[i]] for i in range(len(axes)))
              for k in range(1 << len(axes))]
    bases = np.zeros(1, dtype=np.int64)
    for a in axes:
        bases = (bases[:, None] + stride[a] * np.arange(dims[a] - 1)[None, :]).ravel()
    return np.concatenate([np.stack([bases + corner[k] for k in cell], axis=1)
                           for cell in pattern])


def edges_of_cells(cells):
    """Unique vertex pairs (i < j) of a cell array (every pair of a simplex's vertices)."""
    cells = np.asarray(cells, dtype=np.int64)
    pairs = np.concatenate([cells[:, [p, q]] for p, q in
                            itertools.combinations(range(cells.shape[1]), 2)])
    pairs.sort(axis=1)
    return np.unique(pairs, axis=0)


def smooth(values, edges, iterations, mask=None):
    """iterations passes of (value + sum of neighbours) / (1 + neighbours): in double for
    floating-point values; for integers each pass's exact average rounded to the nearest
    integer, halves away from zero (Python integers: exact at any magnitude)."""
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        return smooth_integers(values, edges, iterations, mask)
    x = np.asarray(values, dtype=np.float64).copy()
    n = len(x)
    degree = np.bincount(edges.ravel(), minlength=n)
    for _ in range(iterations):
        total = x.copy()
        np.add.at(total, edges[:, 0], x[edges[:, 1]])
        np.add.at(total, edges[:, 1], x[edges[:, 0]])
        y = total / (degree + 1)
        if mask is not None:
            y = np.where(np.asarray(mask) != 0, y, x)
        x = y
    return x


def smooth_integers(values, edges, iterations, mask=None):
    """The integer passes on Python integers (object arrays): sums never overflow and the
    rounding is exact; returns an array of the input's dtype."""
    x = np.array([int(v) for v in values], dtype=object)
    n = len(x)
    count = np.bincount(edges.ravel(), minlength=n).astype(object) + 1
    keep = None if mask is None else np.asarray(mask) == 0
    for _ in range(iterations):
        total = x.copy()
        np.add.at(total, edges[:, 0], x[edges[:, 1]])
        np.add.at(total, edges[:, 1], x[edges[:, 0]])
        y = np.array([(1 if t >= 0 else -1) * ((2 * abs(t) + c) // (2 * c))
                      for t, c in zip(total, count)], dtype=object)
        if keep is not None:
            y[keep] = x[keep]
        x = y
    return np.array([int(v) for v in x], dtype=values.dtype)


def mismatches(got, expected, dtype):
    """Vertices where the smoother's output (in dtype) disagrees with the oracle's: floats
    beyond rounding, integers at all."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return np.flatnonzero(np.asarray(got, dtype=dtype) != np.asarray(expected, dtype=dtype))
    got = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    tolerance = (1e-6 if dtype.itemsize == 4 else 1e-12) * (1 + np.abs(e))
    return np.flatnonzero(np.abs(got - e) > tolerance)
