#!/usr/bin/env bash
# GPU job of the flash_attention starter's tensor-core variants (issue 12): FA2 class on mma.sync (MMA=2)
# and FA3 class on wgmma + TMA with warp specialization (MMA=3), against SDPA's fastest backend.
#   1. `autokernel bench` of the hand-picked FA3-class configuration at every target row (B2 H32 S1024 and
#      B1 H32 S4096, head_dim 64 and 128, causal and not), fp16 (first) and bf16 (after the suite), the
#      starter as --reference: latency, TFLOP/s and the ratio to the fastest SDPA backend from the same
#      run (the report names it, the other backends' medians and SDPA's own pick); the correctness stages
#      run in the timed dtype only, to fit the cap (the suite checks all three);
#   2. the GPU suite, filtered to the flash_attention starter, its variants (flash_attention_variants.h:
#      each passes the five stages in three dtypes and is timed at 2x32x1024x64 causal fp16) and the
#      SDPA-backend check;
#   3. SASS of an FA2- and an FA3-class configuration when a cuobjdump is on the machine (HMMA for
#      MMA=2; HGMMA, UTMALDG and USETMAXREG for MMA=3), with their registers and spills;
#   4. with the time left, `autokernel run --agent search` on flash_attention from the starter (a new
#      session timed at 2x32x1024x64 causal) for the climb through the tiers towards the MMA switch.
# Usage: scripts/gpu-jobs/kern-attn.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-attn/bench.tsv (every timing row) and $OUT/kern-attn/log.txt (summarised logs); prints
# the summary table last.
# targets: autokernel autokernel-evaluator test_evaluator_gpu
# cap: 150 seconds
set -uo pipefail
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

# ---- 1. bench at the target rows (fp16 now, bf16 after the suite) -----------------------------------
# The FA3-class configuration expected to be fastest (two consumer warpgroups of 64 rows, 128-key tiles,
# a two-deep TMA ring, the intra-warpgroup overlap) for both head_dims.
fa3=BLOCK_M=128,BLOCK_N=128,STAGES=2,MMA=3,OVERLAP=1
shapes=2x32x1024x64:causal,2x32x1024x64:noncausal,1x32x4096x64:causal,1x32x4096x64:noncausal,2x32x1024x128:causal,2x32x1024x128:noncausal,1x32x4096x128:causal,1x32x4096x128:noncausal
printf 'config\tdtype\tshape\tours_us\tsdpa_us\tsdpa_backend\tratio\ttflops\tstarter_us\n' > "$tsv"
bench() {  # bench DTYPE CAP_SECONDS
  local dt=$1
  say "bench fa3 ($fa3) $dt, the starter as the reference"
  f=$(variant "fa3-$dt" "$fa3")
  timeout "$2" "$bin/autokernel" bench "$f" --type flash_attention --dtype $dt --check-dtypes $dt --shapes "$shapes" \
    --timeout $(($2 - 5)) \
    --reference "$starter" --json > "$work/bench-$dt.json" 2> "$work/bench-$dt.err"
  echo "rc=$?" | tee -a "$log"
  python3 - "$work/bench-$dt.json" "fa3" "$dt" >> "$tsv" 2>> "$log" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"# {sys.argv[2]} {sys.argv[3]}: {r.get('verdict')} {str(r.get('detail', ''))[:300]}", file=sys.stderr)
def shape(dims):  # [batch, heads, seq, head_dim, causal]
    return 'x'.join(str(d) for d in dims[:4]) + (':causal' if dims[4] else ':noncausal')
ref = {(shape(t['shape']), t['dtype']): t for t in r.get('reference_timing', [])}
for t in r.get('timing', []):
    s, name = shape(t['shape']), t.get('baseline_name', '')
    starter = ref.get((s, t['dtype']), {}).get('median_us', 0)
    print(f"{sys.argv[2]}\t{t['dtype']}\t{s}\t{t['median_us']:.1f}\t{t['baseline_median_us']:.1f}\t{name.split(' (')[0]}\t"
          f"{t['baseline_median_us'] / t['median_us']:.3f}\t{t['tflops']:.0f}\t{starter:.0f}")
    print(f"  {s} {t['dtype']}: {t['median_us']:.1f} us against {name}", file=sys.stderr)
PY
  head -c 600 "$work/bench-$dt.err" >> "$log"
}

bench fp16 35

# ---- 2. GPU suite ----------------------------------------------------------------------------------------
say "gpu suite (flash_attention starter, its variants, the SDPA backends)"
filter='GpuFlashAttention/StarterVariantPasses.*:Gpu/StarterPasses.*/flash_attention:FlashAttention.*'
AK_WORKER_LOG=$work/worker.log timeout 70 stdbuf -oL "$bin/test_evaluator_gpu" --gtest_filter="$filter" > "$work/suite.log" 2>&1
echo "suite exit $?" | tee -a "$log"
grep -E "^\[variant\]|^\[starter\]|^\[sdpa\]|^\[  FAILED|^\[  PASSED|tests ran" "$work/suite.log" | cut -c1-300 | tee -a "$log"
grep -B2 -A14 "Failure" "$work/suite.log" | cut -c1-400 | head -80 >> "$log"
grep -iE "illegal|error|fault" "$work/worker.log" 2>/dev/null | head -10 >> "$log"
bench bf16 30

# ---- 3. SASS ---------------------------------------------------------------------------------------------
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null ||
  python3 -c 'import triton,os;print(os.path.join(os.path.dirname(triton.__file__),"backends/nvidia/bin/cuobjdump"))' 2>/dev/null)
if [[ -x "$cuobjdump" ]]; then
  say "SASS ($cuobjdump)"
  for cfg in "fa2:BLOCK_M=128,BLOCK_N=64,NUM_WARPS=8,MMA=2" "fa3:$fa3"; do
    f=$(variant "sass-${cfg%%:*}" "${cfg#*:}")
    cache=$work/nvrtc-${cfg%%:*}
    XDG_CACHE_HOME=$cache timeout 30 "$bin/autokernel" compile "$f" --type flash_attention --dtype fp16 \
      > "$work/compile-${cfg%%:*}.txt" 2>&1
    c=$(find "$cache" -name '*.cubin' | head -1)
    [[ -n "$c" ]] && echo "${cfg%%:*}: $("$cuobjdump" -sass "$c" | grep -oE 'HGMMA\.[0-9x]+|HMMA\.[0-9]+|UTMALDG|USETMAXREG' | sort | uniq -c | tr '\n' ' ')" | tee -a "$log"
    grep -E "ak_kernel0|registers|spill" "$work/compile-${cfg%%:*}.txt" | head -3 | tee -a "$log"
  done
fi

# ---- 4. the search climb ---------------------------------------------------------------------------------
left=$((150 - ($(date +%s) - t0) - 8))
if ((left > 15)); then
  say "search on flash_attention from the starter (cap ${left}s)"
  s=$work/session
  "$bin/autokernel" new "$s" --kernel flash_attention --shapes flash_attention:2x32x1024x64:causal > "$work/run.log" 2>&1
  timeout -s INT "$left" "$bin/autokernel" run "$s" --agent search --kernel flash_attention --budget 15 \
    --target-speedup 0 >> "$work/run.log" 2>&1
  echo "run exit $?" | tee -a "$log"
  grep -E "exp [0-9]+ .*(kept|reverted|FAIL|COMPILE|CRASH)" "$work/run.log" | sed -E 's/^\[[0-9:]+\] //' | cut -c1-200 | tee -a "$log"
else
  say "search skipped: ${left}s left"
fi

# ---- summary ---------------------------------------------------------------------------------------------
say "summary (ratio = SDPA's fastest backend / ours; target >= 0.85)"
column -t -s $'\t' "$tsv" 2>/dev/null || cat "$tsv"
rm -rf "$work"
