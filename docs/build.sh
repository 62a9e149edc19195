#!/usr/bin/env bash
# Builds the guide (docs/src, with the examples of docs/examples) into docs/book with mdBook.
# mdBook is installed once, from the package registry, into target/tools (no system install);
# `idp serve` then serves the built book at /docs.
#
# Usage: docs/build.sh            (then open docs/book/index.html)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${CARGO_TARGET_DIR:-$ROOT/target}/tools
MDBOOK_VERSION=0.4.52
if ! "$TOOLS/bin/mdbook" --version 2> /dev/null | grep -q "v$MDBOOK_VERSION"; then
  echo "installing mdbook $MDBOOK_VERSION into $TOOLS (once; a few minutes)" >&2
  cargo install mdbook --version "=$MDBOOK_VERSION" --locked --root "$TOOLS"
fi
"$TOOLS/bin/mdbook" build "$ROOT/docs"
echo "built $ROOT/docs/book/index.html"
