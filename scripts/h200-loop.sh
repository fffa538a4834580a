#!/usr/bin/env bash
# Records the demo session on the GPU machine: the search agent on rmsnorm, softmax and matmul, then a
# command agent that plants a failing kernel (it must be reverted and the run must go on). Leaves
# $OUT/loop.tgz with the session and the logs.
#   carry: .deps (scripts/fetch-gpu-deps.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-$PWD/h200-out}; mkdir -p "$out"
t0=$(date +%s)
log() { echo "=== $* (t+$(( $(date +%s) - t0 ))s)"; }
export PATH=/opt/torch/.venv/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')
log build
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DAK_BUILD_GUI=OFF -DAK_BUILD_EVALUATOR=ON \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$PWD/.deps/root/usr" > /dev/null 2>&1
timeout 200 ninja -C build-h200 autokernel-evaluator autokernel > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; exit 1; }
ak=$root/build-h200/bin/autokernel
s=/tmp/demo-session; rm -rf $s; mkdir -p /tmp/logs
$ak new $s --kernel rmsnorm --kernel softmax --kernel matmul 2>&1 | tail -3
run() {  # kernel budget seconds [extra args]
  local k=$1 b=$2 sec=$3; shift 3
  log "search on $k (budget $b, cap ${sec}s)"
  timeout -s INT "$sec" $ak run $s --agent search --kernel "$k" --budget "$b" --max-reverts 0 --target-speedup 0 \
    --ceiling-fraction 0 "$@" > /tmp/logs/run-$k.log 2>&1; echo "exit $?"
  grep -E "kept|moved on|nothing new" /tmp/logs/run-$k.log | tail -6
  cp $s/results.tsv /tmp/logs/ 2>/dev/null; tar -C /tmp -czf "$out/loop.tgz" demo-session logs
}
run rmsnorm ${AK_RMS_BUDGET:-40} 55
run softmax ${AK_SOFTMAX_BUDGET:-40} 55
run matmul ${AK_MATMUL_BUDGET:-24} 70
log "command agent planting a failing kernel"
timeout -s INT 30 $ak run $s --agent command --kernel rmsnorm --budget 2 --max-reverts 0 \
  --command "sh $root/tests/fixtures/agents/plant_failing_kernel.sh {kernel}" > /tmp/logs/run-command.log 2>&1; echo "exit $?"
tail -6 /tmp/logs/run-command.log
$ak session summary $s 2>&1 | tee /tmp/logs/summary.txt
cp $s/results.tsv /tmp/logs/
tar -C /tmp -czf "$out/loop.tgz" demo-session logs
log done
