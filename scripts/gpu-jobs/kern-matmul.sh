#!/usr/bin/env bash
# GPU job of the matmul starter's Hopper variant (issue 12): wgmma + TMA, warp-specialized, persistent
# (MMA=3), against cuBLAS (at::matmul), and the fused_mlp starter against the at::matmul-composed SwiGLU.
#   1. `autokernel bench` of hand-picked MMA=3 and FUSE=1 configurations at the target shapes (4096^3, 2048^3,
#      4096x11008x4096), fp16 and bf16, the correctness stages in the timed dtype (the suite checks all
#      three): latency, TFLOP/s and the ratio to cuBLAS from the same run (target >= 0.90, 2048^3 >= 0.85);
#      fused_mlp at its two sizes (2048,2048->5504 and 4096,4096->11008): FUSE=1 (gate/up GEMM + SwiGLU in
#      one wgmma kernel, then the library down GEMM) and the starter with vector loads, against the
#      at::matmul-composed eager SwiGLU (target: ratio > 1);
#   2. the GPU suite filtered to the matmul and fused_mlp starters and their variants (gemm_variants.h:
#      each passes the five stages in three dtypes and is timed at its type's large shape in fp16);
#   3. `autokernel run --agent search` on matmul from the starter (a new session timed at 2048^3, up to 30 s):
#      MMA is the first tier-1 tunable, so the climb should take MMA=3 first and then grow its tiles;
#   4. with the time left, more configurations (128 x 256 with direct stores and in clusters of two with A
#      multicast; 256 x 128 tiles) and fused_mlp in bf16;
#   5. SASS of the MMA=3 and FUSE=1 configurations when a cuobjdump is on the machine (HGMMA, UTMALDG,
#      USETMAXREG), with their registers and spills.
# On a failed bench the verdict's detail (first 1500 characters) and the bench's stderr are printed.
# Usage: scripts/gpu-jobs/kern-matmul.sh BIN_DIR   (BIN_DIR: the binaries built from this branch)
# Writes $OUT/kern-matmul/bench.tsv (every timing row) and $OUT/kern-matmul/log.txt; prints the summary last.
# targets: autokernel autokernel-evaluator test_evaluator_gpu
# cap: 120 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: kern-matmul.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/kern-matmul
mkdir -p "$out"
work=$(mktemp -d /tmp/kern-matmul.XXXXXX)
log="$out/log.txt"
tsv="$out/bench.tsv"
: > "$log"
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$log"; }
left() { echo $((120 - ($(date +%s) - t0) - 6)); }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources  # this branch's headers and starters
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH

# A copy of a starter with some tunables' defaults changed (the launcher passes them as -D).
variant() {  # variant TYPE NAME TUNABLES(NAME=VALUE,...) -> path
  local f="$work/$2.cu"
  cp "$root/kernels/cuda/$1.cu" "$f"
  for kv in ${3//,/ }; do sed -E -i "s/(@autokernel tunable ${kv%%=*} = )[0-9]+/\1${kv#*=}/" "$f"; done
  echo "$f"
}

printf 'config\tdtype\tshape\tours_us\tbaseline_us\tratio\ttflops\n' > "$tsv"
bench() {  # bench TYPE NAME TUNABLES DTYPE SHAPES CAP
  local type=$1 name=$2 cfg=$3 dt=$4 shapes=$5 cap=$6
  if (($(left) < cap)); then say "skip bench $name $dt: $(left)s left"; return; fi
  say "bench $type $name ($cfg) $dt"
  f=$(variant "$type" "$name-$dt" "$cfg")
  timeout "$cap" "$bin/autokernel" bench "$f" --type "$type" --dtype "$dt" --check-dtypes "$dt" --shapes "$shapes" \
    --timeout $((cap - 4)) --json > "$work/bench-$name-$dt.json" 2> "$work/bench-$name-$dt.err"
  local rc=$?
  echo "rc=$rc" | tee -a "$log"
  python3 - "$work/bench-$name-$dt.json" "$name" "$dt" >> "$tsv" 2> "$work/parse.txt" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"# {sys.argv[2]} {sys.argv[3]}: no JSON ({e})", file=sys.stderr); sys.exit(0)
v = r.get('verdict')
d = str(r.get('detail', ''))
print(f"# {sys.argv[2]} {sys.argv[3]}: {v} {d[:300] if v == 'PASS' else d[:1500]}", file=sys.stderr)
for c in r.get('compile', []):
    fs = ' '.join(f"{f['name']} {f['registers']} regs {f['spill_bytes']} B spilled" for f in c.get('functions', []))
    print(f"  compile {c.get('dtype')}: ok={c.get('ok')} {fs} {c.get('compile_ms', 0):.0f} ms", file=sys.stderr)
    if not c.get('ok') or 'Performance' in c.get('log', ''):
        print("  log: " + c.get('log', '')[:1200], file=sys.stderr)
for t in r.get('timing', []):
    s = 'x'.join(str(x) for x in t['shape'])
    print(f"{sys.argv[2]}\t{t['dtype']}\t{s}\t{t['median_us']:.1f}\t{t['baseline_median_us']:.1f}\t"
          f"{t['baseline_median_us'] / t['median_us']:.3f}\t{t['tflops']:.0f}")
    print(f"  {s} {t['dtype']}: {t['median_us']:.1f} us ({t['tflops']:.0f} TFLOP/s) against {t['baseline_name']} "
          f"{t['baseline_median_us']:.1f} us: {t['baseline_median_us'] / t['median_us']:.3f}", file=sys.stderr)
PY
  tee -a "$log" < "$work/parse.txt"
  # The bench's stderr when it failed (the worker's and the compiler's messages).
  if ((rc != 0)) || ! grep -q ": PASS" "$work/parse.txt"; then
    grep -v '^\s*$' "$work/bench-$name-$dt.err" | head -c 1500 | tee -a "$log"
  fi
}

# ---- 1. fused_mlp (not yet seen on a GPU), then matmul's best, fp16 and bf16 ---------------------------
mm_shapes=4096x4096x4096,2048x2048x2048,4096x11008x4096
mlp_shapes=2048x2048x5504,4096x4096x11008
mmD=BLOCK_M=128,BLOCK_N=256,STAGES=4,MMA=3   # two consumer warpgroups of m64n256, 4-deep ring, TMA-store epilogue (default)
mmA=BLOCK_M=128,BLOCK_N=256,STAGES=4,MMA=3,TMA_STORE=0   # the same with direct stores
mmB=BLOCK_M=256,BLOCK_N=128,STAGES=3,MMA=3   # two consumer warpgroups of 2 x m64n128
mmC=BLOCK_M=128,BLOCK_N=256,STAGES=4,CLUSTER=2,MMA=3   # mmD in clusters of 2 multicasting A, one block per tile
mlpF=FUSE=1                                  # gate/up + SwiGLU in one wgmma kernel, 128 x (128 + 128), 4 stages
mlpG=FUSE=1,BLOCK_F=64                       # 128 x (64 + 64) tiles: 10.4 waves at 2048x2048->5504, not 5.2
bench fused_mlp mlpF "$mlpF" fp16 "$mlp_shapes" 20
bench fused_mlp mlpG "$mlpG" fp16 "$mlp_shapes" 20
bench matmul mmD "$mmD" fp16 "$mm_shapes" 22
bench matmul mmD "$mmD" bf16 "$mm_shapes" 22
bench matmul mmC "$mmC" fp16 "$mm_shapes" 20

# ---- 2. GPU suite: fused_mlp first (new on the GPU), then matmul -------------------------------------------
suite() {  # suite NAME FILTER CAP
  say "gpu suite $1 (cap $3 s)"
  AK_WORKER_LOG=$work/worker-$1.log timeout "$3" stdbuf -oL "$bin/test_evaluator_gpu" --gtest_filter="$2" > "$work/suite-$1.log" 2>&1
  echo "suite $1 exit $?" | tee -a "$log"
  grep -E "^\[variant\]|^\[starter\]|^\[  FAILED|^\[  PASSED|tests ran" "$work/suite-$1.log" | cut -c1-300 | tee -a "$log"
  grep -B2 -A14 "Failure" "$work/suite-$1.log" | cut -c1-600 | head -60 | tee -a "$log"
  grep -iE "illegal|error|fault" "$work/worker-$1.log" 2>/dev/null | head -10 | tee -a "$log"
}
suite fused_mlp 'GpuFusedMlp/StarterVariantPasses.*:Gpu/StarterPasses.*/fused_mlp' 22
c=$(( $(left) - 50 )); ((c > 30)) && c=30
((c >= 10)) && suite matmul 'GpuMatmul/StarterVariantPasses.*:Gpu/StarterPasses.*/matmul' $c

# ---- 3. the search climb (MMA is the first tier-1 tunable: it should switch to wgmma first) ------------
l=$(( $(left) - 12 )); ((l > 30)) && l=30
if ((l > 15)); then
  say "search on matmul from the starter (cap ${l}s)"
  s=$work/session
  "$bin/autokernel" new "$s" --kernel matmul --shapes matmul:2048x2048x2048 > "$work/run.log" 2>&1
  timeout -s INT "$l" "$bin/autokernel" run "$s" --agent search --kernel matmul --budget 30 \
    --target-speedup 0 >> "$work/run.log" 2>&1
  echo "run exit $?" | tee -a "$log"
  grep -E "exp [0-9]+ .*(kept|reverted|FAIL|COMPILE|CRASH)" "$work/run.log" | sed -E 's/^\[[0-9:]+\] //' | cut -c1-200 | tee -a "$log"
  grep -E "^error|^usage|cannot|No such" "$work/run.log" | head -5 | tee -a "$log"
else
  say "search skipped: ${l}s left"
fi

# ---- 4. more configurations and bf16 -----------------------------------------------------------------------
bench fused_mlp mlpF "$mlpF" bf16 "$mlp_shapes" 20
bench fused_mlp mlp-vec8 "VEC=8,ROWS_PER_BLOCK=2" fp16 "$mlp_shapes" 18
bench matmul mmA "$mmA" fp16 "$mm_shapes" 22
bench matmul mmB "$mmB" fp16 "$mm_shapes" 22

# ---- 5. SASS ---------------------------------------------------------------------------------------------
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null ||
  python3 -c 'import triton,os;print(os.path.join(os.path.dirname(triton.__file__),"backends/nvidia/bin/cuobjdump"))' 2>/dev/null)
if (($(left) > 8)); then
  say "SASS (${cuobjdump:-no cuobjdump}) and resources"
  for cfg in "mmD:$mmD" "mmC:$mmC" "mlpF:$mlpF" "mlpG:$mlpG"; do
    type=matmul; [[ ${cfg%%:*} == mlp* ]] && type=fused_mlp
    f=$(variant $type "sass-${cfg%%:*}" "${cfg#*:}")
    cache=$work/nvrtc-${cfg%%:*}
    XDG_CACHE_HOME=$cache timeout 20 "$bin/autokernel" compile "$f" --type $type --dtype fp16 > "$work/compile-${cfg%%:*}.txt" 2>&1
    c=$(find "$cache" -name '*.cubin' 2>/dev/null | head -1)
    [[ -x "$cuobjdump" && -n "$c" ]] &&
      echo "${cfg%%:*}: $("$cuobjdump" -sass "$c" | grep -oE 'HGMMA\.[0-9x]+\.[A-Z0-9]+|HMMA\.[0-9]+|UTMALDG[.0-9A-Z]*|USETMAXREG[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')" | tee -a "$log"
    grep -E "ak_kernel0|registers|spill|Performance|error" "$work/compile-${cfg%%:*}.txt" | head -4 | tee -a "$log"
  done
fi

# ---- summary ---------------------------------------------------------------------------------------------
say "summary (ratio = baseline / ours; matmul: cuBLAS, target >= 0.90 (2048^3: 0.85); fused_mlp: composed eager, target > 1)"
column -t -s $'\t' "$tsv" 2>/dev/null || cat "$tsv"
rm -rf "$work"
