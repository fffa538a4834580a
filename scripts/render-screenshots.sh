#!/usr/bin/env bash
# Renders the README's screenshots: every page of the workbench on the bundled demo session, the
# Profile page (and the Roofline's measured roofs) with the bundled demo profile (resources/demo-profile.json, GPT-2 8x1024 fp16
# on an H200), which --demo opens too, and the bundled model session (--model-demo) with its own profile. No display needed.
#   scripts/render-screenshots.sh [BUILD_DIR]   (default build; writes docs/screenshots/<page>.png)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
app=$build/bin/autokernel-workbench
profile=resources/demo-profile.json
mkdir -p docs/screenshots
for page in experiments profile roofline compare; do
  QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 "$app" --lang en --demo --profile "$profile" --page "$page" \
    --size 1600x1000 --screenshot "docs/screenshots/$page.png"
done
# The bundled model session (resources/model-session: llama-160m profiled, searched and verified on an
# H200) with its own profile: docs/screenshots/model-<page>.png.
if [[ -d resources/model-session ]]; then
  for page in experiments profile compare; do
    QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 "$app" --lang en --model-demo --page "$page" \
      --size 1600x1000 --screenshot "docs/screenshots/model-$page.png"
  done
fi
