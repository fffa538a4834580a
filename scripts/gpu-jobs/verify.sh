#!/usr/bin/env bash
# GPU job of `autokernel verify` (issue 10, docs/verify.md), call 2 of 2026-12-02: the timing fix again and
# the sizes of the call-3 pipeline.
#   1. test_verify_gpu, all of it (the starters in llama-160m and gpt2, a planted wrong kernel, a crash,
#      fallbacks, and the A/A test: llama-160m with nothing routed times as itself);
#   2. the bias of the old timing, found: gpt2 batch 2 seq 256 (the configuration where the old method
#      measured 1.31x with nothing substituted), the new A/A (graph + eager) and, in the same process, the
#      old method on the unmodified model against itself (AK_VERIFY_OLD_TIMING=1), with and without the
#      substitution toggled before each run;
#   3. timed steps of the call-3 pipeline on llama-160m batch 8 seq 1024 fp16: profile, new --from-profile,
#      run --agent search (a small budget).
# Usage: scripts/gpu-jobs/verify.sh BIN_DIR. Writes everything under $OUT/verify/; the summary last.
# targets: autokernel autokernel-evaluator test_verify_gpu
# cap: 50 seconds
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

left() { echo $((48 - ($(date +%s) - t0))); }
say "1. test_verify_gpu"
if [[ -x $bin/test_verify_gpu ]]; then
  timeout 20 "$bin/test_verify_gpu" > "$out/test_verify_gpu.log" 2>&1
  note "test_verify_gpu: exit $? ($(grep -cE '^\[       OK \]' "$out/test_verify_gpu.log") passed, $(grep -cE '^\[  FAILED  \] [A-Za-z].* \(' "$out/test_verify_gpu.log") failed)"
  grep -E '^\[ +(OK|FAILED) +\]|Failure|Expected|Which is|evaluates to|A/A ratio' "$out/test_verify_gpu.log" | head -24
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

say "2. gpt2 b2 s256 fp16, nothing substituted: new A/A and the old method ($(left)s left)"
"$ak" new "$work/gpt2" --kernel rmsnorm --shapes rmsnorm:4096x4096 > "$out/gpt2-new.log" 2>&1 || tail -3 "$out/gpt2-new.log"
AK_VERIFY_OLD_TIMING=1 verify gpt2-b2s256-aa "$work/gpt2" 9 --model gpt2 --batch 2 --seq 256 --iterations 20
grep -E 'old timing method' "$out/gpt2-b2s256-aa-verify.txt" | tee -a "$summary"

say "3. pipeline steps, llama-160m b8 s1024 fp16 ($(left)s left)"
p0=$(date +%s)
timeout 9 "$ak" profile --model llama-160m --batch 8 --seq 1024 --dtype fp16 --out "$out/llama-profile" > "$out/llama-profile.log" 2>&1
note "profile: exit $? in $(($(date +%s) - p0)) s"; tail -3 "$out/llama-profile.log"
rm -f "$out/llama-profile/trace.json"
if [[ -s $out/llama-profile/profile.json ]]; then
  p0=$(date +%s)
  "$ak" new "$work/llama-p" --from-profile "$out/llama-profile/profile.json" --top 8 --min-share 0.005 > "$out/llama-p-new.log" 2>&1
  note "new --from-profile: exit $? in $(($(date +%s) - p0)) s"; head -12 "$out/llama-p-new.log" | tee -a "$summary"
  budget=6; rt=$(( $(left) - 3 )); (( rt > 14 )) && rt=14
  if (( rt > 4 )); then
    p0=$(date +%s)
    timeout -s INT -k 3 $rt "$ak" run "$work/llama-p" --agent search --budget $budget --max-reverts 1 > "$out/llama-p-run.log" 2>&1
    note "run --budget $budget: exit $? in $(($(date +%s) - p0)) s (limit $rt s)"
    grep -E '^\[..:..:..\] exp' "$out/llama-p-run.log" | cut -c1-200 | tee -a "$summary"
    "$ak" session summary "$work/llama-p" > "$out/llama-p-summary.txt" 2>&1; head -14 "$out/llama-p-summary.txt"
  fi
fi

say "done"
echo "---- verify job summary (details in \$OUT/verify/)"
cat "$summary"
rm -rf "$work"
