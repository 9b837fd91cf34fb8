# filters/critical_points: the TopoGPU Critical Points filter.
list(APPEND topogpu_filter_classes critical_points/vtkTopoGPUCriticalPoints)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
