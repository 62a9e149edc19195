#!/usr/bin/env bash
# Real files benchmark (issue 28): the single-player games of PlayID, a general game player
# that translates GDL games into IDP3 LTC theories and plans with IDP3, run as the repository
# runs them (each file's own `main`).
#
# Usage:  bench/real.sh PATH [GAME ...]
#   PATH   a fetched copy of FrederikGoovaerts/PlayID (a work tree or a bare git directory);
#          the project keeps no copy of its files. The games are read from the commit that
#          holds its translated `.idp` files ($COMMIT), not copied into the project.
#   GAME   game names (default: every resources/games/singleplayer/*.idp there)
# Environment:
#   LIMIT=60       time limit per game, seconds (--timeout; the run stops with exit 3)
#   MEMORY=8000    --max-memory per game, MB
#   NO_BUILD=1     do not run `cargo build --release` first
#
# Prints one row per game: exit code, wall seconds, peak MB, ground nodes (from --stats), the
# seconds grounding and encoding took, and the answer (the first line of the output, or the
# `Stopped:` reason). Exit codes: 0 done, 3 a limit stopped it, 1 an error.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
REPO=${1:?usage: bench/real.sh PATH-TO-PlayID [GAME ...]}
shift
LIMIT=${LIMIT:-60}
MEMORY=${MEMORY:-8000}
RUNS=1
COMMIT=${COMMIT:-1881096804ecdb10af53e51ecd404f9db5cc7711}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=$TARGET/release/idp

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 1; }
git -C "$REPO" cat-file -e "$COMMIT" 2>/dev/null \
  || { echo "$REPO has no commit $COMMIT (fetch FrederikGoovaerts/PlayID)" >&2; exit 1; }
bench_idp

GAMES=("$@")
if [ ${#GAMES[@]} -eq 0 ]; then
  mapfile -t GAMES < <(git -C "$REPO" ls-tree --name-only "$COMMIT" resources/games/singleplayer/ \
    | sed -n 's|.*/\(.*\)\.idp$|\1|p')
fi

bench_header
echo "PlayID at $COMMIT; limit ${LIMIT}s, ${MEMORY} MB per game"
printf '%-28s %4s %8s %7s %10s %8s  %s\n' game exit seconds MB nodes ground answer
done_count=0
for game in "${GAMES[@]}"; do
  file=$TMP/$game.idp
  git -C "$REPO" show "$COMMIT:resources/games/singleplayer/$game.idp" > "$file" \
    || { echo "no game $game" >&2; continue; }
  ( cd "$TMP" && /usr/bin/time -f "%e %M" -o "$TMP/time" \
      timeout --kill-after=10 $((LIMIT + 30)) "$IDP" --stats --timeout "$LIMIT" \
      --max-memory "$MEMORY" "$game.idp" > "$TMP/out" 2> "$TMP/err" )
  rc=$?
  read -r secs kb < <(tail -1 "$TMP/time")
  mb=$(( ${kb:-0} / 1024 ))
  nodes=$(sed -n 's/.*grounded and encoded in \([0-9.]*\)s.*): \([0-9]*\) nodes.*/\2/p' "$TMP/err" | awk '{s+=$1} END {print s+0}')
  ground=$(sed -n 's/.*grounded and encoded in \([0-9.]*\)s.*/\1/p' "$TMP/err" | awk '{s+=$1} END {printf "%.1f", s}')
  answer=$(grep -m1 '^Stopped:\|^Error' "$TMP/err" || head -1 "$TMP/out")
  [ "$rc" = 0 ] && done_count=$((done_count + 1))
  printf '%-28s %4s %8s %7s %10s %8s  %s\n' "$game" "$rc" "$secs" "$mb" "$nodes" "$ground" "${answer:0:70}"
done
echo "$done_count of ${#GAMES[@]} games answered their main within ${LIMIT}s"
