#!/usr/bin/env bash
# GPU job of the memory-bound row starters' long-row variants (issue 12), call 1 of 3 (cap 40 s): the rows
# below 90 % of a same-size copy only, several configurations side by side, then the PyTorch baselines.
#   1. `autokernel bench` of two configurations per type (the second as --reference, so both are timed
#      side by side with the eager baseline in one run), fp16, correctness in fp16 only to fit the cap (the
#      suite checks all three dtypes): the LOAD=2 cache hint (read-only, L2 evict-first) against plain loads
#      on reduce at 4096x8192, 8192x8192, 8192x32768; on cross_entropy at 4096x50257 and 8192x50257 the
#      one-pass row against the staged row, both hinted; rmsnorm at 8192x32768 with three 32768-column rows
#      staged per SM (SMEM_ROW=68), hinted and plain.
#      Each row: latency, the baseline (at::sum, ...) and the ratio, GB/s and % of a same-size copy;
#   2. torch_row_baselines.py: eager and torch.compile (default mode) of softmax and cross_entropy at
#      4096x50257 and 8192x50257 (then rmsnorm and reduce as far as the budget allows), same shapes and
#      dtype, CUDA events, L2 flushed, median + IQR, compile time printed.
# Usage: scripts/gpu-jobs/kern-mem.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-mem/bench.tsv (every timing row), torch.tsv, log.txt; prints the summary last.
# targets: autokernel autokernel-evaluator
# cap: 40 seconds
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
  say "torch baselines (fp16, us)"
  column -t -s $'\t' "$out/torch.tsv" 2>/dev/null || cat "$out/torch.tsv" 2>/dev/null
  rm -rf "$work"
}
trap 'echo "=== interrupted at the cap"; summary; exit 130' INT TERM

printf 'type\tconfig\tshape\tours_us\tbaseline_us\tbaseline\tspeedup\tgb_s\tpct_copy\tref_us\tref_pct_copy\n' > "$tsv"
bench() {  # bench TYPE SHAPES CAP CONFIG_A CONFIG_B: A is the candidate, B the --reference
  local type=$1 shapes=$2 bcap=$3 a=$4 b=$5  # bcap: not `cap`, which left() reads
  if (( $(left) < bcap + 5 )); then say "bench $type skipped: $(left)s left"; return; fi
  say "bench $type  A=$a  B(reference)=$b"
  local fa fb
  fa=$(variant "$type" A "$a"); fb=$(variant "$type" B "$b")
  timeout "$bcap" "$bin/autokernel" bench "$fa" --type "$type" --dtype fp16 --check-dtypes fp16 --shapes "$shapes" \
    --timeout $((bcap - 3)) --reference "$fb" --json > "$work/bench-$type.json" 2> "$work/bench-$type.err"
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
# ---- 1. bench: the rows below 90 % of copy ---------------------------------------------------------------
# reduce at 84.5 / 85.0 / 98.6 % on 2026-12-02 (128 threads, VEC=8, UNROLL=8): the read-only L2 evict-first
# loads against the plain ones, same configuration otherwise.
bench reduce $norm 9 LOAD=2,BLOCK_THREADS=128,VEC=8,UNROLL=8 LOAD=0,BLOCK_THREADS=128,VEC=8,UNROLL=8
# cross_entropy at 78.1 / 84.2 % (the one-pass row, plain loads): hinted, against the whole row staged by
# cp.async (two rows in flight per SM), hinted too, with the FMA-folded exponentials (FAST_EXP=2).
bench cross_entropy $long 9 LOAD=2,BLOCK_THREADS=512,VEC=8,UNROLL=4,ONLINE=1,FAST_EXP=1,FUSED_MEAN=1 LOAD=2,BLOCK_THREADS=512,VEC=8,SMEM_ROW=100,FAST_EXP=2,FUSED_MEAN=1
# rmsnorm 8192x32768 at 78.1 % (two 32768-column rows staged per SM): three per SM, hinted and plain.
bench rmsnorm 8192x32768 8 LOAD=2,VEC=8,SMEM_ROW=68 LOAD=0,VEC=8,SMEM_ROW=68

# ---- 2. the PyTorch baselines: eager and torch.compile -----------------------------------------------------
l=$(( $(left) - 3 ))
if (( l > 8 )); then
  say "torch baselines (eager, torch.compile default mode; cap ${l}s)"
  TORCHINDUCTOR_COMPILE_THREADS=1 TORCHINDUCTOR_CACHE_DIR=$work/inductor timeout -s INT "$l" \
    python3 "$root/scripts/gpu-jobs/torch_row_baselines.py" --dtype fp16 --mode default --budget $(( l - 7 )) \
    --cases softmax:4096x50257,cross_entropy:4096x50257,softmax:8192x50257,cross_entropy:8192x50257,reduce:4096x8192,rmsnorm:8192x32768 \
    --tsv "$out/torch.tsv" > "$work/torch.log" 2>&1
  echo "torch baselines exit $? (124/130: cut by the cap)" | tee -a "$log"
  grep -E "torch-baselines|Error|error" "$work/torch.log" | cut -c1-400 | head -30 | tee -a "$log"
  cp "$work/torch.log" "$out/torch.log"
else
  say "torch baselines skipped: ${l}s left"
fi

summary
