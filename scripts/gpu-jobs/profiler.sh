#!/usr/bin/env bash
# GPU job of the model profiler (issue 9; docs/profiler.md): autokernel-profiler on the H200.
#   1. each built-in model profiled at batch 8 (fp16 inference; GPT-2 and llama-160m also bf16 training;
#      llama-7b-layers also bf16 inference), a table of kernels, GPU time, busy vs CUDA events,
#      attribution and overhead, and the top kernels of each;
#   2. a small GPT-like model exported with torch.jit.trace, profiled by our TorchScript route and by
#      torch.profiler (kernel totals per iteration side by side; one CUPTI client at a time, so two runs);
#   3. the injection route on a Python training script (train_small.py) with NVTX ranges; then an overhead
#      experiment (AK_PROFILER_API_RECORDS=runtime|driver|none, AK_PROFILER_RECORD_INPUTS=0 on llama-160m);
#   4. $OUT/profiler/kernel_names.tsv: every unique (kernel name, op, op stack) of these profiles, for the
#      classification fixture; `autokernel profile` on one profile when the CLI has the command;
#   5. with the time left, the profiler's GPU tests (test_profiler_gpu: built-in models with >= 95 %
#      attribution, kernel time vs CUDA events, TorchScript, the injection route on a CUDA program and a
#      torch script).
# Usage: scripts/gpu-jobs/profiler.sh BIN_DIR. Writes everything under $OUT/profiler/; prints the summary last.
# targets: autokernel-profiler autokernel-inject test_profiler_gpu test_profiler autokernel
# cap: 240 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: profiler.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/profiler
mkdir -p "$out"
here=$root/scripts/gpu-jobs/profiler
work=$(mktemp -d /tmp/profiler-job.XXXXXX)
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)"; }
# The time budget follows this file's cap line (which h200-batch.sh enforces), so a shortened cap still
# ends with the summary: every step gets at most the time left minus a reserve for the summary.
cap=$(grep -m1 '^# cap:' "$0" | grep -o '[0-9]\+' | head -1); cap=${cap:-240}
left() { echo $(( cap - 14 - ($(date +%s) - t0) )); }
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
py=$(command -v python3)
prof=$bin/autokernel-profiler
export AK_INJECT_LIBRARY=${AK_INJECT_LIBRARY:-$(dirname "$bin")/lib/libautokernel-inject.so}
export AK_TEST_PYTHON=$py

say "binaries"
ls -la "$prof" "$AK_INJECT_LIBRARY" "$bin/test_profiler_gpu" 2>&1
ldd "$prof" | grep -E "cupti|torch_cuda|cudart|libcuda|not found" | tee "$out/ldd.txt"
ldd "$AK_INJECT_LIBRARY" | grep -E "cupti|not found"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader

# Runs the profiler with a time limit; keeps stderr in $out/NAME.log; prints the outcome line.
profile() {  # profile NAME SECONDS ARGS...
  local name=$1 secs=$2; shift 2
  local l; l=$(left); (( secs > l )) && secs=$l
  if (( secs < 8 )); then echo "$name: skipped (no time left within the cap)"; return 1; fi
  timeout -k 5 "$secs" "$prof" --out "$out/$name.json" "$@" > "$out/$name.stdout" 2> "$out/$name.log"
  local rc=$?
  echo "$name: exit $rc: $(tail -1 "$out/$name.log" | cut -c1-220)"
  if [[ $rc -ne 0 ]]; then echo "--- $name.log (last 25 lines):"; tail -25 "$out/$name.log"; fi
  return $rc
}

say "1. built-in models (batch 8)"
profiles=()
run_model() {  # run_model NAME SECONDS ARGS...
  local name=$1; profile "$@" --warmup 3 --iterations 10 && profiles+=("$out/$name.json")
}
run_model gpt2-fp16-inference 20 --model gpt2 --batch 8 --seq 1024 --dtype fp16
run_model gpt2-bf16-training 25 --model gpt2 --batch 8 --seq 1024 --dtype bf16 --mode training
run_model llama-160m-fp16-inference 20 --model llama-160m --batch 8 --seq 1024 --dtype fp16
run_model llama-160m-bf16-training 25 --model llama-160m --batch 8 --seq 1024 --dtype bf16 --mode training
run_model llama-7b-layers-fp16-inference 25 --model llama-7b-layers --batch 8 --seq 1024 --dtype fp16
run_model llama-7b-layers-bf16-inference 25 --model llama-7b-layers --batch 8 --seq 1024 --dtype bf16
run_model bert-base-fp16-inference 20 --model bert-base --batch 8 --seq 512 --dtype fp16
for f in "${profiles[@]}"; do echo "--- top kernels of $(basename "$f")"; $py "$here/summarize.py" top "$f" 10; done > "$out/top-kernels.txt" 2>&1
head -c 9000 "$out/top-kernels.txt"

say "2. TorchScript: ours vs torch.profiler on the same traced model"
if (( $(left) > 40 )) && timeout 30 $py "$here/gpt_like.py" export "$work/gpt_like.pt" > "$out/gpt_like-export.log" 2>&1; then
  cat "$out/gpt_like-export.log" | tail -2
  profile torchscript-gpt-like 40 --torchscript "$work/gpt_like.pt" --input 8x512:int64:0-50257 --warmup 3 --iterations 10 &&
    profiles+=("$out/torchscript-gpt-like.json")
  timeout $(( $(left) > 40 ? 30 : 8 )) $py "$here/gpt_like.py" torch-profile "$work/gpt_like.pt" 3 10 "$out/torch-profiler-trace.json" > "$out/torch-profiler.log" 2>&1 ||
    { echo "torch.profiler run failed:"; tail -20 "$out/torch-profiler.log"; }
  tail -1 "$out/torch-profiler.log"
  $py "$here/summarize.py" table "$out/torchscript-gpt-like.json" 2>&1 | tail -2
  rm -f "$out/torch-profiler-trace.json"
else
  echo "export skipped (no time left) or failed:"; tail -20 "$out/gpt_like-export.log" 2>/dev/null
fi

say "3. injection route: python train_small.py"
profile inject-train-small 60 -- $py "$here/train_small.py" && {
  profiles+=("$out/inject-train-small.json")
  tail -2 "$out/inject-train-small.stdout"
  $py "$here/summarize.py" top "$out/inject-train-small.json" 12
}

say "3b. overhead experiment: llama-160m fp16 inference with fewer CUPTI API records / no input shapes"
exp=()
for v in runtime driver none; do
  AK_PROFILER_API_RECORDS=$v profile "overhead-api-$v" 20 --model llama-160m --batch 8 --seq 1024 --warmup 3 --iterations 10 &&
    exp+=("$out/overhead-api-$v.json")
done
AK_PROFILER_RECORD_INPUTS=0 profile overhead-no-inputs 20 --model llama-160m --batch 8 --seq 1024 --warmup 3 --iterations 10 &&
  exp+=("$out/overhead-no-inputs.json")
(( ${#exp[@]} )) && $py "$here/summarize.py" table "$out/llama-160m-fp16-inference.json" "${exp[@]}"

say "4. kernel names and the CLI"
$py "$here/summarize.py" names "$out/kernel_names.tsv" "${profiles[@]}"
if "$bin/autokernel" profile --help > "$out/cli-help.txt" 2>&1; then
  timeout 15 "$bin/autokernel" profile --show "$out/llama-160m-fp16-inference.json" > "$out/cli-show.txt" 2>&1
  echo "autokernel profile --show llama-160m-fp16-inference.json: exit $?"; head -40 "$out/cli-show.txt"
  # Every profile's report, for bench/2026-12-02-h200-profile.md (no GPU needed).
  for f in "${profiles[@]}"; do timeout 15 "$bin/autokernel" profile --show "$f" --top 10 > "$out/show-$(basename "$f" .json).txt" 2>&1; done
  # The user's route end to end: the CLI runs autokernel-profiler beside itself.
  (( $(left) > 60 )) && timeout 30 "$bin/autokernel" profile --model gpt2 --batch 8 --seq 1024 --warmup 2 --iterations 5 --out "$out/cli-gpt2" \
    > "$out/cli-gpt2.txt" 2>&1
  echo "autokernel profile --model gpt2: exit $?"; head -30 "$out/cli-gpt2.txt"
else
  echo "autokernel has no 'profile' command in this build: $(head -2 "$out/cli-help.txt")"
fi
rm -rf "$work"

say "5. GPU tests (with the time left)"
tl=$(left)
if (( tl < 20 )); then
  echo "no time left for test_profiler_gpu (${tl}s)" | tee "$out/gpu-tests.log"
else
  echo "test time limit ${tl}s"
  timeout -k 5 "$tl" "$bin/test_profiler_gpu" > "$out/gpu-tests.log" 2>&1
  rc=$?; echo "test_profiler_gpu exit $rc"; (( rc == 124 || rc == 137 )) && { echo "--- timed out; last lines:"; tail -15 "$out/gpu-tests.log"; }
  grep -E "^\[       OK \]|^\[  FAILED  \] .* ms\)$|^\[  SKIPPED \] .* ms\)$|^\[profile\]|^\[events\]|^\[python\]|^\[torchscript\]" "$out/gpu-tests.log" | head -60
  if grep -q "^\[  FAILED" "$out/gpu-tests.log"; then
    echo "--- failures:"; grep -B2 -A25 -E "Failure$|error: " "$out/gpu-tests.log" | head -150
  fi
fi

say "summary"
$py "$here/summarize.py" table "${profiles[@]}" ${exp[@]+"${exp[@]}"} 2>&1 | head -18
echo "torch.profiler on the same TorchScript: $(tail -1 "$out/torch-profiler.log" 2>/dev/null)"
echo "kernel_names.tsv: $(( $(wc -l < "$out/kernel_names.tsv" 2>/dev/null || echo 1) - 1 )) rows"
echo "gpu tests: $(grep -c '^\[       OK \]' "$out/gpu-tests.log") ok, $(grep -cE '^\[  FAILED  \] .* ms\)$' "$out/gpu-tests.log") failed, $(grep -cE '^\[  SKIPPED \] .* ms\)$' "$out/gpu-tests.log") skipped"
grep -E '^\[  FAILED  \] .* ms\)$' "$out/gpu-tests.log" | head -8
