"""TTK 1.2's layout of the 1-separatrices (the Morse-Smale Complex filter's port 1, the
file of `topogpu msc --separatrices-out`): one line cell per V-path step, two points each,
the lines of a separatrix consecutive and chained (each starts at the point the previous
one ended), each carrying its separatrix's cell data, SeparatrixIds 0, 1, ... in order.
`paths` checks that layout and gives each separatrix back as its path of points. Plain
numpy: the pvpython and the CLI tests share it.
"""
import numpy as np


def paths(connectivity, separatrix_id, cell_arrays=()):
    """connectivity: two point ids per line (flat or n x 2); separatrix_id: one per line;
    cell_arrays: the other per-line arrays, each of which must be the same on every line
    of a separatrix. Returns [(first line's index, point ids along the path)], one per
    SeparatrixId in id order."""
    conn = np.asarray(connectivity, dtype=np.int64).reshape(-1, 2)
    sid = np.asarray(separatrix_id, dtype=np.int64)
    assert len(conn) == len(sid), "one SeparatrixId per line"
    if len(sid) == 0:
        return []
    starts = np.flatnonzero(np.r_[True, sid[1:] != sid[:-1]])
    assert np.array_equal(sid[starts], np.arange(len(starts))), \
        "SeparatrixIds are not 0, 1, ... in order, or a separatrix's lines are not consecutive"
    inner = np.ones(len(sid), dtype=bool)
    inner[starts] = False
    previous = np.flatnonzero(inner) - 1
    assert np.array_equal(conn[inner, 0], conn[previous, 1]), \
        "the lines of a separatrix do not chain"
    for array in cell_arrays:
        array = np.asarray(array)
        assert np.array_equal(array[inner], array[previous]), \
            "a cell array changes along a separatrix"
    ends = np.r_[starts[1:], len(sid)]
    return [(int(s), np.r_[conn[s, 0], conn[s:e, 1]]) for s, e in zip(starts, ends)]
