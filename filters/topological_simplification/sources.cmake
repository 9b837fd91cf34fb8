# filters/topological_simplification: the TopoGPU Topological Simplification filter.
list(APPEND topogpu_filter_classes topological_simplification/vtkTopoGPUTopologicalSimplification)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
