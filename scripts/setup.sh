#!/usr/bin/env bash
# Installs what TopoGPU needs on Debian 12 (Debian packages only), unless already there.
# The CUDA toolkit is expected at /usr/local/cuda; without it the CPU-only build is made.
set -euo pipefail
packages=(cmake ninja-build g++ ccache paraview paraview-dev python3-paraview libtbb-dev
  xvfb xauth mpi-default-dev mpi-default-bin libdouble-conversion-dev liblz4-dev
  libutfcpp-dev libgtest-dev python3-numpy python3-gudhi ripser libmetis-dev libcgal-dev
  clang-format clang-tidy)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
    "${missing[@]}" >/dev/null
fi
