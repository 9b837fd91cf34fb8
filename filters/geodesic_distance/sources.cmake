# filters/geodesic_distance: the TopoGPU Geodesic Distance filter.
list(APPEND topogpu_filter_classes geodesic_distance/vtkTopoGPUGeodesicDistance)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
