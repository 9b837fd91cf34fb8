# filters/scalar_field_smoother: the TopoGPU Scalar Field Smoother filter.
list(APPEND topogpu_filter_classes scalar_field_smoother/vtkTopoGPUScalarFieldSmoother)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
