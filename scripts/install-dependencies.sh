#!/usr/bin/env bash
# Installs Soma's build dependencies from Debian packages (Debian 12 "bookworm").
# Runs apt-get only for packages that are missing, so it is cheap to call again.
set -euo pipefail
packages=(build-essential cmake pkg-config
          libeigen3-dev libboost-dev libboost-filesystem-dev libyaml-cpp-dev catch2 petsc-dev
          libcli11-dev libmuparser-dev libfmt-dev libsuitesparse-dev libbenchmark-dev
          clang-14 libclang-rt-14-dev   # the sanitizer stage and the fuzz targets (docs/reliability.md)
          libfcl-dev   # FCL: imc_contact's broad phase (bench/broad_phase_benchmarks.cpp compares it with a grid)
          liburdfdom-dev   # urdfdom: the urdf import (plugins/urdf)
          python3-dev python3-pybind11 python3-numpy python3-pytest   # the Python module (python/, docs/python.md)
          python3-matplotlib chromium libjs-three)   # `soma plot`, `soma view` and its snapshots (docs/viewer.md)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "dependencies: all installed"
  exit 0
fi
echo "dependencies: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
