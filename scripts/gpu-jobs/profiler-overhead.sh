#!/usr/bin/env bash
# The profiler job's "overhead" part alone (scripts/gpu-jobs/profiler.sh): input capture
# AK_PROFILER_RECORD_INPUTS=every|once|none on llama-160m fp16 inference, batch 8, three interleaved rounds.
# Usage: scripts/gpu-jobs/profiler-overhead.sh BIN_DIR. Writes under $OUT/profiler-overhead/.
# targets: autokernel-profiler
# cap: 60 seconds
exec env AK_PROFILER_PARTS=overhead AK_PROFILER_CAP=60 AK_PROFILER_JOB=profiler-overhead \
  bash "$(dirname "$0")/profiler.sh" "$@"
