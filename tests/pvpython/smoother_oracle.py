"""Independent numpy oracle of the scalar field smoother (shared by the pvpython and CLI
tests): the edges come from the cells themselves (TTK's tets corner list on grids, the
mesh's cells otherwise), each pass is a plain scatter-add in double, and the conversion
back to the input's type is restated here. Nothing is taken from the C++ code."""
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
    """iterations passes of (value + sum of neighbours) / (1 + neighbours), in double."""
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


def mismatches(got, expected, dtype):
    """Vertices where the smoother's output (in dtype) disagrees with the oracle's doubles:
    floats beyond rounding, integers other than the round-half-away-from-zero of the
    oracle (either neighbour when the oracle is within rounding noise of a half)."""
    got = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        tolerance = (1e-6 if dtype.itemsize == 4 else 1e-12) * (1 + np.abs(e))
        return np.flatnonzero(np.abs(got - e) > tolerance)
    info = np.iinfo(dtype)
    rounded = np.clip(np.sign(e) * np.floor(np.abs(e) + 0.5), info.min, info.max)
    near_half = np.abs(e - np.floor(e) - 0.5) < 16 * np.finfo(float).eps * (1 + np.abs(e))
    ok = (got == rounded) | (near_half & ((got == np.floor(e)) | (got == np.ceil(e))))
    return np.flatnonzero(~ok)
