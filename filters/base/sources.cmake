# filters/base: the base class every TopoGPU filter derives from (input array, cached
# triangulation, backend, progress/abort, piece ownership, RunReport to field data), and
# the one of the filters on a cell complex (Complex, Triangulation, MemoryBudget).
list(APPEND topogpu_filter_classes base/vtkTopoGPUAlgorithm base/vtkTopoGPUComplexAlgorithm)
list(APPEND topogpu_filter_sources
     base/TopoGPUColouring.cxx
     base/TopoGPUDiagramLayout.cxx
     base/TopoGPUDistributedPiece.cxx
     base/TopoGPUGatherToRoot.cxx
     base/TopoGPUGhostExchange.cxx
     base/TopoGPUImageGather.cxx
     base/TopoGPUInputScalars.cxx
     base/TopoGPUPieceOwnership.cxx
     base/TopoGPUPointWelding.cxx
     base/TopoGPUTriangulationRegistry.cxx)
list(APPEND topogpu_filter_private_headers base/TopoGPUFilterRun.h base/TopoGPUColouring.h
     base/TopoGPUArrays.h base/TopoGPUDataSetPoints.h base/TopoGPUDiagramLayout.h base/TopoGPUDistributedPiece.h base/TopoGPUGatherToRoot.h
     base/TopoGPUImageGather.h base/TopoGPUMemoryBudget.h base/TopoGPUPointWelding.h
     base/TopoGPUTriangulationRegistry.h)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
