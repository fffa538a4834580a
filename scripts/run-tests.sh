#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (GoogleTest + QTest, offscreen). GPU tests skip with
# their reason when there is no GPU. Benchmarks (label "benchmark") are not part of this run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure --parallel "${AK_JOBS:-$(nproc)}" --label-exclude benchmark "$@"
