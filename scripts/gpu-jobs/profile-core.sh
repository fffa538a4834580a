#!/usr/bin/env bash
# GPU job of the profile CLI (issues 9 and 10, the CPU side): `autokernel profile` end to end through
# autokernel-profiler for each built-in model (fp16 inference, small), `profile --show` of the result,
# `new --from-profile` from it, and the bad-input paths that need a GPU machine (a TorchScript file that
# is not TorchScript, a command that fails, a command that launches no kernel).
# Usage: scripts/gpu-jobs/profile-core.sh BIN_DIR
# Writes $OUT/profile-core/<model>/{profile.json,trace.json,report.txt,stderr.txt}, kernel-names.tsv (every
# distinct kernel name with its op and our type: candidates for tests/fixtures/profile/kernel_names.tsv)
# and log.txt; prints the summary last.
# targets: autokernel autokernel-profiler
# cap: 150 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: profile-core.sh BIN_DIR}" && pwd)
out=${OUT:-/tmp/out}/profile-core
mkdir -p "$out"
log="$out/log.txt"
: > "$log"
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$log"; }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH
ak=$bin/autokernel
summary=()
if [[ ! -x $bin/autokernel-profiler ]]; then
  say "no autokernel-profiler in $bin: only the CPU paths run"
  summary+=("autokernel-profiler missing: not built on this branch")
fi

# profile MODEL ARGS...: one model, 40 s at most
profile() {
  local name=$1; shift
  local dir=$out/$name
  mkdir -p "$dir"
  say "profile $name: $*"
  local start=$(date +%s)
  timeout 40 "$ak" profile "$@" --warmup 2 --iterations 3 --out "$dir" > "$dir/report.txt" 2> "$dir/stderr.txt"
  local rc=$?
  local secs=$(($(date +%s) - start))
  tail -n 20 "$dir/stderr.txt" >> "$log"
  head -n 40 "$dir/report.txt" >> "$log"
  if [[ $rc -eq 0 && -s $dir/profile.json ]]; then
    local types=$(awk '/^kernel types/{f=1;next} f&&/^$/{exit} f&&!/^type/{printf "%s %s, ", $1, $3}' "$dir/report.txt")
    local cover=$(grep -o 'attribution: [0-9.]*%' "$dir/report.txt")
    summary+=("$name: ok in ${secs}s; $cover; $types")
  else
    summary+=("$name: FAILED exit $rc in ${secs}s: $(tail -n 1 "$dir/stderr.txt")")
  fi
}

if [[ -x $bin/autokernel-profiler ]]; then
  profile gpt2 --model gpt2 --batch 2 --seq 256 --dtype fp16
  profile llama-160m --model llama-160m --batch 2 --seq 256 --dtype bf16
  profile bert-base --model bert-base --batch 2 --seq 128 --dtype fp16
  profile llama-7b-layers --model llama-7b-layers --batch 1 --seq 256 --dtype bf16
  profile gpt2-training --model gpt2 --batch 2 --seq 128 --dtype bf16 --mode training

  for m in gpt2 llama-160m; do
    if [[ -s $out/$m/profile.json ]]; then
      say "show and new --from-profile of $m"
      "$ak" profile --show "$out/$m/profile.json" --json > "$out/$m/breakdown.json" 2>> "$log"
      rm -rf "$out/$m/session"
      if "$ak" new "$out/$m/session" --from-profile "$out/$m/profile.json" --top 4 > "$out/$m/new.txt" 2>> "$log"; then
        cat "$out/$m/new.txt" >> "$log"
        summary+=("new --from-profile $m: $(grep -c '% of GPU time' "$out/$m/new.txt") kernels")
      else
        summary+=("new --from-profile $m: FAILED ($(tail -n 1 "$log"))")
      fi
      rm -rf "$out/$m/session"  # a git repository: too many files to bring back
    fi
  done

  # Every distinct kernel name with its op and our type (python reads the breakdown JSON).
  for m in gpt2 llama-160m bert-base llama-7b-layers gpt2-training; do
    [[ -s $out/$m/profile.json ]] || continue
    "$ak" profile --show "$out/$m/profile.json" --json 2>/dev/null
  done | python3 -c '
import json, sys
seen = set()
dec = json.JSONDecoder()
text = sys.stdin.read()
pos = 0
while pos < len(text):
    while pos < len(text) and text[pos].isspace(): pos += 1
    if pos >= len(text): break
    doc, pos = dec.raw_decode(text, pos)
    for g in doc["groups"]:
        for k in g["kernel_names"]:
            key = (k, g["op"] if g["op"] != k else "-")
            if key in seen: continue
            seen.add(key)
            print("\t".join([k, key[1], g["type"], g["classified_by"]]))
' > "$out/kernel-names.tsv" 2>> "$log"
  summary+=("kernel-names.tsv: $(wc -l < "$out/kernel-names.tsv") distinct (kernel, op) pairs")

  say "bad inputs"
  printf 'not a TorchScript zip' > "$out/bad.pt"
  timeout 30 "$ak" profile --torchscript "$out/bad.pt" --input 2x8:int64 --out "$out/bad-ts" > /dev/null 2> "$out/bad-ts.txt"
  summary+=("not TorchScript: exit $? ($(tail -n 1 "$out/bad-ts.txt"))")
  timeout 30 "$ak" profile --out "$out/bad-cmd" -- /bin/false > /dev/null 2> "$out/bad-cmd.txt"
  summary+=("failing command: exit $? ($(tail -n 1 "$out/bad-cmd.txt"))")
  timeout 30 "$ak" profile --out "$out/no-kernel" -- /bin/true > /dev/null 2> "$out/no-kernel.txt"
  summary+=("command without kernels: exit $? ($(tail -n 1 "$out/no-kernel.txt"))")
fi

say "show of the committed fixture"
"$ak" profile --show "$root/tests/fixtures/profile/gpt2-synthetic.json" > "$out/fixture-report.txt" 2>> "$log"
summary+=("profile --show fixture: exit $?")
find "$out" -name trace.json -size +20M -delete  # keep what comes back small

echo
echo "profile-core summary (t+$(($(date +%s) - t0))s):"
for line in "${summary[@]}"; do echo "  $line"; done
