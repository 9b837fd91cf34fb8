# filters/base: the base class every TopoGPU filter derives from (input array, cached
# triangulation, backend, progress/abort, piece ownership, RunReport to field data).
list(APPEND topogpu_filter_classes base/vtkTopoGPUAlgorithm)
list(APPEND topogpu_filter_sources base/TopoGPUColouring.cxx base/TopoGPUDistributedPiece.cxx)
list(APPEND topogpu_filter_private_headers base/TopoGPUFilterRun.h base/TopoGPUColouring.h
     base/TopoGPUArrays.h base/TopoGPUDistributedPiece.h)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
