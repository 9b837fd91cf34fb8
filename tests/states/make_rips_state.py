"""Builds states/rips-persistence.pvsm (run once, commit the result).

Usage: pvpython make_rips_state.py PLUGIN OUTPUT.pvsm   (no X server needed)
The pipeline makes its own cloud (a Programmable Source: 800 points sampled uniformly by
area on a torus, with noise), so the state needs no data files: its Rips persistence
diagram up to dimension 1 with the cocycles of the loops, the cloud as points, the
cocycle edges of the two long bars (the torus's two loops) coloured by bar, and the
diagram drawn beside the cloud (x: birth, y: death, the diagonal, colour: dimension).
"""
import sys

from paraview.simple import *  # noqa: F401,F403

# (not "output": the Programmable Source runs its script in __main__ and unsets it)
plugin, state_path = sys.argv[1], sys.argv[2]
LoadPlugin(plugin, remote=False, ns=globals())

cloud = ProgrammableSource(registrationName="TorusCloud", OutputDataSetType="vtkPolyData")
cloud.Script = """
import numpy as np
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray
from vtkmodules.util import numpy_support
rng = np.random.default_rng(5)
R, r, n = 1.0, 0.45, 800
u, v = [], []
while len(u) < n:  # uniform by area: keep v with probability (R + r cos v) / (R + r)
    a, b, keep = rng.uniform(0, 2 * np.pi), rng.uniform(0, 2 * np.pi), rng.uniform()
    if keep <= (R + r * np.cos(b)) / (R + r):
        u.append(a)
        v.append(b)
u, v = np.array(u), np.array(v)
xyz = np.c_[(R + r * np.cos(v)) * np.cos(u), (R + r * np.cos(v)) * np.sin(u),
            r * np.sin(v)] + rng.normal(0, 0.01, (n, 3))
points = vtkPoints()
points.SetDataTypeToDouble()
points.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(xyz), deep=1))
verts = vtkCellArray()
for i in range(n):
    verts.InsertNextCell(1, [i])
out = self.GetOutput()
out.SetPoints(points)
out.SetVerts(verts)  # to draw the points; the filter reads points only
"""

diagram = TopoGPURipsPersistenceDiagram(registrationName="RipsDiagram", Input=cloud)
diagram.MaxDimension = 1
diagram.ComputeCocycles = 1
diagram.Threshold = 1.2  # past both loops' deaths: a larger diagram than the enclosing radius

# The cocycles of the long bars (the torus's two loops).
# The cocycle restricted to the complex a quarter into the bar's life (edges not longer
# than that): the cut the loop crosses at that scale.
alive = Calculator(registrationName="EdgeInComplex", Input=OutputPort(diagram, 2))
alive.AttributeType = "Cell Data"
alive.ResultArrayName = "InComplex"
alive.Function = "Diameter <= Birth + 0.25 * (Death - Birth)"
in_complex = Threshold(registrationName="CocycleAtScale", Input=alive)
in_complex.Scalars = ["CELLS", "InComplex"]
in_complex.LowerThreshold = 0.5
in_complex.UpperThreshold = 2.0
long_loops = Threshold(registrationName="LongLoopCocycles", Input=in_complex)
long_loops.Scalars = ["CELLS", "Persistence"]
long_loops.LowerThreshold = 0.4
long_loops.UpperThreshold = 100.0
# The diagram beside the cloud.
placed = Transform(registrationName="DiagramPlaced", Input=OutputPort(diagram, 0))
placed.Transform = "Transform"
placed.Transform.Translate = [1.8, -1.3, 0.0]
placed.Transform.Scale = [2.0, 2.0, 1.0]
label = Text(registrationName="DiagramLabel")
label.Text = ("left: a torus cloud and the cocycles of its two loops\nright: its Rips "
              "persistence diagram (x: birth, y: death; red: H0, blue: H1)")

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1000, 800]  # the state tests' screenshot size
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.OrientationAxesVisibility = 0
view.CameraParallelProjection = 1

cloud_display = Show(cloud, view)
cloud_display.SetRepresentationType("Points")
cloud_display.PointSize = 4.0
cloud_display.ColorArrayName = ["POINTS", ""]
cloud_display.AmbientColor = [0.45, 0.45, 0.45]
cloud_display.DiffuseColor = [0.45, 0.45, 0.45]

loops_display = Show(long_loops, view)
ColorBy(loops_display, ("CELLS", "BarId"))
loops_display.LineWidth = 2.5
bars_lut = GetColorTransferFunction("BarId")
bars_lut.ApplyPreset("Rainbow Uniform", True)
loops_display.SetScalarBarVisibility(view, False)

diagram_display = Show(placed, view)
ColorBy(diagram_display, ("CELLS", "PairType"))
diagram_display.LineWidth = 3.0
type_lut = GetColorTransferFunction("PairType")
type_lut.InterpretValuesAsCategories = 1
type_lut.Annotations = ["-1", "diagonal", "0", "H0", "1", "H1"]
type_lut.IndexedColors = [0.2, 0.2, 0.2, 0.85, 0.15, 0.1, 0.1, 0.3, 0.85]
diagram_display.SetScalarBarVisibility(view, False)

label_display = Show(label, view)
label_display.WindowLocation = "Upper Center"
label_display.FontSize = 16
label_display.Color = [0.1, 0.1, 0.1]

view.CameraPosition = [1.5, 0.0, 10.0]
view.CameraFocalPoint = [1.5, 0.0, 0.0]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelScale = 2.55
# No Render: the state is written without an X server (the camera is set explicitly).
SaveState(state_path)
print("wrote", state_path)
