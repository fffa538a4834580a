#!/usr/bin/env bash
# GPU job of fused_mlp (SwiGLU, issue 12: faster than the at::matmul-composed eager MLP at AutoKernel's two
# sizes, 2048,2048->5504 and 4096,4096->11008, fp16 and bf16) and of the search climbs.
#   pieces - the composed baseline taken apart in torch (CUDA events, L2 flushed, median and IQR of 50):
#            the gate and up GEMMs, silu, mul, the down GEMM, and one [w_gate; w_up] GEMM; where the
#            2048 case's time goes;
#   pairs  - `autokernel bench` of two fused_mlp configurations side by side (the candidate with its five
#            correctness stages in the timed dtype, --reference timed in the same run) and the composed
#            baseline, both sizes (and 1920,2048->5632: 15 x 44 = 660 tiles of 128 x 128, exactly five
#            waves on 132 SMs, to see what the 2048 case's 5.2 waves cost);
#   climb  - `autokernel new` + `autokernel run --agent search` from the starter, short budgets: fused_mlp
#            at 2048,2048->5504 and flash_attention at B2 H32 S1024 D64 causal (fp16): every experiment.
# Sections: AK_MLP_SECTIONS (default "pieces pairs climb"), in that order; the climbs get what is left.
# Usage: scripts/gpu-jobs/kern-mlp.sh BIN_DIR. Writes $OUT/kern-mlp/{log.txt,bench.tsv,pieces.txt,
# climb-*.log,bench-*.json|err}; prints the summary table last.
# targets: autokernel
# cap: 90 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: kern-mlp.sh BIN_DIR}" && pwd)
cap=$(grep -m1 '^# cap:' "$0" | grep -o '[0-9]\+')
out=${OUT:-/tmp/out}/kern-mlp
mkdir -p "$out"
work=$(mktemp -d /tmp/kern-mlp.XXXXXX)
log="$out/log.txt"
tsv="$out/bench.tsv"
: > "$log"
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$log"; }
left() { echo $((cap - ($(date +%s) - t0) - 3)); }
sections=${AK_MLP_SECTIONS:-pieces pairs climb}
want() { [[ " $sections " == *" $1 "* ]]; }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH

variant() {  # variant TYPE NAME TUNABLES(NAME=VALUE,...) -> path of a copy of the starter with those defaults
  local f="$work/$2.cu"
  cp "$root/kernels/cuda/$1.cu" "$f"
  for kv in ${3//,/ }; do sed -E -i "s/(@autokernel tunable ${kv%%=*} = )[0-9]+/\1${kv#*=}/" "$f"; done
  echo "$f"
}

sizes=2048x2048x5504,4096x4096x11008
printf 'config\tdtype\tshape\tours_us\tiqr_us\tbaseline_us\tbaseline_iqr_us\tratio\ttflops\n' > "$tsv"
n=0
pair() {  # pair DTYPE SHAPES CANDIDATE REFERENCE LIMIT: fused_mlp configurations (NAME=VALUE,...; "-" none)
  local dt=$1 shapes=$2 a=$3 b=$4 lim=$5
  n=$((n + 1))
  if (($(left) < lim)); then say "pair $n skipped ($(left)s left): $a | $b $dt"; return; fi
  say "pair $n $dt: $a | ref $b | $shapes"
  local fa fb ref=()
  fa=$(variant fused_mlp "p$n-a" "$a")
  if [[ $b != - ]]; then fb=$(variant fused_mlp "p$n-b" "$b"); ref=(--reference "$fb"); fi
  timeout -k 2 "$lim" "$bin/autokernel" bench "$fa" --type fused_mlp --dtype "$dt" --check-dtypes "$dt" \
    --shapes "$shapes" --timeout $((lim - 1)) "${ref[@]}" --json > "$out/bench-$n.json" 2> "$out/bench-$n.err"
  echo "rc=$?" | tee -a "$log"
  python3 - "$out/bench-$n.json" "$a" "$b" >> "$tsv" 2> "$work/parse.txt" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"# no JSON: {e}", file=sys.stderr); sys.exit(0)
v = r.get('verdict'); d = str(r.get('detail', ''))
print(f"# {sys.argv[2]}: {v} {d[:300] if v == 'PASS' else d[:1500]}", file=sys.stderr)
for key, cfg in (('compile', sys.argv[2]), ('reference_compile', sys.argv[3])):
    cs = r.get(key) or []
    for c in (cs if isinstance(cs, list) else [cs]):
        fs = ' '.join(f"{f['name']} {f['registers']} regs {f['spill_bytes']} B spilled" for f in c.get('functions', []))
        print(f"#   compile {cfg} {c.get('dtype')}: ok={c.get('ok')} {fs} {c.get('compile_ms', 0):.0f} ms"
              + ('' if c.get('ok') else ' ' + str(c.get('log', ''))[:800]), file=sys.stderr)
for k in r.get('checks', []):
    if not k.get('passed', True):
        print(f"#   failed check: {json.dumps(k)[:600]}", file=sys.stderr)
for key, cfg in (('timing', sys.argv[2]), ('reference_timing', sys.argv[3])):
    for t in r.get(key) or []:
        s = 'x'.join(str(x) for x in t['shape'])
        b = t['baseline_median_us']
        print(f"{cfg}\t{t['dtype']}\t{s}\t{t['median_us']:.1f}\t{t.get('iqr_us', 0):.1f}\t{b:.1f}\t"
              f"{t.get('baseline_iqr_us', 0):.1f}\t{b / t['median_us']:.3f}\t{t['tflops']:.0f}")
print(f"#   wall {r.get('wall_ms', 0):.0f} ms", file=sys.stderr)
PY
  tee -a "$log" < "$work/parse.txt" | grep -v '^#   compile'
  grep -q ": PASS" "$work/parse.txt" || grep -v '^\s*$' "$out/bench-$n.err" | head -c 1500 | tee -a "$log"
  tail -n +2 "$tsv" | awk -F'\t' -v a="$a" -v b="$b" '$1 == a || $1 == b' | cut -f1-4,6,8 | tr '\t' ' '
}

climb() {  # climb TYPE SHAPE LIMIT_S: the search agent from the starter; every experiment
  local type=$1 shape=$2 l=$3
  if (($(left) < l)); then l=$(($(left) - 1)); fi
  if ((l < 8)); then say "climb $type $shape skipped (${l}s left)"; return; fi
  say "climb: autokernel run --agent search on $type $shape from the starter (limit ${l}s)"
  local s=$work/session-$type rl=$out/climb-$type.log
  "$bin/autokernel" new "$s" --kernel "$type" --shapes "$type:$shape" > "$rl" 2>&1
  local ts; ts=$(date +%s)
  timeout -s INT -k 3 "$l" "$bin/autokernel" run "$s" --agent search --kernel "$type" --budget 60 \
    --target-speedup 0 --max-reverts 0 --ceiling-fraction 0 >> "$rl" 2>&1
  echo "run exit $? after $(($(date +%s) - ts)) s" | tee -a "$log"
  grep -E "exp [0-9]+ " "$rl" | sed -E 's/ -- (kept|reverted): ([^{]{0,60})[^{]*/ -- \1: \2/' | cut -c1-260 | tee -a "$log"
  grep -E "error|usage|cannot|No such" "$rl" | head -6 | tee -a "$log"
  local f; f=$(ls "$s"/kernels/*.cu 2>/dev/null | head -1)
  [[ -n $f ]] && grep -E "@autokernel tunable" "$f" | sed -E 's/ \{.*//; s/.*tunable //; s/ = /=/' | tr '\n' ' ' |
    sed "s/^/best $type: /" | tee -a "$log" && echo | tee -a "$log"
}

# ---- the composed baseline taken apart ---------------------------------------------------------------
if want pieces && (($(left) > 20)); then
  say "pieces: the composed eager MLP's kernels, one at a time (torch, CUDA events)"
  timeout 15 python3 - <<'PY' 2>&1 | tee "$out/pieces.txt" | tee -a "$log"
import torch, statistics as st
torch.backends.cuda.matmul.allow_tf32 = False
flush = torch.empty(256 << 20, dtype=torch.uint8, device='cuda')
def t(fn, n=40):
    fn(); torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        flush.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b) * 1000)
    q = st.quantiles(ts, n=4)
    return st.median(ts), q[2] - q[0]
for M, D, F in ((2048, 2048, 5504), (4096, 4096, 11008)):
    for dt in (torch.float16, torch.bfloat16):
        x = torch.randn(M, D, device='cuda', dtype=dt)
        wgu = torch.randn(2 * F, D, device='cuda', dtype=dt) / D ** 0.5
        wg, wu = wgu[:F], wgu[F:]
        wd = torch.randn(D, F, device='cuda', dtype=dt) / F ** 0.5
        g = x @ wg.t(); u = x @ wu.t(); s = torch.nn.functional.silu(g); h = s * u
        rows = [('gate GEMM', lambda: x @ wg.t()), ('up GEMM', lambda: x @ wu.t()),
                ('silu', lambda: torch.nn.functional.silu(g)), ('mul', lambda: s * u),
                ('down GEMM', lambda: h @ wd.t()), ('[gate;up] one GEMM', lambda: x @ wgu.t()),
                ('composed total', lambda: (torch.nn.functional.silu(x @ wg.t()) * (x @ wu.t())) @ wd.t())]
        name = 'fp16' if dt == torch.float16 else 'bf16'
        for r, fn in rows:
            med, iqr = t(fn)
            fl = {'gate GEMM': 2 * M * D * F, 'up GEMM': 2 * M * D * F, 'down GEMM': 2 * M * D * F,
                  '[gate;up] one GEMM': 4 * M * D * F, 'composed total': 6 * M * D * F}.get(r, 0)
            print(f"pieces {M}x{D}x{F} {name} {r:20s} {med:8.1f} us (IQR {iqr:.1f})" + (f" {fl / med / 1e6:.0f} TFLOP/s" if fl else ''))
PY
fi

# ---- fused_mlp configurations side by side --------------------------------------------------------------
if want pairs; then
  # Call 2 (the final evidence): the winner of call 1 (the hopper preset) in both dtypes beside FUSE=1 as it
  # was, the winner with STAGGER=2 beside it, and the starter (FUSE=0) beside its VEC=8 form. Call 1 (the
  # landscape: SPLIT_TAIL 2/4, FAST_SILU, ONE_WGMMA, STAGGER, BLOCK_M 64, STAGES 2/3, GROUP_M 1/16,
  # STAGED_STORE, 1920x2048x5632) is in bench/2026-12-03-h200-mlp/call1/.
  best=FUSE=1,SPLIT_TAIL=4,FAST_SILU=1,ONE_WGMMA=1
  pair fp16 $sizes $best FUSE=1 14
  pair bf16 $sizes $best FUSE=1 14
  pair fp16 $sizes $best,STAGGER=2 $best 14
  pair bf16 $sizes $best,STAGGER=2 $best 14
  pair fp16 $sizes FUSE=0 FUSE=0,VEC=8,ROWS_PER_BLOCK=2 12
fi

# ---- the search climbs ---------------------------------------------------------------------------------
if want climb; then
  climb fused_mlp 2048x2048x5504 ${AK_MLP_CLIMB_MLP:-18}
  climb flash_attention 2x32x1024x64:causal $(($(left) - 1))
fi

say "summary (ratio = composed eager / ours; target > 1)"
# One line per configuration and dtype: per shape ours (IQR) / composed (IQR) in us, and the ratio.
python3 - "$tsv" <<'PY'
import sys, collections
rows = collections.OrderedDict()
for line in open(sys.argv[1]).read().splitlines()[1:]:
    c, dt, shape, us, iqr, b, biqr, ratio, tf = line.split('\t')
    rows.setdefault((c, dt), []).append(f"{shape} {us}({iqr})/{b}({biqr}) {ratio}")
for (c, dt), cells in rows.items():
    print(f"{c:34s} {dt} " + ' | '.join(cells))
PY
grep -h "^pieces .*\(GEMM\|total\)" "$out/pieces.txt" 2>/dev/null | grep 2048x2048x5504 | head -8
grep -E "^best |run exit" "$log" | cut -c1-300
rm -rf "$work"
