#!/usr/bin/env bash
# Prepares .deps/ for the GPU machine, which has gcc, cmake, ninja, CUDA and LibTorch but no libgit2,
# nlohmann-json or GoogleTest, and no network. Run here (Debian 12); the folder travels with the
# working tree (`carry: [".deps"]`). Debian 12 binaries run there (glibc 2.36 < 2.39).
#   .deps/root/usr/...   unpacked packages: configure with -DCMAKE_PREFIX_PATH=$PWD/.deps/root/usr
#   .deps/lib/           the runtime libraries libgit2 needs that the machine may lack (LD_LIBRARY_PATH)
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(libgit2-dev libgit2-1.5 libhttp-parser2.9 libmbedtls14 libmbedx509-1 libmbedcrypto7 libssh2-1
      nlohmann-json3-dev libgtest-dev libgmock-dev)
rm -rf .deps && mkdir -p .deps/debs .deps/root .deps/lib
(cd .deps/debs && apt-get download "${pkgs[@]}" >/dev/null)
for deb in .deps/debs/*.deb; do dpkg-deb -x "$deb" .deps/root; done
rm -rf .deps/debs
cp -a .deps/root/usr/lib/x86_64-linux-gnu/lib{git2,http_parser,mbedtls,mbedx509,mbedcrypto,ssh2}.so* .deps/lib/
# libgit2-dev's symlink libgit2.so points at the runtime package's file; both are unpacked.
grep -q '^/.deps/$' .git/info/exclude 2>/dev/null || echo '/.deps/' >> .git/info/exclude
du -sh .deps
