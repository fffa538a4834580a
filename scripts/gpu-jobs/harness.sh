#!/usr/bin/env bash
# Harness trust on the H200 (bench/2026-12-02-h200-harness.md): every planted fault of
# tests/fixtures/kernels/faults/ evaluated by the harness of 2026-11-29 (built from .old-src, a `git archive`
# of commit ab84f76, by h200-batch.sh) and by this one; the GPU suite; evaluation wall time with a warm
# worker, before and after; the starters' and the demo session's best kernels timed by both harnesses.
# Sections and faults can be chosen: AK_HARNESS_SECTIONS="faults reference gate wall demo suite" (default all),
# AK_HARNESS_FAULTS="timed_counter:rmsnorm ..." (default all), AK_HARNESS_SIDES="old new" (default both);
# AK_TEST_FILTER narrows the GPU suite.
# targets:
# cap: 400 seconds
# carry: .old-src
set -uo pipefail
bin=$1
out=$OUT/harness; mkdir -p "$out"
old=${AK_OLD_BIN:-/tmp/ak-old/build/bin}
faults=tests/fixtures/kernels/faults
t0=$(date +%s)
log() { echo "=== $* (t+$(( $(date +%s) - t0 ))s)"; }
verdict() { head -1 "$1" | cut -c1-230; }

sections=${AK_HARNESS_SECTIONS:-faults reference gate wall demo suite}
sides=${AK_HARNESS_SIDES:-old new}
want() { [[ " $sections " == *" $1 "* ]]; }
# name:type[:timing dtype]
cases="${AK_HARNESS_FAULTS:-timed_counter:rmsnorm poison_aware_memo:rmsnorm cached_result:reduce drops_small_probs:softmax
ce_drops_rows:cross_entropy writes_input:softmax short_rows:rmsnorm racy_timing_shape:reduce:fp32 far_stray:rmsnorm
workspace_overrun:rmsnorm}"
if want faults; then
log "faults: old harness vs new"
printf '%-20s | %-s\n' fault "verdict (old harness) || verdict (new harness)" > "$out/faults.txt"
for c in $cases; do
  IFS=: read -r name type dt <<< "$c"; dt=${dt:-fp16}
  for side in $sides; do
    b=$bin; pre=(); [[ $side == old ]] && { b=$old; pre=(env -u AK_KERNELS_DIR -u AK_RESOURCES_DIR -u AK_EVALUATOR); }
    "${pre[@]}" timeout 90 "$b/autokernel" bench "$faults/$name.cu" --type "$type" --dtype "$dt" > "$out/$name.$side.txt" 2>&1
    echo "rc=$?" >> "$out/$name.$side.txt"
  done
  printf '%-20s | %s || %s\n' "$name" "$(verdict "$out/$name.old.txt" 2>/dev/null)" "$(verdict "$out/$name.new.txt" 2>/dev/null)" | tee -a "$out/faults.txt"
done
fi
want reference && {
log "a failing reference candidate (far_stray.cu, a stray store on small outputs, as the current best of rmsnorm)"
for side in old new; do
  b=$bin; pre=(); [[ $side == old ]] && { b=$old; pre=(env -u AK_KERNELS_DIR -u AK_RESOURCES_DIR -u AK_EVALUATOR); }
  "${pre[@]}" timeout 90 "$b/autokernel" bench kernels/cuda/rmsnorm.cu --type rmsnorm --shapes 4096x4096 \
    --reference "$faults/far_stray.cu" > "$out/reference.$side.txt" 2>&1
  echo "--- $side:"; grep -E "^reference|^PASS|^FAIL" -A3 "$out/reference.$side.txt" | head -8
done
}

want gate && {
log "plausibility gate end to end: the rmsnorm and matmul starters against ceilings divided by 100 (a doctored cache)"
gc=$(mktemp -d /tmp/ak-gate.XXXXXX)
XDG_CACHE_HOME=$gc timeout 120 "$bin/autokernel" ceilings > "$out/gate-ceilings.txt" 2>&1
f=$(ls "$gc"/autokernel/ceilings-*.json 2>/dev/null | head -1)
if [[ -n "$f" ]]; then
  python3 - "$f" <<'PY'
import json, sys
p = sys.argv[1]; c = json.load(open(p))
for e in c["copy_gb_s"]: e["gb_s"] /= 100
for k in c["gemm_tflops"]: c["gemm_tflops"][k] /= 100
json.dump(c, open(p, "w"), indent=2)
PY
  for t in rmsnorm matmul; do
    XDG_CACHE_HOME=$gc timeout 90 "$bin/autokernel" bench "kernels/cuda/$t.cu" --type "$t" > "$out/gate-$t.txt" 2>&1
    echo "gate $t: $(head -1 "$out/gate-$t.txt" | cut -c1-120) | $(grep -m1 -E 'physically|^FAIL' "$out/gate-$t.txt" | cut -c1-300)"
  done | tee "$out/gate.txt"
else
  echo "gate: no ceilings cache was written under $gc" | tee "$out/gate.txt"; cat "$out/gate-ceilings.txt"
fi
}

want wall && {
log "evaluation wall time with a warm worker (bench --repeat 4), old vs new"
for t in rmsnorm softmax layernorm reduce cross_entropy rotary_embedding; do
  for side in $sides; do
    b=$bin; pre=(); [[ $side == old ]] && { b=$old; pre=(env -u AK_KERNELS_DIR -u AK_RESOURCES_DIR -u AK_EVALUATOR); }
    "${pre[@]}" timeout 120 "$b/autokernel" bench "kernels/cuda/$t.cu" --type "$t" --repeat 4 > "$out/repeat-$t.$side.txt" 2>&1
    echo "$t $side: $(grep -iE "wall|evaluation" "$out/repeat-$t.$side.txt" | tail -3 | tr '\n' ' ')"
  done
done | tee "$out/wall.txt"
}

want demo && {
log "demo session's best kernels and the starters: old vs new timings"
for f in ${AK_HARNESS_DEMO_FILES:-resources/demo-session/kernels/*.cu kernels/cuda/*.cu}; do
  t=$(grep -m1 -o '@autokernel type [a-z_]*' "$f" | awk '{print $3}')
  what=demo; [[ $f == kernels/cuda/* ]] && what=starter
  for side in $sides; do
    b=$bin; pre=(); [[ $side == old ]] && { b=$old; pre=(env -u AK_KERNELS_DIR -u AK_RESOURCES_DIR -u AK_EVALUATOR); }
    "${pre[@]}" timeout 120 "$b/autokernel" bench "$f" --type "$t" > "$out/$what-$t.$side.txt" 2>&1
    echo "$what $t $side: $(head -1 "$out/$what-$t.$side.txt" | cut -c1-200)"
  done
done | tee "$out/demo.txt"
}

want suite && {
log "GPU suite (new harness)"
AK_WORKER_LOG=$out/worker.log timeout 300 "$bin/test_evaluator_gpu" ${AK_TEST_FILTER:+--gtest_filter=$AK_TEST_FILTER} \
  > "$out/gpu-suite.log" 2>&1; echo "suite exit $?"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|tests ran|\[fault\]|\[starter\]" "$out/gpu-suite.log" | tail -45
}
log "summary"; cat "$out/faults.txt" 2>/dev/null
