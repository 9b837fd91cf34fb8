# filters/morse_smale_complex: the TopoGPU Morse-Smale Complex filter.
list(APPEND topogpu_filter_classes morse_smale_complex/vtkTopoGPUMorseSmaleComplex)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
list(APPEND topogpu_filter_sources morse_smale_complex/TopoGPUMscPolyData.cxx)
list(APPEND topogpu_filter_private_headers morse_smale_complex/TopoGPUMscPolyData.h)
