#!/usr/bin/env bash
# GPU job of the memory-bound long rows (issue 12): many cross_entropy configurations side by side, softmax at
# both long shapes, then eager PyTorch and torch.compile (default and max-autotune-no-cudagraphs) at every
# target shape of the row kernels, in one job.
#   1. `autokernel bench` of two configurations per line (the second as --reference: both timed in one run
#      beside the eager ATen baseline), correctness (five stages) in the timed dtype, at 4096x50257 and
#      8192x50257: cross_entropy's one-block-per-row TMA ring (preset `ring`) against the same ring with its
#      workspace kept zero by the kernel (FUSED_MEAN=3) against the zeroed one (FUSED_MEAN=2), in bf16 too
#      (a config "old:..." takes .old-kernels/TYPE.cu; the cap may skip the last pairs; AK_ROWS_TORCH=1 keeps
#      31 s for part 2).
#      Each row: latency + IQR, the baseline and the ratio, GB/s and % of a same-size copy (target >= 90 %),
#      registers/spill bytes of the timed dtype's compile.
# Usage: scripts/gpu-jobs/kern-rows.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-rows/bench.tsv (every timing row), bench-N-*.json, torch.tsv, torch.log, log.txt; prints
# the summary last.
# targets: autokernel autokernel-evaluator
# cap: 36 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: kern-rows.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/kern-rows
mkdir -p "$out"
work=$(mktemp -d /tmp/kern-rows.XXXXXX)
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
# TUNABLES starting with "old:" take the starter from .old-kernels/TYPE.cu (an earlier version, copied there
# for a side-by-side run) instead of kernels/cuda/TYPE.cu.
variant() {  # variant TYPE NAME TUNABLES(NAME=VALUE,...) -> path
  local f="$work/$1-$2.cu" src="$root/kernels/cuda/$1.cu" kvs=$3
  if [[ $kvs == old:* ]]; then src="$root/.old-kernels/$1.cu"; kvs=${kvs#old:}; fi
  cp "$src" "$f"
  for kv in ${kvs//,/ }; do
    grep -qE "@autokernel tunable ${kv%%=*} = " "$f" || echo "WARNING: $1 has no tunable ${kv%%=*}" | tee -a "$log"
    sed -E -i "s/(@autokernel tunable ${kv%%=*} = )[0-9]+/\1${kv#*=}/" "$f"
  done
  echo "$f"
}

# ---- summary ----------------------------------------------------------------------------------------------
summary() {
  say "bench details"
  grep -E "^#|^  " "$log" | grep -vE "^=== " | cut -c1-400 | head -80
  say "summary (pct_copy target >= 90; speedup = eager ATen / ours; A = config, ref = ref_config; regs = registers/spill bytes)"
  column -t -s $'\t' "$tsv" 2>/dev/null || cat "$tsv"
  say "torch baselines (us; compile_s = the first call, compile + autotune, run in parallel workers)"
  column -t -s $'\t' "$out/torch.tsv" 2>/dev/null || cat "$out/torch.tsv" 2>/dev/null
  rm -rf "$work"
}
trap 'echo "=== interrupted at the cap"; summary; exit 130' INT TERM

nb=0
torch_part=${AK_ROWS_TORCH:-0}  # call 3: the redo of the ring's load hint only
reserve=$(( torch_part ? ${AK_TORCH_RESERVE:-31} : 0 ))  # seconds the benches leave to part 2
printf 'type\tconfig\tshape\tdtype\tours_us\tiqr_us\tbaseline_us\tbaseline\tspeedup\tgb_s\tpct_copy\tregs\tref_config\tref_us\tref_iqr_us\tref_pct_copy\tref_regs\n' > "$tsv"
bench() {  # bench TYPE SHAPES CAP CONFIG_A CONFIG_B [DTYPE]: A is the candidate, B the --reference
  local type=$1 shapes=$2 bcap=$3 a=$4 b=$5 dt=${6:-fp16}  # bcap: not `cap`, which left() reads
  if (( $(left) < bcap + 5 + reserve )); then say "bench $type skipped: $(left)s left, ${reserve}s kept for the torch baselines"; return; fi
  say "bench $type $dt  A=$a  B(reference)=$b"
  local fa fb
  fa=$(variant "$type" A "$a"); fb=$(variant "$type" B "$b")
  timeout "$bcap" "$bin/autokernel" bench "$fa" --type "$type" --dtype "$dt" --check-dtypes "$dt" --shapes "$shapes" \
    --timeout $((bcap - 3)) --reference "$fb" --json > "$work/bench-$type.json" 2> "$work/bench-$type.err"
  echo "rc=$? (0 PASS, 1 FAIL/COMPILE_ERROR/TIMEOUT/CRASH, 124 killed by the job's timeout)" | tee -a "$log"
  nb=$((nb + 1)); cp "$work/bench-$type.json" "$out/bench-$nb-$type-$dt.json" 2>/dev/null
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
def regs(comps, dt):
    for c in comps or []:
        if c.get('dtype') == dt: return f"{c.get('registers', '-')}/{c.get('spills', '-')}"
    return '-'
rcomp = r.get('reference_compile')
rcomp = rcomp if isinstance(rcomp, list) else ([rcomp] if rcomp else [])
for t in r.get('timing', []):
    s = shape(t); rt = ref.get((s, t['dtype']))
    name = t.get('baseline_name', '')
    print(f"{typ}\t{a}\t{s}\t{t['dtype']}\t{t['median_us']:.1f}\t{t.get('iqr_us', 0):.1f}\t{t['baseline_median_us']:.1f}\t"
          f"{name.split(' (')[0]}\t{t['baseline_median_us'] / t['median_us']:.3f}\t{t['gb_s']:.0f}\t{pct(t)}\t"
          f"{regs(r.get('compile'), t['dtype'])}\t{b}\t{rt['median_us'] if rt else 0:.1f}\t{rt.get('iqr_us', 0) if rt else 0:.1f}\t"
          f"{pct(rt) if rt else '-'}\t{regs(rcomp, t['dtype'])}")
    print(f"  {s}: A {t['median_us']:.1f} us ({pct(t)} % of copy), B {rt['median_us'] if rt else 0:.1f} us "
          f"({pct(rt) if rt else '-'} %), {name} {t['baseline_median_us']:.1f} us", file=sys.stderr)
PY
}


long=4096x50257,8192x50257
# ---- 1. bench ---------------------------------------------------------------------------------------------
# 2026-12-04, call 13 (call 12: MEAN_FIRST 0.2-0.5 us slower; it, TAIL_SPLIT, L2_AHEAD and EVICT_PCT are taken
# out again): the preset `ring` (FUSED_MEAN=3) of the kernel without them against FUSED_MEAN=2, fp16 and bf16.
r0=RING=4,RING_KB=8,BLOCK_THREADS=256,VEC=8,ONLINE=1,FUSED_MEAN=1,LOAD=0,FAST_EXP=2
r2=${r0/FUSED_MEAN=1/FUSED_MEAN=2}
r3=${r0/FUSED_MEAN=1/FUSED_MEAN=3}
bench cross_entropy $long 7 $r3 $r2
bench cross_entropy $long 7 $r3 $r2 bf16

# ---- 2. the PyTorch baselines: eager and torch.compile (default, max-autotune-no-cudagraphs) ----------------
l=$(( $(left) - 3 ))
if (( torch_part && l > 15 )); then
  say "torch baselines (eager, torch.compile default + max-autotune-no-cudagraphs, parallel compiles; cap ${l}s)"
  TORCHINDUCTOR_COMPILE_THREADS=1 TORCHINDUCTOR_CACHE_DIR=$work/inductor timeout -s INT "$l" \
    python3 "$root/scripts/gpu-jobs/torch_row_baselines.py" --dtype fp16 --mode max-autotune-no-cudagraphs,default \
    --parallel --budget $(( l - 4 )) \
    --cases cross_entropy:4096x50257,cross_entropy:8192x50257,softmax:4096x50257,softmax:8192x50257,rmsnorm:4096x8192,rmsnorm:8192x8192,rmsnorm:8192x32768,reduce:4096x8192,reduce:8192x8192,reduce:8192x32768 \
    --tsv "$out/torch.tsv" > "$work/torch.log" 2>&1
  echo "torch baselines exit $? (124/130: cut by the cap)" | tee -a "$log"
  grep -E "torch-baselines|Error|error" "$work/torch.log" | cut -c1-400 | head -60 | tee -a "$log"
  cp "$work/torch.log" "$out/torch.log"
else
  say "torch baselines skipped (AK_ROWS_TORCH=$torch_part, ${l}s left)"
fi

summary
