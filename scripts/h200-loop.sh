#!/usr/bin/env bash
# Records a loop session on the GPU machine and leaves $OUT/loop.tgz with the session and the logs.
#
#   AK_LOOP_KERNELS   what to run, "name:budget:seconds ..." in order, e.g. "rmsnorm:80:90 softmax:80:90".
#                     The search agent runs with the default move-on rules, except the 2x-over-the-starter
#                     rule, which is off (--target-speedup 0): the memory-bound targets are 90 % of the copy
#                     ceiling, more than 2x away from the starters. The sweep ends a kernel when it has no
#                     change left, when 90 % of the ceiling is reached, or at the budget or the time cap.
#   AK_LOOP_SESSION   a .tgz of an earlier session to continue (default: a new session of every kernel named)
#   AK_COMMAND_AGENT  non-empty: finish with a command agent whose script plants a failing rmsnorm kernel
#                     (it must be recorded as failed and the run must go on)
# Binaries: .h200-bin/ when carried (from scripts/h200-evidence.sh with AK_PACK_BIN=1), else a fresh build.
#   carry: .deps (scripts/fetch-gpu-deps.sh) and, optionally, .h200-bin
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-$PWD/h200-out}; mkdir -p "$out"
t0=$(date +%s)
log() { echo "=== $* (t+$(( $(date +%s) - t0 ))s)"; }
export PATH=/opt/torch/.venv/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
if [[ -x .h200-bin/autokernel && -x .h200-bin/autokernel-evaluator ]]; then
  ak=$root/.h200-bin/autokernel
  torch_lib=$(python3 -c 'import torch,os;print(os.path.join(os.path.dirname(torch.__file__),"lib"))')
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$torch_lib
  log "using the carried binaries"
else
  log build
  torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')
  cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DAK_BUILD_GUI=OFF -DAK_BUILD_EVALUATOR=ON \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$PWD/.deps/root/usr" > /dev/null 2>&1
  timeout 240 ninja -C build-h200 autokernel-evaluator autokernel > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; exit 1; }
  ak=$root/build-h200/bin/autokernel
fi
$ak info 2>&1 | head -3
s=/tmp/demo-session; rm -rf $s /tmp/logs; mkdir -p /tmp/logs
specs=${AK_LOOP_KERNELS:-rmsnorm:80:90 softmax:80:90 layernorm:80:90 cross_entropy:80:120 matmul:24:70}
if [[ -n "${AK_LOOP_SESSION:-}" ]]; then
  tar -C /tmp -xzf "$AK_LOOP_SESSION" demo-session logs && log "continuing $(wc -l < $s/results.tsv) rows"
else
  args=(); for spec in $specs; do args+=(--kernel "${spec%%:*}"); done
  $ak new $s "${args[@]}" 2>&1 | tail -3
fi
pack() { cp $s/results.tsv /tmp/logs/ 2>/dev/null; tar -C /tmp -czf "$out/loop.tgz" demo-session logs; }
for spec in $specs; do
  IFS=: read -r k b sec <<< "$spec"
  log "search on $k (budget $b, cap ${sec}s)"
  timeout -s INT "$sec" $ak run $s --agent search --kernel "$k" --budget "$b" --target-speedup 0 \
    > /tmp/logs/run-$k.log 2>&1; echo "exit $?"
  grep -E "kept|moved on|nothing new|reached|budget" /tmp/logs/run-$k.log | tail -8
  pack
done
if [[ -n "${AK_COMMAND_AGENT:-}" ]]; then
  log "command agent planting a failing kernel"
  timeout -s INT 30 $ak run $s --agent command --kernel rmsnorm --budget 2 --max-reverts 0 \
    --command "sh $root/tests/fixtures/agents/plant_failing_kernel.sh {kernel}" > /tmp/logs/run-command.log 2>&1; echo "exit $?"
  tail -6 /tmp/logs/run-command.log
fi
$ak session summary $s 2>&1 | tee /tmp/logs/summary.txt
pack
log done
