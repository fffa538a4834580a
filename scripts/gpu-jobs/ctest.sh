#!/usr/bin/env bash
# The whole core-only test suite on the H200: every CPU test (ctest, benchmarks excluded) in parallel, then
# the GPU suites one after the other (they time kernels, so they do not share the GPU): test_evaluator_gpu
# (starters, their variants in every dtype, harness trust, worker recovery), test_profiler_gpu,
# test_verify_gpu. Writes $OUT/ctest/{cpu.log,gpu-*.log} and prints pass/fail counts last.
# targets: all
# cap: 250 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: ctest.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/ctest; mkdir -p "$out"
t0=$(date +%s)
left() { echo $((250 - ($(date +%s) - t0) - 5)); }

echo '=== CPU tests (ctest -LE "benchmark|gpu": the GPU suites carry the label gpu)'
timeout 120 ctest --test-dir "$root/build-h200" -LE "benchmark|gpu" -j 12 --timeout 100 > "$out/cpu.log" 2>&1
echo "ctest exit $?"; grep -E "tests passed|tests failed|\*\*\*Failed|\*\*\*Timeout|Not Run" "$out/cpu.log" | head -30
for t in test_evaluator_gpu; do   # the profiler and verify jobs run their own GPU suites
  [[ -x $bin/$t ]] || { echo "$t: not built"; continue; }
  l=$(left); ((l < 20)) && { echo "$t: skipped, ${l}s left"; continue; }
  echo "=== $t (cap ${l}s)"
  AK_WORKER_LOG=$out/worker-$t.log timeout -k 5 "$l" "$bin/$t" > "$out/gpu-$t.log" 2>&1
  echo "$t exit $?"
  grep -E "^\[  PASSED|^\[  FAILED|^\[  SKIPPED" "$out/gpu-$t.log" | head -25
done
