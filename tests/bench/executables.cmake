# The host twin of patchFIM and the CPU solvers on one mesh (tuning without a GPU; not a
# test): bench_geodesic_twin MESH.ply SEED [--solvers ...] [--partition bfs|metis].
add_executable(bench_geodesic_twin ${CMAKE_CURRENT_LIST_DIR}/geodesic_twin.cpp)
target_link_libraries(bench_geodesic_twin PRIVATE topogpu_core)
target_compile_options(bench_geodesic_twin PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)

# The geodesic filter's update without VTK (first update, update after a change of
# seeds), for the GPU host; bench_geodesic.py --update runs it: bench_geodesic_update
# MESH.ply SOLVER [--seeds ...] [--next-seeds ...].
add_executable(bench_geodesic_update ${CMAKE_CURRENT_LIST_DIR}/geodesic_update.cpp)
target_link_libraries(bench_geodesic_update PRIVATE topogpu_core topogpu_frontend)
target_compile_options(bench_geodesic_update PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
