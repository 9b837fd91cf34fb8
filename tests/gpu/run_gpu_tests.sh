#!/usr/bin/env bash
# Builds the VTK-free part of TopoGPU for sm_90 and runs the CPU-vs-GPU equality tests and
# the critical-points benchmark on the GPU machine, printing a summary.
#
#   bash tests/gpu/run_gpu_tests.sh [VOLUME_DIR] [OUT_DIR]
#
# VOLUME_DIR holds raw volumes named NAME_XxYxZ_type.raw (default .devdata/volumes, a
# git-ignored copy of ../shared/data/volumes carried to the device). TBB comes from the
# system, or from .tbb (Debian's libtbb debs unpacked with dpkg -x, carried along).
set -euo pipefail
cd "$(dirname "$0")/../.."
VOLUMES=${1:-.devdata/volumes}
OUT_DIR=${2:-${OUT:-build-gpu/out}}
mkdir -p "$OUT_DIR"

extra=()
if [ -d .tbb/usr/lib/x86_64-linux-gnu/cmake/TBB ]; then
  extra+=("-DTBB_DIR=$PWD/.tbb/usr/lib/x86_64-linux-gnu/cmake/TBB")
  export LD_LIBRARY_PATH="$PWD/.tbb/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

echo "== configure + build (sm_90, no VTK)"
start=$(date +%s)
cmake -S . -B build-gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DTOPOGPU_ENABLE_PARAVIEW=OFF -DTOPOGPU_BUILD_TESTS=OFF -DTOPOGPU_BUILD_GPU_TESTS=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 "${extra[@]}" >"$OUT_DIR/configure.log" 2>&1 ||
  { cat "$OUT_DIR/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" >"$OUT_DIR/build.log" 2>&1 ||
  { tail -50 "$OUT_DIR/build.log"; exit 1; }
echo "   built in $(($(date +%s) - start)) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
./build-gpu/bin/topogpu info

echo "== CPU vs GPU equality"
status=0
./build-gpu/bin/gpu_equality "$VOLUMES" | tee "$OUT_DIR/gpu_equality.txt" || status=$?

if command -v compute-sanitizer >/dev/null; then
  echo "== compute-sanitizer memcheck (synthetic fields)"
  compute-sanitizer --tool memcheck --error-exitcode 3 ./build-gpu/bin/gpu_equality \
    >"$OUT_DIR/memcheck.txt" 2>&1 || { status=$?; echo "memcheck failed ($status)"; }
  grep -E "ERROR SUMMARY|passed" "$OUT_DIR/memcheck.txt" || true
fi

echo "== benchmark"
python3 tests/bench/bench_critical_points.py --topogpu build-gpu/bin/topogpu \
  --volumes "$VOLUMES" --out "$OUT_DIR" --synthetic 512 \
  --explicit fuel,neghip,silicium,tooth,engine || status=$?
cat "$OUT_DIR/bench_critical_points.md" 2>/dev/null || true
exit $status
