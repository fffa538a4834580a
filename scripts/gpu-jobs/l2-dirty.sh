#!/usr/bin/env bash
# GPU job (issue 12): what the timing protocol's L2 flush (a memset that leaves L2 full of dirty lines) costs a
# read-only kernel against a same-size copy, with PyTorch kernels only (scripts/gpu-jobs/l2_dirty_lines.py).
# Usage: scripts/gpu-jobs/l2-dirty.sh BIN_DIR (unused). Writes $OUT/l2-dirty/{l2-dirty.tsv,log.txt}.
# targets:
# cap: 40 seconds
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/out}/l2-dirty; mkdir -p "$out"
[[ -d /opt/torch/.venv/bin ]] && export PATH=/opt/torch/.venv/bin:$PATH
timeout 36 python3 "$root/scripts/gpu-jobs/l2_dirty_lines.py" --reps 40 --tsv "$out/l2-dirty.tsv" > "$out/log.txt" 2>&1
echo "l2_dirty_lines exit $?"
column -t -s $'\t' "$out/l2-dirty.tsv" 2>/dev/null || tail -20 "$out/log.txt"
