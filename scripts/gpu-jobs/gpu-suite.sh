#!/usr/bin/env bash
# The evaluator's GPU suite alone on the GPU (it times kernels, so nothing else shares the GPU while it
# runs): the nine starters in every dtype, their variants, harness trust, worker recovery. Writes
# $OUT/gpu-suite/{gpu-test_evaluator_gpu.log,worker.log} and prints the pass/fail lines last.
# targets: test_evaluator_gpu
# cap: 270 seconds
set -uo pipefail
bin=$(cd "${1:?usage: gpu-suite.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/gpu-suite; mkdir -p "$out"
[[ -x $bin/test_evaluator_gpu ]] || { echo "test_evaluator_gpu: not built"; exit 1; }
AK_WORKER_LOG=$out/worker.log timeout -k 5 260 "$bin/test_evaluator_gpu" > "$out/gpu-test_evaluator_gpu.log" 2>&1
echo "test_evaluator_gpu exit $?"
grep -E "^\[  PASSED|^\[  FAILED|^\[  SKIPPED|tests ran" "$out/gpu-test_evaluator_gpu.log" | head -30
