#!/usr/bin/env bash
# Builds the page's bundle web/dist/app.js (CodeMirror 6 + src/*.js) with esbuild, from the
# packages pinned in package-lock.json. The bundle is committed and embedded in the idp binary
# (src/serve/assets.rs), so only changes to web/src need this script; cargo build needs no npm.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npx esbuild src/main.js --bundle --minify --format=iife --target=es2020 \
    --outfile=dist/app.js
echo "built web/dist/app.js ($(wc -c < dist/app.js) bytes)"
