#!/usr/bin/env bash
# The language server's latency after an edit and its memory (issue 47), on the largest .idp
# files of examples/ and specs/ and, given a fetched copy of FrederikGoovaerts/PlayID, on its
# single-player games: bench/lsp.py over them (see there for what is measured).
#
# Usage: bench/lsp.sh [PATH-TO-PlayID]     (EDITS=40 edits per file)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=${IDP:-$TARGET/release/idp}
RUNS=1
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_idp
bench_header
FILES=(examples specs)
PLAYID=${1:-}
COMMIT=${COMMIT:-1881096804ecdb10af53e51ecd404f9db5cc7711}
if [ -n "$PLAYID" ]; then
  mkdir -p "$TMP/playid"
  for f in $(git -C "$PLAYID" ls-tree --name-only "$COMMIT" resources/games/singleplayer/ | grep '\.idp$'); do
    git -C "$PLAYID" show "$COMMIT:$f" > "$TMP/playid/$(basename "$f")"
  done
  FILES+=("$TMP/playid")
  echo "PlayID at $COMMIT"
fi
python3 "$ROOT/bench/lsp.py" "$IDP" "${FILES[@]}"
