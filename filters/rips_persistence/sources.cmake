# filters/rips_persistence: the TopoGPU Rips Persistence Diagram filter.
list(APPEND topogpu_filter_classes rips_persistence/vtkTopoGPURipsPersistenceDiagram)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
