#!/usr/bin/env bash
# GPU job of `autokernel verify` (issue 10 §2, docs/verify.md):
#   1. the GPU tests (tests/core/engine/gpu/test_verify_gpu.cpp): the starters substituted in llama-160m
#      and gpt2 at their own shapes (outputs within tolerance, every per-call check passes, coverage 100 %),
#      a planted wrong rmsnorm (FAIL naming it), an rmsnorm hitting an illegal address (named, the caller
#      survives), unverified shapes falling back;
#   2. a TorchScript model (made here with torch.jit.script: Linear, LayerNorm, softmax, a last-dim sum)
#      verified with matmul, layernorm, softmax and reduce substituted at the dispatcher;
#   3. for llama-160m and gpt2 (fp16, inference): profile -> new --from-profile -> run --agent search
#      (a small budget) -> verify. Where `autokernel profile` or `new --from-profile` is not in this build,
#      the session is made with `new --kernel ... --shapes ...` at the model's shapes instead (no shares,
#      so no Amdahl prediction), and the summary says so.
# Usage: scripts/gpu-jobs/verify.sh BIN_DIR. Writes everything under $OUT/verify/ (logs, sessions'
# verify.json, the reports); prints the summary table last.
# targets: autokernel autokernel-evaluator test_verify_gpu
# cap: 200 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: verify.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/verify
mkdir -p "$out"
work=$(mktemp -d /tmp/verify-job.XXXXXX)
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$out/log.txt"; }
left() { echo $((200 - ($(date +%s) - t0))); }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH
export XDG_CACHE_HOME=$work/cache
ak=$bin/autokernel
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

# A verify.json as one table row: model | verdict | err | ms | speedups | coverage.
row() {  # row LABEL SESSION_DIR
  python3 - "$1" "$2/verify.json" <<'EOF' 2>&1 | tee -a "$summary"
import json, sys
label, path = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{label:<22} no verify.json ({e})"); sys.exit()
m = r.get("measurement") or {}
o = m.get("output", {})
u, s = m.get("unmodified"), m.get("substituted")
f = lambda x: "-" if x is None else (f"{x:.3f}x" if isinstance(x, float) else str(x))
ms = f"{u['median_ms']:.3f}/{s['median_ms']:.3f} ms" if u and s else "not timed"
cov = " ".join(f"{c['type']}:{c['routed_calls']}/{c['routed_calls'] + c['fallback_calls']}" for c in r.get("coverage_by_type", []))
print(f"{label:<22} {r['verdict']:<5} err {o.get('norm_rel_err', float('nan')):.1e} (tol {o.get('tolerance', 0):.0e}) "
      f"{ms} measured {f(r.get('measured_speedup'))} predicted {f(r.get('predicted_speedup'))} in-model {f(r.get('in_model_predicted_speedup'))} | {cov}")
for k in r.get("kernels", []):
    sub = "" if k.get("substituted", True) else "  not substituted: " + k.get("skipped", "")[:60]
    print(f"    {k['name']:<20} {k['type']:<16} share {k.get('model_fraction', 0) * 100:5.1f} %  kernel speedup {f(k.get('kernel_speedup'))}{sub}")
for e in r.get("explanations", [])[:4]:
    print("    " + e[:200])
EOF
}

# ---- 1. the GPU tests
say "GPU tests: test_verify_gpu"
if [[ -x $bin/test_verify_gpu ]]; then
  timeout 110 "$bin/test_verify_gpu" > "$out/test_verify_gpu.log" 2>&1
  rc=$?
  note "test_verify_gpu: exit $rc ($(grep -cE '^\[       OK \]' "$out/test_verify_gpu.log") passed, $(grep -cE '^\[  FAILED  \] [A-Za-z]' "$out/test_verify_gpu.log") failed)"
  grep -E '^\[  FAILED  \]|Failure|error:|Expected|Which is|verify (PASS|FAIL)|fallback:' "$out/test_verify_gpu.log" | head -30
  grep -E '^\[ +(OK|FAILED) +\]' "$out/test_verify_gpu.log" | head -12
else
  note "test_verify_gpu: not built"
fi

# ---- 2. a TorchScript model through the dispatcher
say "TorchScript: Linear + LayerNorm + softmax + sum, fp16"
ts=$work/tiny.pt
# torch.jit.script reads the module's source: the script must be a file.
cat > "$work/make_tiny.py" <<'EOF'
import sys, torch
class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(256, 512)
        self.norm = torch.nn.LayerNorm(512)
    def forward(self, x):
        h = torch.softmax(self.norm(self.fc(x)), dim=-1)
        return h * h.sum(-1, keepdim=True)
torch.manual_seed(0)
m = torch.jit.script(Tiny().half().cuda().eval())
m.save(sys.argv[1])
print("saved", sys.argv[1])
EOF
if python3 "$work/make_tiny.py" "$ts" > "$out/torchscript-make.log" 2>&1
then
  "$ak" new "$work/ts" --kernel matmul --kernel layernorm --kernel softmax --kernel reduce \
    --shapes matmul:64x512x256 --shapes layernorm:64x512 --shapes softmax:64x512 --shapes reduce:64x512 > "$out/ts-new.log" 2>&1
  timeout 60 "$ak" verify "$work/ts" --torchscript "$ts" --input 64x256:fp16 --iterations 10 --timeout 50 --unevaluated > "$out/ts-verify.txt" 2> "$out/ts-verify.err"
  note "torchscript verify: exit $?"; head -30 "$out/ts-verify.txt"; tail -5 "$out/ts-verify.err"
  cp "$work/ts/verify.json" "$out/ts-verify.json" 2>/dev/null
else
  note "torchscript: could not make the model (see torchscript-make.log)"; tail -3 "$out/torchscript-make.log"
fi

# ---- 3. profile -> new --from-profile -> run -> verify, per model
have_profile=0; "$ak" profile --help > /dev/null 2>&1 && have_profile=1
have_from=0; "$ak" new --help 2>&1 | grep -q -- '--from-profile' && have_from=1
note "autokernel profile: $([[ $have_profile == 1 ]] && echo present || echo 'not in this build (sessions made at the model shapes instead)'); new --from-profile: $([[ $have_from == 1 ]] && echo present || echo absent)"

batch=2; seq=256
declare -A fallback_kernels fallback_shapes
# The model's own shapes at batch 2, seq 256 (rows = 512).
fallback_kernels[llama-160m]="rmsnorm rotary_embedding flash_attention fused_mlp matmul"
fallback_shapes[llama-160m]="rmsnorm:512x768 rotary_embedding:2x12x256x64 flash_attention:2x12x256x64:causal fused_mlp:512x768x3072 matmul:512x768x768,512x32000x768"
fallback_kernels[gpt2]="layernorm flash_attention matmul"
fallback_shapes[gpt2]="layernorm:512x768 flash_attention:2x12x256x64:causal matmul:512x2304x768,512x768x768,512x3072x768,512x768x3072,512x50257x768"

for model in llama-160m gpt2; do
  s=$work/$model
  say "$model: profile -> session -> run -> verify ($(left)s left)"
  made=""
  if [[ $have_profile == 1 && $have_from == 1 ]]; then
    timeout 60 "$ak" profile --model "$model" --batch $batch --seq $seq --dtype fp16 --out "$out/$model-profile" \
      > "$out/$model-profile.log" 2>&1
    echo "profile exit $?" >> "$out/$model-profile.log"; tail -4 "$out/$model-profile.log"
    rm -f "$out/$model-profile/trace.json"  # large; the report and profile.json stay
    if [[ -s $out/$model-profile/profile.json ]]; then
      "$ak" new "$s" --from-profile "$out/$model-profile/profile.json" --top 5 > "$out/$model-new.log" 2>&1 && made="from the profile"
      cat "$out/$model-new.log" | head -12
    fi
  fi
  if [[ -z $made ]]; then
    args=(); for k in ${fallback_kernels[$model]}; do args+=(--kernel "$k"); done
    for sh in ${fallback_shapes[$model]}; do args+=(--shapes "$sh"); done
    rm -rf "$s"; "$ak" new "$s" "${args[@]}" > "$out/$model-new.log" 2>&1 && made="at the model's shapes (no profile shares)"
    tail -3 "$out/$model-new.log"
  fi
  note "$model: session made $made"
  [[ -d $s ]] || continue
  budget=${AK_VERIFY_BUDGET:-24}
  (( $(left) < 90 )) && budget=8
  timeout -s INT -k 10 $(( $(left) > 100 ? 45 : 20 )) "$ak" run "$s" --agent search --budget "$budget" > "$out/$model-run.log" 2>&1
  echo "run exit $?" >> "$out/$model-run.log"; tail -6 "$out/$model-run.log"
  "$ak" session summary "$s" > "$out/$model-summary.txt" 2>&1; head -12 "$out/$model-summary.txt"
  iters=20; (( $(left) < 50 )) && iters=5
  # Every kernel the harness passed in the session (diagnostics: what each does inside the model) ...
  vt=$(( $(left) > 40 ? 30 : $(left) / 2 ))
  timeout $vt "$ak" verify "$s" --model "$model" --batch $batch --seq $seq --iterations $iters --timeout $((vt - 5)) \
    --no-save > "$out/$model-verify-evaluated.txt" 2> "$out/$model-verify-evaluated.err"
  echo "verify (evaluated kernels) exit $?" | tee -a "$out/$model-verify-evaluated.txt"
  tail -4 "$out/$model-verify-evaluated.err"
  note "$model, every evaluated kernel: $(grep -m1 'speedup: measured' "$out/$model-verify-evaluated.txt" | sed 's/^ *//')"
  # ... and only those faster than PyTorch: the faster model, saved as the session's verify.json.
  vt=$(( $(left) > 40 ? 30 : $(left) - 5 ))
  timeout $vt "$ak" verify "$s" --model "$model" --batch $batch --seq $seq --iterations $iters --timeout $((vt - 5)) \
    --faster-only > "$out/$model-verify.txt" 2> "$out/$model-verify.err"
  echo "verify --faster-only exit $?" | tee -a "$out/$model-verify.txt"
  tail -4 "$out/$model-verify.err"
  cp "$s/verify.json" "$out/$model-verify.json" 2>/dev/null
  cp "$s/results.tsv" "$out/$model-results.tsv" 2>/dev/null
done

say "summary"
row "torchscript (tiny)" "$work/ts" > /dev/null
for model in llama-160m gpt2; do row "$model b$batch s$seq fp16" "$work/$model" > /dev/null; done
echo "---- verify job summary (details in \$OUT/verify/)"
tail -45 "$summary"
rm -rf "$work"
