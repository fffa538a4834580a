#!/usr/bin/env bash
# Builds the Qt-free core, the CLI and the LibTorch evaluator on the GPU machine, runs the GPU test
# suite and the engine benchmarks, and leaves logs in $OUT (or ./h200-out). Used for bench/*-h200-*.md.
#   carry: .deps (scripts/fetch-gpu-deps.sh: libgit2, nlohmann-json, GoogleTest for that machine)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/h200-out}; mkdir -p "$out"
log() { echo "=== $* ($(date -u +%H:%M:%S))"; }
export PATH=/opt/torch/.venv/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log machine; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/nvidia-smi.txt"
torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')
log configure
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DAK_BUILD_GUI=OFF -DAK_BUILD_EVALUATOR=ON \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$PWD/.deps/root/usr" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
log build
s=$(date +%s); ninja -C build-h200 > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
echo "build took $(( $(date +%s) - s )) s"
bin=build-h200/bin
log version; $bin/autokernel --version; $bin/autokernel info | tee "$out/info.txt"
log gpu-tests
(cd build-h200 && ctest --output-on-failure -R "${AK_GPU_TEST_REGEX:-.}" -j4 --timeout 300) > "$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | tail -25
log ceilings; $bin/autokernel ceilings | tee "$out/ceilings.txt"
log bench
for t in ${AK_TYPES:-rmsnorm softmax layernorm reduce cross_entropy rotary_embedding matmul fused_mlp flash_attention}; do
  s=$(date +%s%N)
  $bin/autokernel bench kernels/cuda/$t.cu --type $t --json > "$out/bench-$t.json" 2> "$out/bench-$t.err"; rc=$?
  e=$(date +%s%N)
  echo "$t rc=$rc wall_ms=$(( (e - s) / 1000000 ))"
done
log worker-reuse; $bin/autokernel bench kernels/cuda/rmsnorm.cu --type rmsnorm --repeat 3 2>&1 | tail -15 | tee "$out/reuse.txt"
log done
