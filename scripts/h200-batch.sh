#!/usr/bin/env bash
# Runs GPU jobs on the H200 in one device call: builds the Qt-free core there once (Release, no GUI), then
# runs each job script scripts/gpu-jobs/<JOB>.sh with the folder of built binaries as $1, under the time
# cap its "# cap: N seconds" line states, and packs what the jobs wrote into $OUT/batch.tgz beside a
# summary ($OUT/summary.txt: each job's last lines and exit status); each job's folder is also packed as
# $OUT/<JOB>.tgz as soon as it ends, so a call that runs out of time still returns the finished jobs.
#
#   scripts/h200-batch.sh harness kern-mem ...     (carry: .deps from scripts/fetch-gpu-deps.sh, and any
#                                                    folder a job names in its "# carry:" line)
# A job lists the build targets it needs beyond autokernel, autokernel-evaluator and test_evaluator_gpu in
# a "# targets: a b" line, writes its files under $OUT/<JOB>/ (here a staging folder) and prints a short
# summary last.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
final_out=${OUT:-$root/h200-out}; mkdir -p "$final_out"
stage=/tmp/ak-batch; rm -rf "$stage"; mkdir -p "$stage"
t0=$(date +%s)
log() { echo "=== $* (t+$(( $(date +%s) - t0 ))s)"; }
export PATH=/opt/torch/.venv/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export AK_KERNELS_DIR=$root/kernels AK_RESOURCES_DIR=$root/resources
log machine
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader | tee "$stage/nvidia-smi.txt"

targets="autokernel autokernel-evaluator test_evaluator_gpu"
for j in "$@"; do
  [[ -f scripts/gpu-jobs/$j.sh ]] || { echo "no job scripts/gpu-jobs/$j.sh"; exit 2; }
  targets+=" $(grep -m1 '^# targets:' "scripts/gpu-jobs/$j.sh" | cut -d: -f2-)"
done
torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')
# .old-src/old.tar (a `git archive` of an earlier commit): its CLI and evaluator are built beside, in
# /tmp/ak-old, for jobs that compare with it (the harness job).
if [[ -f .old-src/old.tar ]]; then
  log "building the earlier version from .old-src in the background"
  ( rm -rf /tmp/ak-old && mkdir -p /tmp/ak-old && tar -C /tmp/ak-old -xf .old-src/old.tar &&
    cmake -S /tmp/ak-old -B /tmp/ak-old/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAK_BUILD_GUI=OFF -DAK_BUILD_TESTS=OFF \
      -DAK_BUILD_EVALUATOR=ON -DCMAKE_PREFIX_PATH="$torch_prefix;$root/.deps/root/usr" > "$stage/old-configure.log" 2>&1 &&
    timeout 300 ninja -C /tmp/ak-old/build -j8 autokernel autokernel-evaluator > "$stage/old-build.log" 2>&1;
    echo "old build exit $?" >> "$stage/old-build.log" ) &
  old_build=$!
fi
log "configure + build: $targets"
cp "$stage/nvidia-smi.txt" "$final_out/" 2>/dev/null
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DAK_BUILD_GUI=OFF -DAK_BUILD_EVALUATOR=ON \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$root/.deps/root/usr" > "$stage/configure.log" 2>&1 ||
  { tail -30 "$stage/configure.log"; }
# -k 0: one job's broken target does not stop the others from building (its job then finds no binary)
# shellcheck disable=SC2086
timeout "${AK_BUILD_CAP:-300}" ninja -C build-h200 -k 0 $targets > "$stage/build.log" 2>&1
build_rc=$?
echo "build exit $build_rc"; grep -E "error:|FAILED" "$stage/build.log" | head -20
[[ $build_rc -ne 0 ]] && tail -c 20000 "$stage/build.log" > "$final_out/build-errors.log"
bin=$root/build-h200/bin
if [[ -n "${old_build:-}" ]]; then wait "$old_build"; tail -1 "$stage/old-build.log"; fi

summary="$final_out/summary.txt"; : > "$summary"
for j in "$@"; do
  cap=$(grep -m1 '^# cap:' "scripts/gpu-jobs/$j.sh" | grep -o '[0-9]\+' | head -1); cap=${cap:-120}
  mkdir -p "$stage/$j"
  log "job $j (cap ${cap}s)"
  s=$(date +%s)
  OUT=$stage timeout -s INT -k 10 "$cap" bash "scripts/gpu-jobs/$j.sh" "$bin" > "$stage/$j/job.log" 2>&1
  rc=$?
  { echo "===== $j: exit $rc after $(( $(date +%s) - s )) s (cap $cap)"; tail -40 "$stage/$j/job.log"; echo; } >> "$summary"
  tail -25 "$stage/$j/job.log"; echo "exit $rc"
  # each job's files come back even if a later job runs past the device call's limit
  tar -C "$stage" -czf "$final_out/$j.tgz" "$j" 2>/dev/null
done
log pack
tar -C "$stage" -czf "$final_out/batch.tgz" . && ls -la "$final_out"
log done
