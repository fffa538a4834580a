#!/usr/bin/env bash
# Stores a session folder as a bundle inside this repository (core/session/bundled_session.h): a copy
# with its git repository packed (objects and refs) and its .git renamed dot-git, since a repository
# cannot be committed inside another one. The search cache (.autokernel) and git's logs, hooks and
# index are left out; the work tree, session.json, results.tsv and any profile.json / verify.json in
# the folder are kept.
#   scripts/bundle-session.sh SESSION_DIR DEST_DIR      e.g. resources/model-session
set -euo pipefail
src=${1:?usage: bundle-session.sh SESSION_DIR DEST_DIR}
dest=${2:?usage: bundle-session.sh SESSION_DIR DEST_DIR}
[[ -f $src/session.json && -d $src/.git ]] || { echo "bundle-session: $src is not a session folder (session.json and .git)" >&2; exit 1; }
[[ -e $dest ]] && { echo "bundle-session: $dest exists; remove it first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$src" "$tmp/s"
rm -rf "$tmp/s/.autokernel"
git -C "$tmp/s" gc --quiet --prune=now
git -C "$tmp/s" pack-refs --all
rm -rf "$tmp/s/.git/logs" "$tmp/s/.git/hooks" "$tmp/s/.git/index" "$tmp/s/.git/description" "$tmp/s/.git/COMMIT_EDITMSG"
find "$tmp/s/.git" -name '*.lock' -delete
mv "$tmp/s/.git" "$tmp/s/dot-git"
mkdir -p "$(dirname "$dest")"
cp -a "$tmp/s" "$dest"
echo "bundled $src as $dest ($(du -sk "$dest" | cut -f1) KiB)"
