#!/usr/bin/env bash
# GPU job of the flash_attention starter's FA3-class variants (MMA=3, issue 12) against SDPA's fastest
# backend, several configurations side by side, fp16 at every target row (B2 H32 S1024 and B1 H32 S4096,
# head_dim 64 and 128, causal and not).
#   Each `autokernel bench` times two configurations (the candidate and --reference) with SDPA's three
#   backends in one run; the correctness stages run for the candidate in fp16. The pairs run in order of
#   priority until the cap is near (a pair that hangs costs only its own timeout); every finished pair's
#   rows are printed at once (so a cut-off job still reports them).
# Usage: scripts/gpu-jobs/kern-attn.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-attn/bench.tsv (every timing row), $OUT/kern-attn/log.txt and the raw JSON/stderr of
# each bench; prints the summary table last.
# targets: autokernel autokernel-evaluator test_evaluator_gpu
# cap: 40 seconds
set -uo pipefail
cap=40
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: kern-attn.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/kern-attn
mkdir -p "$out"
work=$(mktemp -d /tmp/kern-attn.XXXXXX)
log="$out/log.txt"
tsv="$out/bench.tsv"
: > "$log"
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$log"; }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources  # this branch's headers and starters
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH
starter=$root/kernels/cuda/flash_attention.cu

# A copy of the starter with some tunables' defaults changed (the launcher passes them as -D).
variant() {  # variant NAME TUNABLES(NAME=VALUE,...) -> path
  local f="$work/$1.cu"
  cp "$starter" "$f"
  for kv in ${2//,/ }; do sed -E -i "s/(@autokernel tunable ${kv%%=*} = )[0-9]+/\1${kv#*=}/" "$f"; done
  echo "$f"
}

d64=2x32x1024x64:causal,2x32x1024x64:noncausal,1x32x4096x64:causal,1x32x4096x64:noncausal
d128=2x32x1024x128:causal,2x32x1024x128:noncausal,1x32x4096x128:causal,1x32x4096x128:noncausal
printf 'config\tdtype\tshape\tours_us\tsdpa_us\tsdpa_backend\tratio\ttflops\n' > "$tsv"
n=0
pair() {  # pair DTYPE SHAPES CANDIDATE_TUNABLES REFERENCE_TUNABLES
  local dt=$1 shapes=$2 a=$3 b=$4
  n=$((n + 1))
  local left=$((cap - ($(date +%s) - t0) - 3))
  if ((left < 8)); then say "pair $n skipped ($left s left): $a | $b"; return; fi
  local lim=$((left < 12 ? left : 12))
  say "pair $n $dt (limit ${lim}s): cand $a | ref $b | $shapes"
  fa=$(variant "p$n-a" "$a"); fb=$(variant "p$n-b" "$b")
  timeout -k 2 "$lim" "$bin/autokernel" bench "$fa" --type flash_attention --dtype $dt --check-dtypes $dt --shapes "$shapes" \
    --timeout $((lim - 1)) --iterations ${ITERATIONS:-100} --reference "$fb" --json > "$out/bench-$n.json" 2> "$out/bench-$n.err"
  echo "rc=$?" | tee -a "$log"
  python3 - "$out/bench-$n.json" "$a" "$b" >> "$tsv" 2>> "$log" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"# no JSON: {e}", file=sys.stderr); sys.exit(0)
print(f"# {sys.argv[2]}: {r.get('verdict')} {str(r.get('detail', ''))[:600]}", file=sys.stderr)
def shape(dims):  # [batch, heads, seq, head_dim, causal]
    return 'x'.join(str(d) for d in dims[:4]) + (':causal' if dims[4] else ':noncausal')
base = {}
for t in r.get('timing', []):
    base[(shape(t['shape']), t['dtype'])] = (t['baseline_median_us'], t.get('baseline_name', ''))
    print(f"  {shape(t['shape'])}: {t.get('baseline_name', '')}", file=sys.stderr)
for key, cfg in (('timing', sys.argv[2]), ('reference_timing', sys.argv[3])):
    for t in r.get(key, []):
        s = shape(t['shape'])
        b_us, name = base.get((s, t['dtype']), (t.get('baseline_median_us', 0), t.get('baseline_name', '')))
        fl = 4 * t['shape'][0] * t['shape'][1] * t['shape'][2] ** 2 * t['shape'][3] * (0.5 if t['shape'][4] else 1)
        print(f"{cfg}\t{t['dtype']}\t{s}\t{t['median_us']:.1f}\t{b_us:.1f}\t{name.split(' (')[0]}\t"
              f"{b_us / t['median_us']:.3f}\t{fl / t['median_us'] / 1e6:.0f}")
PY
  head -c 1500 "$out/bench-$n.err" >> "$log"
  tail -n +2 "$tsv" | grep -F -e "$a	" -e "$b	" | cut -f1,3,4,5,7 | column -t
}

# The turns (PINGPONG) with and without the intra-warpgroup overlap, per head_dim (HEAD_DIM=64/128: the
# wgmma path, shared memory and registers for one head_dim); then the schedule without either on both
# head_dims (HEAD_DIM=0), with the ring two and three deep; then the persistent grid.
b=MMA=3,BLOCK_M=128,BLOCK_N=128
pair fp16 $d64 $b,STAGES=3,OVERLAP=1,PINGPONG=1,HEAD_DIM=64 $b,STAGES=3,OVERLAP=0,PINGPONG=1,HEAD_DIM=64
pair fp16 $d128 $b,STAGES=2,OVERLAP=1,PINGPONG=1,HEAD_DIM=128 $b,STAGES=2,OVERLAP=0,PINGPONG=1,HEAD_DIM=128
pair fp16 $d64,$d128 $b,STAGES=3,OVERLAP=0,PINGPONG=0,HEAD_DIM=0 $b,STAGES=2,OVERLAP=0,PINGPONG=0,HEAD_DIM=0
pair fp16 $d64,$d128 $b,STAGES=3,OVERLAP=1,PINGPONG=1,HEAD_DIM=64,PERSISTENT=1 $b,STAGES=2,OVERLAP=1,PINGPONG=1,HEAD_DIM=128,PERSISTENT=1

say "summary (ratio = SDPA's fastest backend / ours; target >= 0.85)"
column -t -s $'\t' "$tsv" 2>/dev/null || cat "$tsv"
rm -rf "$work"
