#!/usr/bin/env bash
# GPU job of the memory-bound row starters' long-row variants (issue 12), call 2 of 3 (cap 50 s): the rows
# still below 90 % of a same-size copy after call 1, several configurations side by side, then torch.compile
# in max-autotune-no-cudagraphs mode (call 1 timed its default mode).
#   1. `autokernel bench` of two configurations per line (the second as --reference: both timed side by
#      side with the eager baseline in one run), fp16, correctness in fp16 (the suite checks all dtypes):
#      cross_entropy at 4096x50257 and 8192x50257: the bulk L2 prefetch of the row (PREFETCH) and the
#      FMA-folded exponentials (FAST_EXP=2) on the one-pass row, at 512 and 256 / 1024 threads, and
#      persistent blocks (PERSISTENT) that prefetch each next row;
#      rmsnorm at 8192x32768: the two-pass row with L2 policies (first read evict-last, second evict-first,
#      y streamed) and PREFETCH, 512 and 1024 threads; reduce at its three shapes: LOAD=1 against LOAD=2
#      (call 1: LOAD=2 97.7 / 94.4 / 94.1 %, plain 86.2 / 86.6 / 100.2 %).
#      Each row: latency, the baseline (at::sum, ...) and the ratio, GB/s and % of a same-size copy;
#   2. torch_row_baselines.py: eager and torch.compile(mode="max-autotune-no-cudagraphs") of cross_entropy
#      4096x50257, rmsnorm 8192x32768, softmax 4096x50257 (as far as the budget allows), CUDA events, L2
#      flushed, median + IQR, compile time printed.
# Usage: scripts/gpu-jobs/kern-mem.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-mem/bench.tsv (every timing row), torch.tsv, torch.log, log.txt; prints the summary last.
# targets: autokernel autokernel-evaluator
# cap: 50 seconds
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
ce=BLOCK_THREADS=512,VEC=8,UNROLL=4,ONLINE=1,FUSED_MEAN=1,LOAD=2
# ---- 1. bench: the rows below 90 % of copy ---------------------------------------------------------------
# cross_entropy: call 1's best (the one-pass row, FAST_EXP=1, LOAD=2) was 131.6 / 243.4 us (77.8 / 83.2 %).
bench cross_entropy $long 9 $ce,FAST_EXP=2,PREFETCH=1 $ce,FAST_EXP=2,PREFETCH=0
bench cross_entropy $long 9 ${ce/512/256},FAST_EXP=2,PREFETCH=1 ${ce/512/1024},FAST_EXP=2,PREFETCH=1
# persistent blocks (2 of 512 threads / 1 of 1024 per SM), the next row prefetched as each row starts.
bench cross_entropy $long 9 $ce,FAST_EXP=2,PREFETCH=1,PERSISTENT=2 ${ce/512/1024},FAST_EXP=2,PREFETCH=1,PERSISTENT=1
# rmsnorm 8192x32768: call 1's best was the staged row (SMEM_ROW=68, LOAD=2) at 325.8 us (79.9 %);
# torch.compile's two-pass kernel took 256 us.
bench rmsnorm 8192x32768 8 BLOCK_THREADS=512,VEC=8,UNROLL=2,LOAD=2,PREFETCH=1 BLOCK_THREADS=1024,VEC=8,UNROLL=2,LOAD=2,PREFETCH=1
bench rmsnorm 8192x32768 8 BLOCK_THREADS=512,VEC=8,UNROLL=2,LOAD=2,PREFETCH=0 BLOCK_THREADS=512,VEC=8,UNROLL=2,LOAD=0,PREFETCH=1
# reduce: one configuration for the three shapes.
bench reduce $norm 9 LOAD=1,BLOCK_THREADS=128,VEC=8,UNROLL=8 LOAD=2,BLOCK_THREADS=128,VEC=8,UNROLL=8

# ---- 2. the PyTorch baselines: eager and torch.compile -----------------------------------------------------
l=$(( $(left) - 3 ))
if (( l > 8 )); then
  say "torch baselines (eager, torch.compile max-autotune-no-cudagraphs; cap ${l}s)"
  TORCHINDUCTOR_COMPILE_THREADS=1 TORCHINDUCTOR_CACHE_DIR=$work/inductor timeout -s INT "$l" \
    python3 "$root/scripts/gpu-jobs/torch_row_baselines.py" --dtype fp16 --mode max-autotune-no-cudagraphs \
    --budget $(( l - 8 )) --cases cross_entropy:4096x50257,rmsnorm:8192x32768,softmax:4096x50257 \
    --tsv "$out/torch.tsv" > "$work/torch.log" 2>&1
  echo "torch baselines exit $? (124/130: cut by the cap)" | tee -a "$log"
  grep -E "torch-baselines|Error|error" "$work/torch.log" | cut -c1-400 | head -30 | tee -a "$log"
  cp "$work/torch.log" "$out/torch.log"
else
  say "torch baselines skipped: ${l}s left"
fi

summary
