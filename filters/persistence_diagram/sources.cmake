# filters/persistence_diagram: the TopoGPU Persistence Diagram filter (a scalar field's).
list(APPEND topogpu_filter_classes persistence_diagram/vtkTopoGPUPersistenceDiagram)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
