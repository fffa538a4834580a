#!/usr/bin/env bash
# Configures and builds into build/ (after scripts/setup.sh). Extra arguments go to CMake's configure step,
# e.g. scripts/build.sh -DAK_BUILD_GUI=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f build/ak-env.cmake ]] || scripts/setup.sh
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build "${gen[@]}" -C build/ak-env.cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
elif (($#)); then
  cmake -S . -B build "$@"
fi
cmake --build build --parallel "${AK_JOBS:-$(nproc)}"
