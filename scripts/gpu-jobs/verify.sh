#!/usr/bin/env bash
# GPU job of `autokernel verify` (issue 10, docs/verify.md): the evidence run of
# bench/2026-12-03-h200-model.md. For llama-160m and gpt2 (fp16, inference, batch 8, seq 1024):
#   autokernel profile -> autokernel new --from-profile (every type the profile has) ->
#   autokernel run --agent search --kernel-budget N (every kernel of the session: its starter measured,
#   the presets for the GPU, then the sweep), then a run for the rest of the model's search time in the
#   orchestrator's order (share of model time x headroom) ->
#   autokernel verify (the model from the session's profile; every evaluated kernel, then --faster-only).
# Then, as time allows, test_verify_gpu. The llama-160m session is packed (llama-session.tar.gz, < 2 MB).
# Usage: scripts/gpu-jobs/verify.sh BIN_DIR. Writes everything under $OUT/verify/; the summary last.
# targets: autokernel autokernel-evaluator autokernel-profiler test_verify_gpu
# cap: 170 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: verify.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/verify
mkdir -p "$out"
work=$(mktemp -d /tmp/verify-job.XXXXXX)
t0=$(date +%s)
cap=$(( $(grep -m1 '^# cap:' "$0" | grep -o '[0-9]\+') - 4 ))  # the cap line's, less a margin
left() { echo $((cap - ($(date +%s) - t0))); }
say() { echo "=== $* (t+$(($(date +%s) - t0))s, $(left)s left)" | tee -a "$out/log.txt"; }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=$work/cache
ak=$bin/autokernel
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
batch=${AK_VERIFY_BATCH:-8}; seq=${AK_VERIFY_SEQ:-1024}
# Search time per model (at most): what the cap leaves after profiles and verifies (about 56 s for both
# models), halved; 55 s under a 170 s cap. Experiments per kernel: 4, or 3 when that is under 40 s.
search_s=${AK_VERIFY_SEARCH_S:-$(( (cap - 56) / 2 ))}; (( search_s > 55 )) && search_s=55
per_kernel=${AK_VERIFY_PER_KERNEL:-4}; [[ -z ${AK_VERIFY_PER_KERNEL:-} ]] && (( search_s < 40 )) && per_kernel=3

# verify LABEL SESSION TIMEOUT ARGS...: the text report (and verify.json unless --no-save), timed.
verify() {
  local label=$1 s=$2 t=$3; shift 3
  local s0=$(date +%s)
  timeout "$t" "$ak" verify "$s" "$@" --timeout $((t - 1)) > "$out/$label.txt" \
    2> >(while IFS= read -r l; do echo "+$(( $(date +%s%N) / 1000000 - s0 * 1000 ))ms $l"; done > "$out/$label.err")
  local rc=$?
  sleep 0.2
  note "$label: exit $rc in $(($(date +%s) - s0)) s"
  grep -E '^verify|graph \(|eager \(|A/A|speedup: measured' "$out/$label.txt" | head -8 | tee -a "$summary"
  [[ $rc != 0 ]] && tail -6 "$out/$label.err"
}

# The bench table of one verify.json: per type and per model.
table() {  # table LABEL VERIFY_JSON
  python3 - "$1" "$2" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
label, path = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{label}: no verify.json ({e})"); sys.exit()
m = r.get("measurement") or {}
cov = {c["type"]: c for c in r.get("coverage_by_type", [])}
x = lambda v: "-" if v is None else f"{v:.2f}x"
print(f"### {label}: {r['verdict']}, {m.get('model_description', '')}")
print("| kernel | type | share (profile) | kernel speedup at the model's shapes | substituted | calls ours/all | ATen us | ours+fallback us | in-model |")
print("|---|---|---|---|---|---|---|---|---|")
for k in r.get("kernels", []):
    c = cov.get(k["type"], {})
    calls = f"{c.get('routed_calls', 0)}/{c.get('routed_calls', 0) + c.get('fallback_calls', 0)}" if c else "-"
    sub = "yes" if k.get("substituted", True) else "no: " + k.get("skipped", "")[:50]
    au = f"{c['aten_us']:.0f}" if c.get("aten_us") else "-"
    ou = f"{c['routed_us'] + c['fallback_us']:.0f}" if c else "-"
    print(f"| {k['name']} | {k['type']} | {k.get('model_fraction', 0) * 100:.1f} % | {x(k.get('kernel_speedup'))} "
          f"(exp {k.get('best_experiment', '-')}) | {sub} | {calls} | {au} | {ou} | {x(c.get('in_model_speedup'))} |")
o = m.get("output", {})
print(f"output ({o.get('name')}): norm-relative error {o.get('norm_rel_err', float('nan')):.2e} (tolerance {o.get('tolerance', 0):.0e}), "
      f"max abs {o.get('max_abs_err', float('nan')):.2e}, {'PASS' if o.get('passed') else 'FAIL'}")
print(f"predicted (Amdahl, profile shares x session speedups) {x(r.get('predicted_speedup'))}; "
      f"from this run's per-op GPU times {x(r.get('in_model_predicted_speedup'))}")
for t in m.get("timings", []):
    if not t.get("measured"):
        print(f"{t['mode']}: not measured: {t.get('reason')}"); continue
    u, c, s, a, sp = t["unmodified"], t["control"], t["substituted"], t["control_ratio"], t["speedup"]
    print(f"{t['mode']}: unmodified {u['median_ms']:.3f} ms (IQR {u['iqr_ms']:.3f}), A/A control {c['median_ms']:.3f}, ours {s['median_ms']:.3f} ms "
          f"(IQR {s['iqr_ms']:.3f}); {u['samples']} samples x {t['passes_per_sample']} passes; "
          f"A/A {a['median']:.3f} [{a['q1']:.3f}-{a['q3']:.3f}] floor +-{t['noise_floor'] * 100:.1f} %; "
          f"measured {sp['median']:.3f}x [{sp['q1']:.3f}-{sp['q3']:.3f}]: {t['verdict']}")
for e in r.get("explanations", [])[:10]:
    print("  " + e[:240])
PY
}

# configs SESSION: each kernel's best (the session's work tree) as the tunables that differ from its starter.
configs() {
  python3 - "$1" "$root/kernels/cuda" <<'PY'
import json, re, sys, pathlib
session, starters = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
values = lambda text: dict(re.findall(r"^// @autokernel tunable (\w+) = (\S+)", text, re.M))
for k in json.load(open(session / "session.json"))["kernels"]:
    best = values((session / "kernels" / f"{k['name']}.cu").read_text())
    start = values((starters / f"{k['type']}.cu").read_text())
    diff = " ".join(f"{n}={v}" for n, v in best.items() if start.get(n) != v)
    print(f"config {k['name']}: {diff or 'the starter'}")
PY
}

for model in llama-160m gpt2; do
  s=$work/$model
  say "$model b$batch s$seq fp16: profile"
  p0=$(date +%s)
  pt=20; [[ $model == gpt2 ]] && (( $(left) < 60 )) && pt=$(( $(left) / 3 ))
  timeout $pt "$ak" profile --model "$model" --batch $batch --seq $seq --dtype fp16 --out "$out/$model-profile" > "$out/$model-profile.log" 2>&1
  note "$model profile: exit $? in $(($(date +%s) - p0)) s"; tail -2 "$out/$model-profile.log"
  rm -f "$out/$model-profile/trace.json"
  [[ -s $out/$model-profile/profile.json ]] || { note "$model: no profile.json"; continue; }
  "$ak" new "$s" --from-profile "$out/$model-profile/profile.json" --top 10 --min-share 0.005 > "$out/$model-new.log" 2>&1
  note "$model new --from-profile: exit $?"; head -14 "$out/$model-new.log" | tee -a "$summary"
  [[ -d $s ]] || continue
  # One run reaches every kernel: --kernel-budget moves on from a kernel after its experiments of this
  # run (the starter's measurement, the presets for this GPU, then the sweep), in the orchestrator's
  # order (share of model time x headroom). --target-speedup 0: a preset is far more than 2x the scalar
  # starter, and the sweep should still climb from it. --hours: a soft cap, the timeout the hard one.
  # What the rest needs at most: this model's two verifies (up to 15 s each) and, after llama, gpt2's whole
  # pipeline (profile, search, verifies).
  reserve=32; [[ $model == llama-160m ]] && reserve=$((32 + 8 + search_s))
  st=$(( $(left) - reserve )); (( st > search_s )) && st=$search_s; (( st < 12 )) && st=12
  hours=$(python3 -c "print(round($st / 3600, 5))")
  say "$model: run --agent search --kernel-budget $per_kernel --target-speedup 0 --hours $hours ($st s)"
  p0=$(date +%s)
  timeout -s INT -k 5 $((st + 10)) "$ak" run "$s" --agent search --kernel-budget $per_kernel --target-speedup 0 \
    --hours "$hours" > "$out/$model-run.log" 2>&1
  note "$model run: exit $? in $(($(date +%s) - p0)) s"
  # The rest of the model's search time in the orchestrator's order, without a per-kernel budget: the
  # kernel with the largest share x headroom first, until a move-on rule or exhaustion.
  rest=$(( st - ($(date +%s) - p0) ))
  if (( rest >= 8 )); then
    hours=$(python3 -c "print(round($rest / 3600, 5))")
    say "$model: run --agent search --target-speedup 0 --hours $hours ($rest s, the orchestrator's order)"
    p1=$(date +%s)
    echo "---- autokernel run --agent search --target-speedup 0 --hours $hours" >> "$out/$model-run.log"
    timeout -s INT -k 5 $((rest + 8)) "$ak" run "$s" --agent search --target-speedup 0 --hours "$hours" \
      >> "$out/$model-run.log" 2>&1
    note "$model run (rest): exit $? in $(($(date +%s) - p1)) s"
  fi
  grep -E '^\[..:..:..\] exp' "$out/$model-run.log" | cut -c1-300 > "$out/$model-experiments.txt"; cat "$out/$model-experiments.txt"
  configs "$s" | tee "$out/$model-configs.txt" | tee -a "$summary"
  "$ak" session summary "$s" > "$out/$model-summary.txt" 2>&1; head -16 "$out/$model-summary.txt" | tee -a "$summary"
  cp "$s/results.tsv" "$out/$model-results.tsv" 2>/dev/null
  # 1. every kernel the harness passed in the session (what each does inside the model), not saved;
  # 2. only those faster than PyTorch: the faster model, saved as the session's verify.json.
  # No --model: the model, batch, seq and dtype come from the session's profile.
  say "$model: verify (every evaluated kernel)"
  if (( $(left) > 26 )); then verify "$model-verify-evaluated" "$s" 15 --iterations 20 --no-save --json; fi
  cp "$out/$model-verify-evaluated.txt" "$out/$model-verify-evaluated.json"
  say "$model: verify --faster-only"
  vt=15; (( $(left) < 17 )) && vt=$(( $(left) - 2 ))
  (( vt > 3 )) && verify "$model-verify" "$s" $vt --iterations 20 --faster-only
  cp "$s/verify.json" "$out/$model-verify.json" 2>/dev/null
  if [[ $model == llama-160m ]]; then
    cp "$out/$model-profile/profile.json" "$s/profile.json" 2>/dev/null
    tar -C "$work" -czf "$out/llama-session.tar.gz" --exclude='cache' "$model" 2>/dev/null
    note "llama session packed: $(du -k "$out/llama-session.tar.gz" | cut -f1) KiB"
  fi
done

say "tables"
for model in llama-160m gpt2; do
  table "$model evaluated kernels" "$out/$model-verify-evaluated.json" > /dev/null
  table "$model --faster-only" "$out/$model-verify.json" > /dev/null
done
if (( $(left) > 25 )) && [[ -x $bin/test_verify_gpu ]]; then
  say "test_verify_gpu"
  timeout $(( $(left) - 3 )) "$bin/test_verify_gpu" > "$out/test_verify_gpu.log" 2>&1
  note "test_verify_gpu: exit $? ($(grep -cE '^\[       OK \]' "$out/test_verify_gpu.log") passed, $(grep -cE '^\[  FAILED  \] [A-Za-z].* \(' "$out/test_verify_gpu.log") failed)"
fi
say "done"
echo "---- verify job summary (details in \$OUT/verify/)"
tail -80 "$summary"
rm -rf "$work"
