#!/usr/bin/env bash
# GPU job of issue 12's row-kernel climbs: per target row, the shipped starter -> the best configuration
# `autokernel run --agent search` finds within the job's time (one session per type: `autokernel new` from
# kernels/cuda/TYPE.cu, then the search agent, every experiment printed with its config, verdict and
# latency). Rows: cross_entropy 4096x50257 and 8192x50257, softmax 4096x50257 (fp16 timed; the loop's
# correctness checks run in all three dtypes). Each cross_entropy climb gets a third of the cap
# (AK_CE_CLIMB_S sets its seconds), softmax the rest.
# Usage: scripts/gpu-jobs/kern-rows-search.sh BIN_DIR. Writes $OUT/kern-rows-search/{log.txt,NAME-run.log}
# (NAME: cross_entropy-4096, cross_entropy, softmax).
# targets: autokernel autokernel-evaluator
# cap: 60 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: kern-rows-search.sh BIN_DIR}" && pwd)
cap=$(grep -m1 '^# cap:' "$0" | grep -o '[0-9]\+')
out=${OUT:-/tmp/out}/kern-rows-search
mkdir -p "$out"
work=$(mktemp -d /tmp/kern-rows-search.XXXXXX)
log="$out/log.txt"
: > "$log"
t0=$(date +%s)
say() { echo "=== $* (t+$(($(date +%s) - t0))s)" | tee -a "$log"; }
left() { echo $((cap - ($(date +%s) - t0) - 2)); }
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
[[ -d $root/.deps/lib ]] && export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH

climb() {  # climb TYPE SHAPE SECONDS [NAME]: NAME (default TYPE) names the session and its logs
  local type=$1 shape=$2 l=$3 name=${4:-$1}
  local s=$work/$name
  if ((l < 8)); then say "climb $type skipped: ${l}s"; return; fi
  say "search on $type $shape from the starter (cap ${l}s)"
  "$bin/autokernel" new "$s" --kernel "$type" --shapes "$type:$shape" > "$out/$name-run.log" 2>&1
  local ts; ts=$(date +%s.%N)
  timeout -s INT -k 3 "$l" "$bin/autokernel" run "$s" --agent search --kernel "$type" --budget 60 \
    --target-speedup 0 --max-reverts 0 --ceiling-fraction 0 >> "$out/$name-run.log" 2>&1
  echo "run exit $? after $(python3 -c "import time;print(round(time.time()-$ts,1))") s" | tee -a "$log"
  grep -E "exp [0-9]+ " "$out/$name-run.log" | cut -c1-330 | tee -a "$log"
  grep -E "error|usage|cannot|No such" "$out/$name-run.log" | head -8 | tee -a "$log"
  if [[ -f $s/kernels/$type.cu ]]; then
    grep -E "@autokernel tunable " "$s/kernels/$type.cu" | sed -E 's/ \{.*//; s/.*tunable //' | tr '\n' ' ' |
      sed "s/^/best $name: /" | tee -a "$log"; echo | tee -a "$log"
  fi
  [[ -f $s/results.tsv ]] && cp "$s/results.tsv" "$out/$name-results.tsv"
}

# cross_entropy first, at 4096 and at 8192 rows, each with AK_CE_CLIMB_S seconds (default: a third of the
# cap); softmax gets what is left (skipped under 8 s)
ce=${AK_CE_CLIMB_S:-$(( $(left) / 3 ))}
climb cross_entropy 4096x50257 "$ce" cross_entropy-4096
climb cross_entropy 8192x50257 "$ce"
climb softmax 4096x50257 "$(left)"

say "summary: the climbs (starter = the first kept/baseline experiment, best = the last kept)"
grep -E "exp [0-9]+ .*(baseline|kept)" "$log" | cut -c1-200
rm -rf "$work"
