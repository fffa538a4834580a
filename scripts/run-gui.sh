#!/usr/bin/env bash
# Sets up, builds and runs the workbench GUI. Arguments go to the application (e.g. a session folder).
# With no session given and no GPU on this machine, it opens the bundled demo session.
# With no display, it says so and renders the main window to build/screenshot.png instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
app=build/bin/autokernel-workbench
args=("$@")
if ((${#args[@]} == 0)) && ! build/bin/autokernel info >/dev/null 2>&1; then
  args=(--demo)
fi
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run-gui: no display on this machine (DISPLAY is unset); rendering the window to build/screenshot.png instead."
  QT_QPA_PLATFORM=offscreen exec "$app" --screenshot build/screenshot.png "${args[@]}"
fi
exec "$app" "${args[@]}"
