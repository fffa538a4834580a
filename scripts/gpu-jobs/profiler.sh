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
#   0. (part "debug") the injection library on python + torch directly, several ways, with evidence for a
#      crash: AK_INJECT_TRACE=1 (each step of the library, a backtrace on SIGSEGV), python -X faulthandler,
#      the bisecting switches (AK_INJECT_EXIT_FLUSH=0, AK_INJECT_CONTEXT_FLUSH=0, AK_INJECT_NVTX=0), gdb when
#      the machine has it, LD_DEBUG=bindings of the library's symbols.
#   events: test_profiler_gpu's KernelTimeAgreesWithCudaEvents alone;
#   bisect: the injection library as it was before the exit fix (its sources from .old-src/old.tar, a
#      `git archive acd5adb` carried as for the harness job, built here against this build's static libraries) and today's sources
#      built the old way (the host's libstdc++), on python + torch: which change removed the crash;
#   overhead2: llama-160m fp16 inference profiled with input capture every iteration / once, and with
#      kernel attribution by API records / API callbacks (AK_PROFILER_RECORD_INPUTS, AK_PROFILER_ATTRIBUTION).
#   cli-inject: `autokernel profile -- python train_small.py` (the user's route end to end, its report);
#   overhead3: llama-160m fp16 inference with input capture every iteration (before) and once (after).
# Parts: AK_PROFILER_PARTS (default below) picks "debug events bisect overhead2 cli-inject overhead3 models
# torchscript inject overhead names tests".
# Usage: scripts/gpu-jobs/profiler.sh BIN_DIR. Writes everything under $OUT/profiler/; prints the summary last.
# targets: autokernel-profiler autokernel-inject test_profiler_gpu test_profiler autokernel
# cap: 60 seconds
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
reserve=14  # seconds kept for the summary (less when only the quick parts run: below)
left() { echo $(( cap - reserve - ($(date +%s) - t0) )); }
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
py=$(command -v python3)
prof=$bin/autokernel-profiler
export AK_INJECT_LIBRARY=${AK_INJECT_LIBRARY:-$(dirname "$bin")/lib/libautokernel-inject.so}
export AK_TEST_PYTHON=$py

parts=${AK_PROFILER_PARTS:-cli-inject tests overhead3}
want() { [[ " $parts " == *" $1 "* ]]; }
want models || reserve=3
profiles=()
exp=()

say "binaries"
ls -la "$prof" "$AK_INJECT_LIBRARY" "$bin/test_profiler_gpu" 2>&1
ldd "$prof" | grep -E "cupti|torch_cuda|cudart|libcuda|not found" | tee "$out/ldd.txt"
ldd "$AK_INJECT_LIBRARY" | grep -E "cupti|stdc|gcc_s|not found"
nm -D --defined-only "$AK_INJECT_LIBRARY" | grep -c " T " | sed 's/^/exported functions of the injection library: /'
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader

# Runs the profiler with a time limit; keeps stderr in $out/NAME.log; prints the outcome line.
profile() {  # profile NAME SECONDS ARGS...
  local name=$1 secs=$2; shift 2
  local l; l=$(left); (( secs > l )) && secs=$l
  if (( secs < 5 )); then echo "$name: skipped (no time left within the cap)"; return 1; fi
  timeout -k 5 "$secs" "$prof" --out "$out/$name.json" "$@" > "$out/$name.stdout" 2> "$out/$name.log"
  local rc=$?
  echo "$name: exit $rc: $(tail -1 "$out/$name.log" | cut -c1-220)"
  if [[ $rc -ne 0 ]]; then echo "--- $name.log (last 25 lines):"; tail -25 "$out/$name.log"; fi
  return $rc
}

# Runs a command under the injection library directly (no profiler in between); keeps its output in
# $out/debug-NAME.log and says how it ended and whether the library wrote its profile.
inject() {  # inject NAME SECONDS [ENV=VALUE...] -- COMMAND...
  local name=$1 secs=$2; shift 2
  local envs=()
  while [[ $# -gt 0 && $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local l; l=$(left); (( secs > l )) && secs=$l
  if (( secs < 4 )); then echo "debug-$name: skipped (no time left)"; return 2; fi
  local d=$work/inject-$name; mkdir -p "$d"
  local s0; s0=$(date +%s%N)
  env CUDA_INJECTION64_PATH="$AK_INJECT_LIBRARY" AK_INJECT_OUT="$d" AK_INJECT_TRACE=1 ${envs[@]+"${envs[@]}"} \
    timeout -k 2 "$secs" "$@" > "$out/debug-$name.log" 2>&1
  local rc=$?
  local ms=$(( ($(date +%s%N) - s0) / 1000000 ))
  local wrote; wrote=$(ls "$d" | tr '\n' ' ')
  local kernels=""; for f in "$d"/inject-*.json; do [[ -f $f ]] && kernels+="$(grep -o '"name"' "$f" | wc -l) names in $(basename "$f") "; done
  echo "debug-$name: exit $rc (${ms} ms) ${envs[*]:-}; files: ${wrote:-none}; $kernels" | tee -a "$out/debug-summary.txt"
  if (( rc != 0 )); then tail -40 "$out/debug-$name.log"; else grep -E "exit handler: done|signal" "$out/debug-$name.log" | tail -2; fi
  return $rc
}

if want debug; then
  say "0. injection library on python + torch directly"
  printf 'import torch\nx = torch.ones(1, device="cuda")\ntorch.cuda.synchronize()\nprint("minimal: ok", float(x.sum()))\n' > "$work/minimal.py"
  inject minimal 12 -- $py -X faulthandler "$work/minimal.py"; rc_min=$?
  inject train 20 -- $py -X faulthandler "$here/train_small.py"; rc_train=$?
  # Bisect on the quicker script that crashes.
  if (( rc_min != 0 )); then bis=("$work/minimal.py"); bname=minimal; else bis=("$here/train_small.py"); bname=train; fi
  if (( rc_min != 0 || rc_train != 0 )); then
    inject "$bname-no-exit-flush" 15 AK_INJECT_EXIT_FLUSH=0 -- $py "${bis[@]}"
    inject "$bname-no-nvtx" 15 AK_INJECT_NVTX=0 -- $py "${bis[@]}"
    inject "$bname-no-context-flush" 15 AK_INJECT_CONTEXT_FLUSH=0 -- $py "${bis[@]}"
    # The same script without the library at all (does python + torch alone exit cleanly?).
    if (( $(left) > 6 )); then timeout -k 2 $(( $(left) - 2 )) $py "${bis[@]}" > "$out/debug-$bname-without-library.log" 2>&1
      echo "debug-$bname-without-library: exit $?" | tee -a "$out/debug-summary.txt"; fi
    if command -v gdb > /dev/null && (( $(left) > 12 )); then
      env CUDA_INJECTION64_PATH="$AK_INJECT_LIBRARY" AK_INJECT_OUT="$work" timeout -k 2 $(( $(left) - 4 )) \
        gdb -q -batch -ex "handle SIGSEGV stop" -ex run -ex "thread apply all bt 12" --args $py "${bis[@]}" > "$out/debug-gdb.log" 2>&1
      echo "gdb: exit $?"; grep -A40 "SIGSEGV" "$out/debug-gdb.log" | head -60
    else
      echo "gdb: $(command -v gdb > /dev/null && echo 'no time left' || echo 'not on this machine')"
    fi
  fi
  if (( $(left) > 8 )); then
    # Which of the library's undefined symbols bind outside it (and to what), on the minimal script.
    env CUDA_INJECTION64_PATH="$AK_INJECT_LIBRARY" AK_INJECT_OUT="$work" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/ld" \
      timeout -k 2 $(( $(left) - 4 )) $py "$work/minimal.py" > /dev/null 2>&1
    cat "$work"/ld.* 2>/dev/null | grep "binding file [^ ]*libautokernel-inject" | grep -v " to [^ ]*libautokernel-inject" |
      sed 's/^ *[0-9]*: *//' | sort | uniq -c | sort -rn > "$out/debug-ld-bindings.txt"
    echo "LD_DEBUG: $(wc -l < "$out/debug-ld-bindings.txt") distinct bindings of the library's symbols to other files; by file:"
    grep -o " to [^ ]*" "$out/debug-ld-bindings.txt" | sort | uniq -c | sort -rn | head -8
    grep -E "libtorch|libc10|St10filesystem|cxx11" "$out/debug-ld-bindings.txt" | head -8
  fi
fi

if want cli-inject; then
  say "cli-inject: autokernel profile -- python train_small.py"
  timeout -k 2 $(( $(left) > 22 ? 22 : $(left) )) "$bin/autokernel" profile --out "$out/cli-train-small" -- $py "$here/train_small.py" \
    > "$out/cli-train-small.txt" 2>&1
  echo "autokernel profile -- python train_small.py: exit $?"; head -45 "$out/cli-train-small.txt"
  [[ -f $out/cli-train-small/profile.json ]] && { $py "$here/summarize.py" top "$out/cli-train-small/profile.json" 8 2>&1 | head -14; rm -f "$out/cli-train-small/trace.json"; }
fi

if want events; then
  say "events: kernel time vs CUDA events (GPU-bound llama-7b-layers, batch 32)"
  timeout -k 2 $(( $(left) > 25 ? 25 : $(left) )) "$bin/test_profiler_gpu" --gtest_filter=ProfilerGpu.KernelTimeAgreesWithCudaEvents > "$out/events-test.log" 2>&1
  echo "events test: exit $?"; grep -E "^\[events\]|OK \]|FAILED|Failure|Expected|Which is|actual|<=|>=" "$out/events-test.log" | head -40
fi

if want bisect; then
  say "bisect: the old injection library and today's built with the host's libstdc++"
  lib=$(dirname "$bin")/lib
  build_variant() {  # build_variant NAME SOURCE_ROOT (holding profiler/*.cpp) [more g++ flags]
    local name=$1 src=$2; shift 2
    g++ -std=c++20 -O1 -g -fPIC -shared -fvisibility=hidden "$@" -I"$src" -I"$root/core" -isystem /usr/local/cuda/include \
      "$src/profiler/injection.cpp" "$src/profiler/cupti_activity.cpp" -o "$work/lib$name.so" -Wl,--no-undefined -Wl,--as-needed \
      -Wl,--start-group "$lib/libak_profiler_core.a" "$lib/libak_profiler_args.a" "$lib/libak_profile.a" "$lib/libak_analysis.a" \
      "$lib/libak_gpu.a" "$lib/libak_util.a" -Wl,--end-group -L/usr/local/cuda/lib64 -lcupti -ldl > "$out/bisect-build-$name.log" 2>&1 ||
      { echo "build of $name failed:"; tail -8 "$out/bisect-build-$name.log"; }
  }
  mkdir -p "$work/today/profiler" && cp "$root"/core/profiler/{injection.cpp,cupti_activity.cpp,cupti_activity.h} "$work/today/profiler/"
  if [[ -f $root/.old-src/old.tar ]]; then
    mkdir -p "$work/old" && tar -C "$work/old" -xf "$root/.old-src/old.tar" core/profiler/injection.cpp \
      core/profiler/cupti_activity.cpp core/profiler/cupti_activity.h && build_variant old-inject "$work/old/core" &
  else
    echo "bisect: no .old-src/old.tar (git archive -o .old-src/old.tar acd5adb), the old library is not built"
  fi
  build_variant today-shared-runtime "$work/today" & wait
  printf 'import torch\nx = torch.ones(1, device="cuda")\ntorch.cuda.synchronize()\nprint("minimal: ok", float(x.sum()))\n' > "$work/minimal.py"
  if [[ -f $work/libold-inject.so ]]; then
    inject old-minimal 10 CUDA_INJECTION64_PATH="$work/libold-inject.so" -- $py -X faulthandler "$work/minimal.py"; rc_old=$?
    if (( rc_old == 0 )); then inject old-train 16 CUDA_INJECTION64_PATH="$work/libold-inject.so" -- $py -X faulthandler "$here/train_small.py"; rc_old=$?; bis=$here/train_small.py; else bis=$work/minimal.py; fi
    if (( rc_old != 0 )) && [[ -f $work/libtoday-shared-runtime.so ]]; then
      inject today-shared-runtime 16 CUDA_INJECTION64_PATH="$work/libtoday-shared-runtime.so" -- $py "$bis"
    fi
  fi
fi

if want overhead2; then
  say "overhead2: input capture every iteration vs once; attribution by API records vs callbacks (llama-160m fp16, batch 8)"
  exp=()
  for v in every:records once:records once:callbacks; do
    AK_PROFILER_RECORD_INPUTS=${v%%:*} AK_PROFILER_ATTRIBUTION=${v#*:} profile "overhead-${v%%:*}-${v#*:}" 12 \
      --model llama-160m --batch 8 --seq 1024 --dtype fp16 --warmup 3 --iterations 10 && exp+=("$out/overhead-${v%%:*}-${v#*:}.json")
  done
  (( ${#exp[@]} )) && $py "$here/summarize.py" table "${exp[@]}"
  # Warnings, and the input shapes of the two capture modes op by op (the ranking's inputs).
  (( ${#exp[@]} >= 2 )) && $py - "${exp[@]}" <<'PYEOF'
import json, os, sys
def ops(path):
    p = json.load(open(path)); st = p["strings"]; cols = p["op_columns"]
    rows = []
    for r in p["ops"]:
        d = dict(zip(cols, r))
        rows.append((st[d["name"]], json.dumps([[st[i[0]]] + i[1:] for i in d["inputs"]])))
    return rows, p.get("warnings", [])
runs = {os.path.basename(f): ops(f) for f in sys.argv[1:]}
for name, (rows, warnings) in runs.items():
    print("%s: %d ops, %d with inputs, warnings %s" % (name, len(rows), sum(1 for r in rows if r[1] != "[]"), warnings[:2]))
a = runs.get("overhead-every-records.json"); b = runs.get("overhead-once-records.json")
if a and b:
    same = sum(1 for x, y in zip(a[0], b[0]) if x == y)
    print("ops with the same name and inputs, every vs once: %d of %d / %d" % (same, len(a[0]), len(b[0])))
PYEOF
  if command -v gdb > /dev/null && [[ -f $work/libold-inject.so ]] && (( ${rc_old:-0} != 0 )) && (( $(left) > 10 )); then
    env CUDA_INJECTION64_PATH="$work/libold-inject.so" AK_INJECT_OUT="$work" timeout -k 2 $(( $(left) - 2 )) \
      gdb -q -batch -ex run -ex "thread apply all bt 15" --args $py "$bis" > "$out/bisect-gdb.log" 2>&1
    echo "gdb on the old library: exit $?"; grep -B2 -A45 "SIGSEGV" "$out/bisect-gdb.log" | head -70
  else echo "gdb: $(command -v gdb || echo 'not on this machine'), old library exit ${rc_old:-?}, $(left)s left"; fi
fi

if want models; then
say "1. built-in models (batch 8)"
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
fi

if want torchscript; then
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

fi

if want inject; then
say "3. injection route: python train_small.py"
profile inject-train-small 60 -- $py "$here/train_small.py" && {
  profiles+=("$out/inject-train-small.json")
  tail -2 "$out/inject-train-small.stdout"
  $py "$here/summarize.py" top "$out/inject-train-small.json" 12
}

fi

if want overhead; then
say "3b. overhead experiment: llama-160m fp16 inference with fewer CUPTI API records / no input shapes"
for v in runtime driver none; do
  AK_PROFILER_API_RECORDS=$v profile "overhead-api-$v" 20 --model llama-160m --batch 8 --seq 1024 --warmup 3 --iterations 10 &&
    exp+=("$out/overhead-api-$v.json")
done
AK_PROFILER_RECORD_INPUTS=0 profile overhead-no-inputs 20 --model llama-160m --batch 8 --seq 1024 --warmup 3 --iterations 10 &&
  exp+=("$out/overhead-no-inputs.json")
(( ${#exp[@]} )) && $py "$here/summarize.py" table "$out/llama-160m-fp16-inference.json" "${exp[@]}"

fi

if want names; then
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
fi

if want tests; then
say "5. GPU tests (with the time left)"
tl=$(left); want overhead3 && tl=$(( tl - 10 ))
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

fi

if want overhead3; then
  say "overhead3: llama-160m fp16 inference, input capture every iteration (before) vs once (after)"
  for v in every once; do
    AK_PROFILER_RECORD_INPUTS=$v profile "overhead-inputs-$v" 8 --model llama-160m --batch 8 --seq 1024 --dtype fp16 \
      --warmup 3 --iterations 10 && exp+=("$out/overhead-inputs-$v.json")
  done
fi
rm -rf "$work"

say "summary"
(( ${#profiles[@]} + ${#exp[@]} )) &&
$py "$here/summarize.py" table "${profiles[@]}" ${exp[@]+"${exp[@]}"} 2>&1 | head -18
want torchscript && echo "torch.profiler on the same TorchScript: $(tail -1 "$out/torch-profiler.log" 2>/dev/null)"
want names && echo "kernel_names.tsv: $(( $(wc -l < "$out/kernel_names.tsv" 2>/dev/null || echo 1) - 1 )) rows"
want tests && echo "gpu tests: $(grep -c '^\[       OK \]' "$out/gpu-tests.log") ok, $(grep -cE '^\[  FAILED  \] .* ms\)$' "$out/gpu-tests.log") failed, $(grep -cE '^\[  SKIPPED \] .* ms\)$' "$out/gpu-tests.log") skipped"
want tests && grep -E '^\[  FAILED  \] .* ms\)$' "$out/gpu-tests.log" | head -8
want debug && cat "$out/debug-summary.txt" 2>/dev/null
true
