#!/usr/bin/env bash
# GPU job of the memory-bound row starters' long-row variants (issue 12): the peeled vector body for rows
# that break 16-byte alignment (PEEL), batched loads (UNROLL), one-pass statistics (ONLINE), rows staged in
# shared memory by cp.async (SMEM_ROW) and rows split across thread-block clusters (CLUSTER).
#   1. `autokernel bench` of two hand-picked configurations per type (the second as --reference, so both
#      are timed side by side with the baseline in one run) at the issue's target rows, fp16, correctness in
#      fp16 only to fit the cap (the suite checks all three dtypes): softmax and cross_entropy at 4096x50257
#      and 8192x50257, rmsnorm and reduce at 4096x8192, 8192x8192, 8192x32768. Each row: latency, the
#      baseline (at::softmax, ...) and the ratio, GB/s and % of a same-size copy (target >= 90 %);
#   2. the GPU suite filtered to these variants (row_kernel_variants.h: each passes the five stages in three
#      dtypes, edge sizes included, timed at the type's large size), as far as its time allows;
#   3. with the time left, `autokernel run --agent search` on softmax from the starter at 4096x50257.
# Usage: scripts/gpu-jobs/kern-mem.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-mem/bench.tsv (every timing row) and $OUT/kern-mem/log.txt; prints the summary last.
# targets: autokernel autokernel-evaluator test_evaluator_gpu
# cap: 150 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: kern-mem.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/kern-mem
mkdir -p "$out"
work=$(mktemp -d /tmp/kern-mem.XXXXXX)
log="$out/log.txt"
tsv="$out/bench.tsv"
: > "$log"
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$log"; }
cap=$(grep -m1 '^# cap:' "$0" | grep -o '[0-9]\+' | head -1); cap=${cap:-150}  # the batch kills the job at its cap
left() { echo $((cap - ($(date +%s) - t0))); }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources  # this branch's headers and starters
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH

# A copy of starter TYPE with some tunables' defaults changed (the launcher passes them as -D).
variant() {  # variant TYPE NAME TUNABLES(NAME=VALUE,...) -> path
  local f="$work/$1-$2.cu"
  cp "$root/kernels/cuda/$1.cu" "$f"
  for kv in ${3//,/ }; do
    grep -qE "@autokernel tunable ${kv%%=*} = " "$f" || echo "WARNING: $1 has no tunable ${kv%%=*}" | tee -a "$log"
    sed -E -i "s/(@autokernel tunable ${kv%%=*} = )[0-9]+/\1${kv#*=}/" "$f"
  done
  echo "$f"
}

# ---- summary ----------------------------------------------------------------------------------------------
summary() {
  say "bench details"
  grep -E "^#|^  " "$log" | grep -vE "^=== " | cut -c1-400 | head -60
  say "summary (pct_copy target >= 90; speedup = baseline / ours, A = candidate, ref = B)"
  column -t -s $'\t' "$tsv" 2>/dev/null || cat "$tsv"
  rm -rf "$work"
}
trap 'echo "=== interrupted at the cap"; summary; exit 130' INT TERM

printf 'type\tconfig\tshape\tours_us\tbaseline_us\tbaseline\tspeedup\tgb_s\tpct_copy\tref_us\tref_pct_copy\n' > "$tsv"
bench() {  # bench TYPE SHAPES CAP CONFIG_A CONFIG_B: A is the candidate, B the --reference
  local type=$1 shapes=$2 cap=$3 a=$4 b=$5
  if (( $(left) < cap + 5 )); then say "bench $type skipped: $(left)s left"; return; fi
  say "bench $type  A=$a  B(reference)=$b"
  local fa fb
  fa=$(variant "$type" A "$a"); fb=$(variant "$type" B "$b")
  timeout "$cap" "$bin/autokernel" bench "$fa" --type "$type" --dtype fp16 --check-dtypes fp16 --shapes "$shapes" \
    --timeout $((cap - 3)) --reference "$fb" --json > "$work/bench-$type.json" 2> "$work/bench-$type.err"
  echo "rc=$? (0 PASS, 1 FAIL/COMPILE_ERROR/TIMEOUT/CRASH, 124 killed by the job's timeout)" | tee -a "$log"
  python3 - "$work/bench-$type.json" "$type" "$a" "$b" "$work/bench-$type.err" >> "$tsv" 2>> "$log" <<'PY'
import json, sys
path, typ, a, b, err = sys.argv[1:6]
try:
    r = json.load(open(path))
except Exception as e:
    tail = open(err, errors='replace').read()[-1500:].replace('\n', '\n  ')
    print(f"# {typ}: no JSON ({e}); stderr:\n  {tail}", file=sys.stderr); sys.exit(0)
print(f"# {typ} A: {r.get('verdict')}", file=sys.stderr)
if r.get('verdict') != 'PASS' or r.get('detail'):
    print("  detail: " + str(r.get('detail', ''))[:2500], file=sys.stderr)
if r.get('failed_stage'): print(f"  failed_stage: {r['failed_stage']}", file=sys.stderr)
if r.get('reference_failure'): print(f"  reference (B) failed: {str(r['reference_failure'])[:1500]}", file=sys.stderr)
rc = r.get('reference_compile') or {}
if rc and not rc.get('ok', True): print("  reference compile log: " + str(rc.get('log', ''))[:2000], file=sys.stderr)
for c in r.get('compile', []):
    if not c.get('ok', True): print("  compile log: " + str(c.get('log', ''))[:2500], file=sys.stderr)
def shape(t): return 'x'.join(str(d) for d in t['shape'])
ref = {(shape(t), t['dtype']): t for t in r.get('reference_timing', [])}
def pct(t): return f"{t['pct_copy_ceiling']:.1f}" if t.get('pct_copy_ceiling') is not None else '-'
for t in r.get('timing', []):
    s = shape(t); rt = ref.get((s, t['dtype']))
    name = t.get('baseline_name', '')
    print(f"{typ}\t{a}\t{s}\t{t['median_us']:.1f}\t{t['baseline_median_us']:.1f}\t{name.split(' (')[0]}\t"
          f"{t['baseline_median_us'] / t['median_us']:.3f}\t{t['gb_s']:.0f}\t{pct(t)}\t"
          f"{rt['median_us'] if rt else 0:.1f}\t{pct(rt) if rt else '-'}")
    print(f"  {s}: A {t['median_us']:.1f} us ({pct(t)} % of copy), B {rt['median_us'] if rt else 0:.1f} us "
          f"({pct(rt) if rt else '-'} %), {name} {t['baseline_median_us']:.1f} us", file=sys.stderr)
PY
}

long=4096x50257,8192x50257
norm=4096x8192,8192x8192,8192x32768
# ---- 1. bench: softmax and cross_entropy first (the issue's largest gaps) ------------------------------
# softmax: the row staged in shared memory (one block of 512 threads per row, two per SM) against the
# double-buffered persistent stage (PIPELINE, one block of 1024 threads per SM); later half a row per block
# in a cluster of two (256 threads, four blocks per SM) against the streaming one-pass body.
bench softmax $long 28 BLOCK_THREADS=512,VEC=8,SMEM_ROW=100,FAST_EXP=1 BLOCK_THREADS=1024,VEC=8,SMEM_ROW=200,PIPELINE=1,FAST_EXP=1
# cross_entropy: the row staged by cp.async (the whole row in flight) against the streaming one-pass body
# (78 % / 84 % of copy on 2026-12-02).
bench cross_entropy $long 24 BLOCK_THREADS=512,VEC=8,SMEM_ROW=100,FAST_EXP=1,FUSED_MEAN=1 BLOCK_THREADS=512,VEC=8,UNROLL=4,ONLINE=1,FAST_EXP=1,FUSED_MEAN=1

# ---- 2. GPU suite (the row variants), as far as its time allows ------------------------------------------
suite_cap=$(( $(left) - 58 )); (( suite_cap > 50 )) && suite_cap=50
if (( suite_cap > 10 )); then
  say "gpu suite GpuRowVariants (cap ${suite_cap}s)"
  AK_WORKER_LOG=$work/worker.log timeout "$suite_cap" stdbuf -oL "$bin/test_evaluator_gpu" \
    --gtest_filter='GpuRowVariants/StarterVariantPasses.*' > "$work/suite.log" 2>&1
  echo "suite exit $? (124: cut by the job's cap; the variants not listed did not run)" | tee -a "$log"
  grep -qE "^\[ RUN" "$work/suite.log" || head -c 1500 "$work/suite.log" | tee -a "$log"
  grep -E "^\[variant\]|^\[  FAILED|^\[  PASSED|^\[       OK|tests ran" "$work/suite.log" | cut -c1-300 | tee -a "$log"
  grep -B2 -A14 "Failure" "$work/suite.log" | cut -c1-600 | head -100 >> "$log"
  grep -iE "illegal|error|fault|misaligned" "$work/worker.log" 2>/dev/null | head -10 >> "$log"
else
  say "suite skipped: $(left)s left"
fi

# ---- 1b. bench rmsnorm and reduce, then the streaming softmax ---------------------------------------------
# rmsnorm: three 32768-column fp16 rows staged per SM against the register-cached row (92.8 / 96.1 / 75.2 %
# of copy on 2026-12-02; 8192x32768 streams there).
bench rmsnorm $norm 18 VEC=8,SMEM_ROW=68 BLOCK_THREADS=256,VEC=8,UNROLL=2,ROW_CACHE=32
bench reduce $norm 16 BLOCK_THREADS=1024,ROWS_PER_BLOCK=8,VEC=8,UNROLL=8 BLOCK_THREADS=512,ROWS_PER_BLOCK=8,VEC=8,UNROLL=8
bench softmax $long 18 BLOCK_THREADS=512,VEC=8,SMEM_ROW=200,PIPELINE=1,FAST_EXP=1 BLOCK_THREADS=256,VEC=8,FAST_EXP=1,SMEM_ROW=52,CLUSTER=2

# ---- 3. the search climb ----------------------------------------------------------------------------------
l=$(( $(left) - 6 ))
if (( l > 15 )); then
  say "search on softmax from the starter at 4096x50257 (cap ${l}s)"
  s=$work/session
  "$bin/autokernel" new "$s" --kernel softmax --shapes softmax:4096x50257 > "$work/run.log" 2>&1
  timeout -s INT "$l" "$bin/autokernel" run "$s" --agent search --kernel softmax --budget 15 \
    --target-speedup 0 >> "$work/run.log" 2>&1
  echo "run exit $?" | tee -a "$log"
  grep -qE "exp [0-9]+" "$work/run.log" || tail -c 1500 "$work/run.log" | tee -a "$log"
  grep -E "exp [0-9]+ .*(kept|reverted|FAIL|COMPILE|CRASH)" "$work/run.log" | sed -E 's/^\[[0-9:]+\] //' | cut -c1-200 | tee -a "$log"
else
  say "search skipped: ${l}s left"
fi

summary
