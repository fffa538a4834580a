#!/usr/bin/env bash
# Builds the Qt-free core, the CLI and the LibTorch evaluator on the GPU machine, runs the GPU test
# suite, measures ceilings, benchmarks the nine starters and runs a short search-agent loop, leaving
# logs in $OUT (or ./h200-out). Each phase has a time cap so the whole run fits one device call.
#   carry: .deps (scripts/fetch-gpu-deps.sh: libgit2, nlohmann-json, GoogleTest for that machine)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/h200-out}; mkdir -p "$out"
t0=$(date +%s)
log() { echo "=== $* (t+$(( $(date +%s) - t0 ))s)"; }
export PATH=/opt/torch/.venv/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log machine; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/nvidia-smi.txt"
torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')
log configure
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DAK_BUILD_GUI=OFF -DAK_BUILD_EVALUATOR=ON \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$PWD/.deps/root/usr" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
log build
timeout ${AK_BUILD_CAP:-200} ninja -C build-h200 autokernel-evaluator test_evaluator_gpu autokernel > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -30; }
bin=build-h200/bin
# $AK_PACK_BIN: also return the stripped binaries, so a later call can skip the build (scripts/h200-loop.sh
# runs them from .h200-bin when that folder is carried).
if [[ -n "${AK_PACK_BIN:-}" ]]; then
  rm -rf /tmp/h200-bin && mkdir -p /tmp/h200-bin && cp $bin/autokernel $bin/autokernel-evaluator /tmp/h200-bin/ &&
    strip /tmp/h200-bin/* && tar -C /tmp -czf "$out/h200-bin.tgz" h200-bin && ls -la "$out/h200-bin.tgz"
fi
log info; $bin/autokernel --version 2>&1 | head -20; $bin/autokernel info 2>&1 | tee "$out/info.txt"
log gpu-tests
timeout ${AK_TEST_CAP:-150} $bin/test_evaluator_gpu ${AK_TEST_FILTER:+--gtest_filter=$AK_TEST_FILTER} > "$out/gpu-tests.log" 2>&1; echo "gpu tests exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|^\[  FAILED|tests ran" "$out/gpu-tests.log" | tail -40
log ceilings; timeout 60 $bin/autokernel ceilings 2>&1 | tee "$out/ceilings.txt"
log bench
for t in ${AK_TYPES-rmsnorm softmax layernorm reduce cross_entropy rotary_embedding matmul fused_mlp flash_attention}; do
  s=$(date +%s%N)
  timeout 60 $bin/autokernel bench kernels/cuda/$t.cu --type $t --json > "$out/bench-$t.json" 2> "$out/bench-$t.err"; rc=$?
  echo "$t rc=$rc wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))" | tee -a "$out/bench-wall.txt"
done
# Variants: a starter with some tunables set, e.g. AK_VARIANTS="softmax:VEC=8,ROW_CACHE=16 rmsnorm:VEC=8".
# Each is checked (five stages, three dtypes) and timed with the starter as the reference in the same run.
for v in ${AK_VARIANTS:-}; do
  t=${v%%:*}; f=/tmp/variant-$t-$(echo "${v#*:}" | tr ',=' '_-').cu; cp kernels/cuda/$t.cu "$f"
  for kv in $(echo "${v#*:}" | tr ',' ' '); do
    sed -E -i "s/(@autokernel tunable ${kv%%=*} = )[0-9]+/\1${kv#*=}/" "$f"
  done
  log "variant $v"
  timeout 90 $bin/autokernel bench "$f" --type $t --reference kernels/cuda/$t.cu > "$out/variant-$(basename "$f" .cu).txt" 2>&1
  echo "rc=$?"; r="$out/variant-$(basename "$f" .cu).txt"; head -1 "$r"; grep -E "^  (smoke|sweep|adversarial|determinism|edge) " "$r" | grep -v " \([0-9]*\)/\1 " ; sed -n '/^timing/,$p' "$r" | head -8
done
[[ -n "${AK_SKIP_REUSE:-}" ]] && { log done; exit 0; }
log worker-reuse; timeout 60 $bin/autokernel bench kernels/cuda/rmsnorm.cu --type rmsnorm --repeat 3 > "$out/reuse.txt" 2>&1; tail -8 "$out/reuse.txt"
if [[ -n "${AK_LOOP_SECONDS:-}" ]]; then
  log loop
  rm -rf /tmp/ak-demo && $bin/autokernel new /tmp/ak-demo --kernel rmsnorm > "$out/loop.log" 2>&1 &&
    timeout "$AK_LOOP_SECONDS" $bin/autokernel run /tmp/ak-demo --agent search --budget 40 >> "$out/loop.log" 2>&1
  echo "loop exit $?"; tail -15 "$out/loop.log"
  tar -C /tmp -czf "$out/demo-session.tgz" ak-demo 2>/dev/null
fi
log done
