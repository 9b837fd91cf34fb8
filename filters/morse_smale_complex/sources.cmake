# filters/morse_smale_complex: the TopoGPU Morse-Smale Complex filter.
list(APPEND topogpu_filter_classes morse_smale_complex/vtkTopoGPUMorseSmaleComplex)
list(APPEND topogpu_filter_include_dirs "${CMAKE_CURRENT_LIST_DIR}")
