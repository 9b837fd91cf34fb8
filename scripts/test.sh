#!/usr/bin/env bash
# Sets up, builds, and runs every test (unit, CLI, pvpython, state file, GUI load), then
# the unit tests again in a small sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j 2 --timeout 900

# Second build (build-asan): Debug, so every triangulation accessor checks that its
# relation was preconditioned, with AddressSanitizer + UndefinedBehaviorSanitizer; CUDA
# and ParaView off, GoogleTest unit tests only (a few minutes on 2 cores).
if [ ! -f build-asan/build.ninja ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOGPU_SANITIZE=ON \
    -DTOPOGPU_ENABLE_CUDA=OFF -DTOPOGPU_ENABLE_PARAVIEW=OFF -DTOPOGPU_BUILD_GPU_TESTS=OFF
fi
cmake --build build-asan -j "$(nproc)"
# Any UBSan report fails the test (the build also has -fno-sanitize-recover); leak
# detection stays on: TBB's worker pool has shown no leak report here.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_stack_use_after_return=1:check_initialization_order=1
# The cases on the shared volumes repeat, at 10-100x their cost under ASan (minutes),
# paths the synthetic cases already cover; they skip themselves without the data, and
# the Release run above keeps them.
TOPOGPU_SHARED_DATA=/nonexistent-under-asan \
  ctest --test-dir build-asan --output-on-failure -j 2 --timeout 600 -L unit

# Third build (build-tsan): the GALE unit test alone under ThreadSanitizer (its leader
# threads, request queues, caches and thread-local handles; TBB on one thread there, see
# test_gale.cpp); about one minute.
if [ ! -f build-tsan/build.ninja ]; then
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOGPU_TSAN=ON \
    -DTOPOGPU_ENABLE_CUDA=OFF -DTOPOGPU_ENABLE_PARAVIEW=OFF -DTOPOGPU_BUILD_GPU_TESTS=OFF
fi
cmake --build build-tsan -j "$(nproc)" --target unit_test_gale
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=scripts/tsan.supp \
  TOPOGPU_SHARED_DATA=/nonexistent-under-tsan build-tsan/bin/unit_test_gale
