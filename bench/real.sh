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
#   CHECK=1        replay each game's first model against the game's GDL rules with
#                  bench/gdl_check.py (its .kif read from the same commit) and add a `check`
#                  column: OK, FAIL with the first broken rule, or `-` when no model was printed
#   GRINGO=1       also write the game's GDL rules as an ASP planning program over the same 21
#                  time points (bench/gdl_asp.py) and print gringo's size (ground rules, atoms,
#                  bodies, from clingo --stats) and clingo's answer under each row, for scale;
#                  needs a clingo venv ($CLINGO, made in $TMP) and idp's atoms from --stats
#
# Prints one row per game: exit code, wall seconds, peak MB, ground nodes (from --stats), the
# seconds grounding and encoding took, and the answer (the first line of the output, or the
# `Stopped:` reason). Exit codes: 0 done, 3 a limit stopped it, 1 an error. With CHECK=1 the
# row ends with the checker's verdict.
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
IDP=${IDP:-$TARGET/release/idp}

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
GRINGO=${GRINGO:-}
CLINGO=${CLINGO:-clingo==5.8.3}
if [ -n "$GRINGO" ]; then
  python3 -m venv "$TMP/venv" && "$TMP/venv/bin/pip" install --quiet "$CLINGO" >&2 || exit 1
  echo "clingo: $("$TMP/venv/bin/python" -m clingo --version | head -1)"
fi
CHECK=${CHECK:-}
if [ -n "$CHECK" ]; then
  command -v python3 > /dev/null || { echo "CHECK=1 needs python3" >&2; exit 1; }
  printf '%-28s %4s %8s %7s %10s %8s  %-22s  %s\n' game exit seconds MB nodes ground answer check
else
  printf '%-28s %4s %8s %7s %10s %8s  %s\n' game exit seconds MB nodes ground answer
fi
# gringo_row GAME: the game's GDL as ASP (bench/gdl_asp.py), ground and solved by clingo for
# one model; prints idp's atoms and gringo's rules, atoms and bodies.
gringo_row() {
  local game=$1 lp=$TMP/$1.lp stats atoms
  git -C "$REPO" show "$COMMIT:resources/games/singleplayer/$game.kif" > "$TMP/$game.kif" \
    && python3 "$ROOT/bench/gdl_asp.py" "$TMP/$game.kif" 20 > "$lp" \
    || { echo "    gringo: no ASP program for $game"; return; }
  stats=$(timeout "$LIMIT" "$TMP/venv/bin/python" -m clingo -n 1 --stats "$lp" 2>&1)
  atoms=$(sed -n 's/.*): [0-9]* nodes, \([0-9]*\) atoms.*/\1/p' "$TMP/err" | awk '{s+=$1} END {print s+0}')
  printf '    idp: %s atoms; gringo: %s rules, %s atoms, %s bodies; clingo: %s in %s s CPU\n' \
    "$atoms" \
    "$(sed -n 's/^Rules *: *[0-9]* *(Original: \([0-9]*\)).*/\1/p' <<< "$stats")" \
    "$(sed -n 's/^Atoms *: *\([0-9]*\).*/\1/p' <<< "$stats" | head -1)" \
    "$(sed -n 's/^Bodies *: *[0-9]* *(Original: \([0-9]*\)).*/\1/p' <<< "$stats")" \
    "$(grep -m1 -E '^(SATISFIABLE|UNSATISFIABLE|UNKNOWN)' <<< "$stats")" \
    "$(sed -n 's/^CPU Time *: *\([0-9.]*\)s.*/\1/p' <<< "$stats")"
}

done_count=0
checked=0
check_ok=0
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
  if [ -z "$CHECK" ]; then
    printf '%-28s %4s %8s %7s %10s %8s  %s\n' "$game" "$rc" "$secs" "$mb" "$nodes" "$ground" "${answer:0:70}"
    [ -z "$GRINGO" ] || gringo_row "$game"
    continue
  fi
  verdict=-
  if grep -q '^structure' "$TMP/out"; then
    git -C "$REPO" show "$COMMIT:resources/games/singleplayer/$game.kif" > "$TMP/$game.kif" \
      && verdict=$(timeout "$LIMIT" python3 "$ROOT/bench/gdl_check.py" "$TMP/$game.kif" "$TMP/out" 2>&1 | tail -1)
    [ -n "$verdict" ] || verdict="checker stopped after ${LIMIT}s"
    checked=$((checked + 1))
    case $verdict in OK*) check_ok=$((check_ok + 1)) ;; esac
  fi
  printf '%-28s %4s %8s %7s %10s %8s  %-22s  %s\n' "$game" "$rc" "$secs" "$mb" "$nodes" "$ground" "${answer:0:70}" "$verdict"
  [ -z "$GRINGO" ] || gringo_row "$game"
done
echo "$done_count of ${#GAMES[@]} games answered their main within ${LIMIT}s"
[ -z "$CHECK" ] || echo "$check_ok of $checked plans replayed correctly against the games' GDL rules (bench/gdl_check.py)"
