#!/usr/bin/env bash
# GPU job of the flash_attention starter's FA3-class variants (MMA=3, issue 12) against SDPA's fastest
# backend, several configurations side by side, fp16 and bf16 at every target row (B2 H32 S1024 and
# B1 H32 S4096, head_dim 64 and 128, causal and not), and the GPU suite's flash_attention variants.
#   Each `autokernel bench` times two configurations (the candidate and --reference) with SDPA's three
#   backends in one run; the correctness stages run for the candidate in the timed dtype. The pairs run in order of
#   priority until the cap is near (a pair that hangs costs only its own timeout); every finished pair's
#   rows are printed at once (so a cut-off job still reports them).
# Usage: scripts/gpu-jobs/kern-attn.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-attn/bench.tsv (every timing row), $OUT/kern-attn/log.txt and the raw JSON/stderr of
# each bench; prints the summary table last.
# targets: autokernel autokernel-evaluator test_evaluator_gpu
# cap: 60 seconds
set -uo pipefail
cap=60
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
  local lim=$((left < 13 ? left : 13))
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
for key, cfg in (('compile', sys.argv[2]), ('reference_compile', sys.argv[3])):
    cs = r.get(key) or []
    for c in (cs if isinstance(cs, list) else [cs]):
        print(f"#   compile {cfg} {c.get('dtype')}: {c.get('registers')} registers, {c.get('spills')} B spilled, "
              f"{c.get('compile_ms', 0):.0f} ms {str(c.get('log', ''))[:300]}", file=sys.stderr)
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
  tail -n +2 "$tsv" | grep -F -e "$a	" -e "$b	" | cut -f1-4,5,7 | tr '\t' ' '
}

# Call 3 (final evidence): the bf16 head_dim 128 rows (call 2's pair timed out), the five stages for the
# configurations that so far ran only as a pair's reference (192 x 128, HEAD_DIM=128 persistent), the
# GPU suite's flash_attention variants (five stages, three dtypes each), then HEAD_DIM=0 without the lazy
# rescale. Four shapes per pair, so no pair runs into its limit.
b=MMA=3,BLOCK_M=128,BLOCK_N=128
w=$b,OVERLAP=1,PINGPONG=1,PERSISTENT=1
c192=MMA=3,BLOCK_M=192,BLOCK_N=128,OVERLAP=1,PINGPONG=1,PERSISTENT=1,STAGES=3,HEAD_DIM=64
pair bf16 $d128 $w,STAGES=2,HEAD_DIM=128 $w,STAGES=2,HEAD_DIM=0,LAZY_RESCALE=1
pair fp16 $d64 $c192 $w,STAGES=3,HEAD_DIM=64
pair bf16 $d64 $c192 $w,STAGES=2,HEAD_DIM=0,LAZY_RESCALE=1

left=$((cap - ($(date +%s) - t0) - 12))
if ((left >= 8)); then
  say "gpu suite: the flash_attention variants (limit ${left}s)"
  AK_WORKER_LOG=$work/worker.log timeout -k 2 "$left" stdbuf -oL "$bin/test_evaluator_gpu" \
    --gtest_filter='GpuFlashAttention/StarterVariantPasses.*' > "$out/suite.log" 2>&1
  echo "suite exit $?" | tee -a "$log"
  grep -E "^\[variant\]|^\[  FAILED|^\[  PASSED|tests ran" "$out/suite.log" | cut -c1-260 | tee -a "$log"
  grep -B2 -A10 "Failure" "$out/suite.log" | cut -c1-400 | head -60 >> "$log"
  grep -iE "illegal|error|fault" "$work/worker.log" 2>/dev/null | head -10 >> "$log"
else
  say "gpu suite skipped (${left}s left)"
fi
pair fp16 $d128 $w,STAGES=2,HEAD_DIM=0 $w,STAGES=2,HEAD_DIM=128

say "summary (ratio = SDPA's fastest backend / ours; target >= 0.85)"
cut -f1-7 "$tsv" | tr '\t' ' ' 
rm -rf "$work"
