#!/usr/bin/env bash
# GPU job of `autokernel verify` (issue 10, docs/verify.md), call 1 of 2026-12-02: the end-to-end timing fix.
#   1. test_verify_gpu, the A/A test: llama-160m with nothing routed to our kernels times as itself
#      (graph replays within +-3 % of 1.00, eager within +-10 %);
#   2. gpt2, batch 8 seq 1024 fp16, nothing substituted (the session's rmsnorm has no call in gpt2): the
#      A/A control and the "speedup" of an unmodified model, in CUDA graph replays and eager passes;
#   3. llama-160m, batch 8 seq 1024 fp16, with the rotary_embedding and fused_mlp starters substituted:
#      graph capture with our kernels in it, speedup against the A/A floor.
# Each step is timed (the call-3 pipeline is sized from these times).
# Usage: scripts/gpu-jobs/verify.sh BIN_DIR. Writes everything under $OUT/verify/; the summary last.
# targets: autokernel autokernel-evaluator test_verify_gpu
# cap: 40 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: verify.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/verify
mkdir -p "$out"
work=$(mktemp -d /tmp/verify-job.XXXXXX)
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$out/log.txt"; }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=$work/cache
ak=$bin/autokernel
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

say "1. test_verify_gpu (A/A test)"
if [[ -x $bin/test_verify_gpu ]]; then
  timeout 14 "$bin/test_verify_gpu" --gtest_filter='VerifyGpu.AnUnmodifiedModelTimesAsItself' > "$out/test_verify_gpu.log" 2>&1
  note "test_verify_gpu A/A: exit $? ($(grep -cE '^\[       OK \]' "$out/test_verify_gpu.log") passed, $(grep -cE '^\[  FAILED  \] [A-Za-z]' "$out/test_verify_gpu.log") failed)"
  grep -E 'Failure|Expected|Which is|speedup|noise|graph|eager' "$out/test_verify_gpu.log" | head -14
else
  note "test_verify_gpu: not built"
fi

# verify LABEL SESSION TIMEOUT ARGS...: the text report and verify.json, timed.
verify() {
  local label=$1 s=$2 t=$3; shift 3
  local s0=$(date +%s)
  # stderr with the seconds since the start of this verify in front of every line (the step times)
  timeout "$t" "$ak" verify "$s" "$@" --unevaluated --timeout $((t - 1)) > "$out/$label-verify.txt" \
    2> >(while IFS= read -r l; do echo "+$(( $(date +%s%N) / 1000000 - s0 * 1000 ))ms $l"; done > "$out/$label-verify.err")
  local rc=$?
  sleep 0.2
  note "$label verify: exit $rc in $(($(date +%s) - s0)) s"
  grep -E '^verify|graph|eager|A/A|speedup|note:|not measured' "$out/$label-verify.txt" | head -12 | tee -a "$summary"
  grep -E '\[verify\]' "$out/$label-verify.err" | tail -14 | tee "$out/$label-progress.txt"
  [[ $rc != 0 ]] && tail -8 "$out/$label-verify.err"
  cp "$s/verify.json" "$out/$label-verify.json" 2>/dev/null
}

say "2. gpt2 b8 s1024 fp16, nothing substituted"
"$ak" new "$work/gpt2" --kernel rmsnorm --shapes rmsnorm:4096x4096 > "$out/gpt2-new.log" 2>&1 || tail -3 "$out/gpt2-new.log"
verify gpt2-aa "$work/gpt2" 11 --model gpt2 --batch 8 --seq 1024 --iterations 20

say "3. llama-160m b8 s1024 fp16, rotary_embedding + fused_mlp starters"
"$ak" new "$work/llama" --kernel rotary_embedding --kernel fused_mlp \
  --shapes rotary_embedding:8x12x1024x64 --shapes fused_mlp:8192x768x3072 > "$out/llama-new.log" 2>&1 || tail -3 "$out/llama-new.log"
verify llama-starters "$work/llama" 12 --model llama-160m --batch 8 --seq 1024 --iterations 20

say "done"
echo "---- verify job summary (details in \$OUT/verify/)"
cat "$summary"
rm -rf "$work"
