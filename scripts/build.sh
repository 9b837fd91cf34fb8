#!/usr/bin/env bash
# Configures and builds TopoGPU in build/ (Release; CUDA for sm_90 when nvcc is present;
# the ParaView plugin when ParaView is present). Reuses an existing build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j "$(nproc)"
