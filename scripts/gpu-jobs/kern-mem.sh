#!/usr/bin/env bash
# GPU job of the memory-bound row starters' long-row variants (issue 12), the evidence run (cap 50 s): every
# target shape, the candidate configurations side by side, then eager and torch.compile in the same job.
#   1. `autokernel bench` of two configurations per line (the second as --reference: both timed side by
#      side with the eager ATen baseline in one run), fp16, correctness (five stages) in fp16:
#      cross_entropy 4096x50257, 8192x50257: persistent blocks that prefetch each next row (PERSISTENT=2,
#        PREFETCH) against one block per row with its row prefetched (both LOAD=2, FAST_EXP=2, one pass);
#      rmsnorm 4096x8192, 8192x8192, 8192x32768: the register-cached row (ROW_CACHE=32, 256 threads; the
#        32768-column rows fall to its two-pass path) against the two-pass row at 512 threads, both under
#        the L2 policies (LOAD=2: first read evict-last, second evict-first, y streamed) and PREFETCH;
#      reduce, same shapes: LOAD=2 against LOAD=1; softmax 4096x50257, 8192x50257: the staged row with
#        LOAD=2 against plain (the configuration at 91.2 % of copy).
#      Each row: latency, the baseline and the ratio, GB/s and % of a same-size copy (target >= 90 %);
#   2. torch_row_baselines.py: eager and torch.compile (default mode) at the same ten shapes, fp16, CUDA
#      events, L2 flushed, median + IQR, compile time printed;
#   3. with the time left, more candidates (rmsnorm 8192x32768 at 1024 threads / staged, cross_entropy
#      PERSISTENT=1 at 1024 threads).
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
ce=BLOCK_THREADS=512,VEC=8,UNROLL=4,ONLINE=1,FUSED_MEAN=1,LOAD=2,FAST_EXP=2,PREFETCH=1
# ---- 1. bench ---------------------------------------------------------------------------------------------
bench cross_entropy $long 9 $ce,PERSISTENT=2 $ce
bench rmsnorm $norm 9 BLOCK_THREADS=256,VEC=8,UNROLL=2,ROW_CACHE=32,LOAD=2,PREFETCH=1 BLOCK_THREADS=512,VEC=8,UNROLL=2,LOAD=2,PREFETCH=1
bench reduce $norm 8 LOAD=2,BLOCK_THREADS=128,VEC=8,UNROLL=8 LOAD=1,BLOCK_THREADS=128,VEC=8,UNROLL=8
bench softmax $long 8 BLOCK_THREADS=512,VEC=8,SMEM_ROW=100,FAST_EXP=1,LOAD=2 BLOCK_THREADS=512,VEC=8,SMEM_ROW=100,FAST_EXP=1

# ---- 2. the PyTorch baselines: eager and torch.compile -----------------------------------------------------
l=$(( $(left) - 3 ))
(( l > 26 )) && l=26  # leaves the rest to part 3
if (( l > 8 )); then
  say "torch baselines (eager, torch.compile default mode; cap ${l}s)"
  TORCHINDUCTOR_COMPILE_THREADS=1 TORCHINDUCTOR_CACHE_DIR=$work/inductor timeout -s INT "$l" \
    python3 "$root/scripts/gpu-jobs/torch_row_baselines.py" --dtype fp16 --mode default --budget $(( l - 5 )) \
    --cases cross_entropy:4096x50257,cross_entropy:8192x50257,rmsnorm:8192x32768,softmax:4096x50257,softmax:8192x50257,rmsnorm:4096x8192,rmsnorm:8192x8192,reduce:4096x8192,reduce:8192x8192,reduce:8192x32768 \
    --tsv "$out/torch.tsv" > "$work/torch.log" 2>&1
  echo "torch baselines exit $? (124/130: cut by the cap)" | tee -a "$log"
  grep -E "torch-baselines|Error|error" "$work/torch.log" | cut -c1-400 | head -30 | tee -a "$log"
  cp "$work/torch.log" "$out/torch.log"
else
  say "torch baselines skipped: ${l}s left"
fi

# ---- 3. more candidates, as far as the time allows --------------------------------------------------------
bench rmsnorm 8192x32768 6 BLOCK_THREADS=1024,VEC=8,UNROLL=2,LOAD=2,PREFETCH=1 VEC=8,SMEM_ROW=68,LOAD=2
bench cross_entropy $long 7 ${ce/512/1024},UNROLL=2,PERSISTENT=1 ${ce/512/256}

summary
