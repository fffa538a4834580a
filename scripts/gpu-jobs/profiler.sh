#!/usr/bin/env bash
# GPU job of the model profiler (issue 9; docs/profiler.md): autokernel-profiler on the H200. Parts, in
# the order they run (AK_PROFILER_PARTS picks some; the default is every part but "overhead"):
#   tests        test_profiler_gpu in full: each built-in model profiles with >= 95 % attribution, kernel
#                time vs CUDA events, TorchScript and its rejected-shapes message, failing and kernel-less
#                commands, the injection route on a small CUDA program and on a Python torch script;
#   models       each built-in model at batch 8 (fp16 inference; GPT-2 and llama-160m also bf16 training),
#                with its profiled vs unprofiled iteration, and the top kernels of each;
#   torchscript  a small GPT-like model exported with torch.jit.trace, profiled by our TorchScript route and
#                by torch.profiler on the same iteration schedule (one CUPTI client at a time: two runs);
#                torch.profiler's kernel names with their counts for the comparison;
#   cli-inject   `autokernel profile -- python train_small.py` (the injection route on a Python training
#                script with NVTX ranges, the user's route end to end) and the same script unprofiled;
#   overhead     input capture (AK_PROFILER_RECORD_INPUTS=every|once|none) on llama-160m fp16 inference,
#                three interleaved rounds, so each mode's profiled iteration has a spread across processes;
#   names        $OUT/profiler/kernel_names.tsv: every unique (kernel name, op, op stack) of these profiles.
# Usage: scripts/gpu-jobs/profiler.sh BIN_DIR. Writes everything under $OUT/profiler/; prints the summary last.
# targets: autokernel-profiler autokernel-inject test_profiler_gpu autokernel
# cap: 100 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: profiler.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/${AK_PROFILER_JOB:-profiler}  # a wrapper job names its own folder
mkdir -p "$out"
here=$root/scripts/gpu-jobs/profiler
work=$(mktemp -d /tmp/profiler-job.XXXXXX)
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)"; }
# The time budget follows this file's cap line (which h200-batch.sh enforces), so a shortened cap still
# ends with the summary: every step gets at most the time left minus a reserve for the summary.
cap=$(grep -m1 '^# cap:' "$0" | grep -o '[0-9]\+' | head -1); cap=${AK_PROFILER_CAP:-${cap:-240}}  # a wrapper job's cap
reserve=4
left() { echo $(( cap - reserve - ($(date +%s) - t0) )); }
at_most() { local l; l=$(left); (( $1 < l )) && echo "$1" || echo "$l"; }
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
py=$(command -v python3)
prof=$bin/autokernel-profiler
export AK_INJECT_LIBRARY=${AK_INJECT_LIBRARY:-$(dirname "$bin")/lib/libautokernel-inject.so}
export AK_TEST_PYTHON=$py

parts=${AK_PROFILER_PARTS:-tests models torchscript cli-inject names}
want() { [[ " $parts " == *" $1 "* ]]; }
profiles=()
exp=()
echo "parts: $parts"

say "binaries"
ls -la "$prof" "$AK_INJECT_LIBRARY" "$bin/test_profiler_gpu" 2>&1
ldd "$prof" | grep -E "cupti|torch_cuda|cudart|libcuda|not found" | tee "$out/ldd.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'

# Runs the profiler with a time limit; keeps stdout and stderr in $out/NAME.{stdout,log}; prints the
# outcome line and the profiler's iteration timing line.
profile() {  # profile NAME SECONDS ARGS...
  local name=$1 secs; secs=$(at_most "$2"); shift 2
  if (( secs < 5 )); then echo "$name: skipped (no time left within the cap)"; return 1; fi
  timeout -k 5 "$secs" "$prof" --out "$out/$name.json" "$@" > "$out/$name.stdout" 2> "$out/$name.log"
  local rc=$?
  echo "$name: exit $rc: $(tail -1 "$out/$name.log" | cut -c1-220)"
  grep -m1 "iteration wall time" "$out/$name.log" | sed 's/^/    /'
  if [[ $rc -ne 0 ]]; then echo "--- $name.log (last 25 lines):"; tail -25 "$out/$name.log"; fi
  return $rc
}

if want tests; then
  say "tests: test_profiler_gpu in full"
  tl=$(at_most 50)
  if (( tl < 20 )); then
    echo "no time left for test_profiler_gpu (${tl}s)" | tee "$out/gpu-tests.log"
  else
    echo "test time limit ${tl}s"
    timeout -k 5 "$tl" "$bin/test_profiler_gpu" > "$out/gpu-tests.log" 2>&1
    rc=$?; echo "test_profiler_gpu exit $rc"; (( rc == 124 || rc == 137 )) && { echo "--- timed out; last lines:"; tail -15 "$out/gpu-tests.log"; }
    grep -E "^\[       OK \]|^\[  FAILED  \] .* ms\)$|^\[  SKIPPED \] .* ms\)$|^\[profile\]|^\[events\]|^\[python\]" "$out/gpu-tests.log" | head -40
    if grep -q "^\[  FAILED" "$out/gpu-tests.log"; then
      echo "--- failures:"; grep -B2 -A25 -E "Failure$|error: " "$out/gpu-tests.log" | head -80
    fi
  fi
fi

if want models; then
  say "models: built-in models (batch 8, --warmup 3 --iterations 10)"
  run_model() {  # run_model NAME SECONDS ARGS...
    local name=$1; profile "$@" --warmup 3 --iterations 10 && profiles+=("$out/$name.json")
  }
  run_model gpt2-fp16-inference 15 --model gpt2 --batch 8 --seq 1024 --dtype fp16
  run_model llama-160m-fp16-inference 15 --model llama-160m --batch 8 --seq 1024 --dtype fp16
  run_model llama-7b-layers-fp16-inference 15 --model llama-7b-layers --batch 8 --seq 1024 --dtype fp16
  run_model bert-base-fp16-inference 15 --model bert-base --batch 8 --seq 512 --dtype fp16
  run_model gpt2-bf16-training 15 --model gpt2 --batch 8 --seq 1024 --dtype bf16 --mode training
  run_model llama-160m-bf16-training 15 --model llama-160m --batch 8 --seq 1024 --dtype bf16 --mode training
  for f in "${profiles[@]}"; do echo "--- top kernels of $(basename "$f")"; $py "$here/summarize.py" top "$f" 10; done > "$out/top-kernels.txt" 2>&1
fi

if want torchscript; then
  say "torchscript: ours vs torch.profiler on the same traced model"
  if (( $(left) > 15 )) && timeout "$(at_most 20)" $py "$here/gpt_like.py" export "$work/gpt_like.pt" > "$out/gpt_like-export.log" 2>&1; then
    tail -1 "$out/gpt_like-export.log"
    profile torchscript-gpt-like 15 --torchscript "$work/gpt_like.pt" --input 8x512:int64:0-50257 --warmup 3 --iterations 10 &&
      profiles+=("$out/torchscript-gpt-like.json")
    timeout "$(at_most 20)" $py "$here/gpt_like.py" torch-profile "$work/gpt_like.pt" 3 10 "$work/torch-profiler-trace.json" \
      "$out/torch-profiler-kernels.tsv" > "$out/torch-profiler.log" 2>&1 ||
      { echo "torch.profiler run failed:"; tail -20 "$out/torch-profiler.log"; }
    tail -1 "$out/torch-profiler.log"
  else
    echo "export skipped (no time left) or failed:"; tail -20 "$out/gpt_like-export.log" 2>/dev/null
  fi
fi

if want cli-inject; then
  say "cli-inject: autokernel profile -- python train_small.py"
  s0=$(date +%s%N)
  timeout -k 2 "$(at_most 25)" "$bin/autokernel" profile --out "$out/cli-train-small" -- $py "$here/train_small.py" \
    > "$out/cli-train-small.txt" 2>&1
  echo "autokernel profile -- python train_small.py: exit $? after $(( ($(date +%s%N) - s0) / 1000000 )) ms"
  head -30 "$out/cli-train-small.txt"
  if [[ -f $out/cli-train-small/profile.json ]]; then
    rm -f "$out/cli-train-small/trace.json"
    $py "$here/summarize.py" nvtx "$out/cli-train-small/profile.json" | tee "$out/cli-train-small-nvtx.txt"
    $py "$here/summarize.py" top "$out/cli-train-small/profile.json" 8 2>&1 | head -10
  fi
  # The same script without the profiler: the whole process's wall time, profiled vs not.
  if (( $(left) > 12 )); then
    s0=$(date +%s%N)
    timeout -k 2 "$(at_most 20)" $py "$here/train_small.py" > "$out/train-small-unprofiled.txt" 2>&1
    echo "python train_small.py unprofiled: exit $? after $(( ($(date +%s%N) - s0) / 1000000 )) ms: $(tail -1 "$out/train-small-unprofiled.txt")"
  fi
fi

if want overhead; then
  say "overhead: input capture every / once / none, llama-160m fp16 inference batch 8, interleaved rounds"
  for round in 1 2 3; do
    for v in every once none; do
      AK_PROFILER_RECORD_INPUTS=$v profile "overhead-inputs-$v-$round" 10 --model llama-160m --batch 8 --seq 1024 --dtype fp16 \
        --warmup 3 --iterations 10 && exp+=("$out/overhead-inputs-$v-$round.json")
    done
  done
  (( ${#exp[@]} )) && $py "$here/summarize.py" overhead "${exp[@]}" | tee "$out/overhead-inputs.txt"
fi

if want names; then
  say "names: kernel_names.tsv"
  (( ${#profiles[@]} )) && $py "$here/summarize.py" names "$out/kernel_names.tsv" "${profiles[@]}"
fi
rm -rf "$work"

say "summary"
(( ${#profiles[@]} )) && $py "$here/summarize.py" table "${profiles[@]}" 2>&1 | head -12
want torchscript && echo "torch.profiler on the same TorchScript: $(tail -1 "$out/torch-profiler.log" 2>/dev/null)"
want cli-inject && head -3 "$out/cli-train-small-nvtx.txt" 2>/dev/null
want overhead && tail -4 "$out/overhead-inputs.txt" 2>/dev/null
want tests && echo "gpu tests: $(grep -c '^\[       OK \]' "$out/gpu-tests.log") ok, $(grep -cE '^\[  FAILED  \] .* ms\)$' "$out/gpu-tests.log") failed, $(grep -cE '^\[  SKIPPED \] .* ms\)$' "$out/gpu-tests.log") skipped"
want tests && grep -E '^\[  FAILED  \] .* ms\)$' "$out/gpu-tests.log" | head -8
true
