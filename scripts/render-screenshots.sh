#!/usr/bin/env bash
# Renders the README's screenshots: every page of the workbench on the bundled demo session, the
# Profile page (and the Roofline's measured roofs) with the synthetic GPT-2 profile fixture of core/profile. No display needed.
#   scripts/render-screenshots.sh [BUILD_DIR]   (default build; writes docs/screenshots/<page>.png)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
app=$build/bin/autokernel-workbench
profile=tests/fixtures/profile/gpt2-synthetic.json
mkdir -p docs/screenshots
for page in experiments profile roofline compare; do
  QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 "$app" --lang en --demo --profile "$profile" --page "$page" \
    --size 1600x1000 --screenshot "docs/screenshots/$page.png"
done
