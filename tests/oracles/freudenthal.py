"""TTK's Freudenthal split of a grid into tetrahedra, written out independently of the
project's implicit triangulation, shared by the MSC-on-meshes tests
(tests/cli/test_msc_mesh.py, tests/pvpython/msc_mesh_test.py)."""
import itertools


def freudenthal_tets(nx, ny, nz):
    """TTK's split of each voxel (corners A..H x fastest): ABCG BCDG ABEG BEFG BFGH BDGH."""
    vid = lambda x, y, z: x + nx * (y + ny * z)  # noqa: E731
    tets = []
    for z, y, x in itertools.product(range(nz - 1), range(ny - 1), range(nx - 1)):
        A, B, C, D = vid(x, y, z), vid(x + 1, y, z), vid(x, y + 1, z), vid(x + 1, y + 1, z)
        E, F, G, H = (vid(x, y, z + 1), vid(x + 1, y, z + 1), vid(x, y + 1, z + 1),
                      vid(x + 1, y + 1, z + 1))
        tets += [(A, B, C, G), (B, C, D, G), (A, B, E, G), (B, E, F, G), (B, F, G, H),
                 (B, D, G, H)]
    return tets
