# filters/discrete_gradient: the TopoGPU Discrete Gradient filter.
list(APPEND topogpu_filter_classes discrete_gradient/vtkTopoGPUDiscreteGradient)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
