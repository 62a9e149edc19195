#!/usr/bin/env bash
# The portfolio (`--threads`, issue 50) against one solver: each workload run alone in
# CaDiCaL's default configuration, alone in `sat`, as shipped (the inference's own choice),
# and with --threads 2. The goal: --threads 2 within 1.2x of the faster of default and sat,
# in wall time (the portfolio spends about twice the CPU).
#
# Usage:  bench/threads.sh [PLAYID]
#   PLAYID   a fetched copy of FrederikGoovaerts/PlayID (a work tree or a bare git directory):
#            adds its games that take over a second (read from $COMMIT as bench/real.sh does)
# Environment:
#   LIMIT=120        seconds per run
#   RUNS=1           runs per measurement (the fastest counts; a timeout is not repeated)
#   PEERS=/work/shared/peers   the peers' keys-and-gates instances
#   GAMES="incredible"         PlayID games to run
#   NO_BUILD=1       do not run `cargo build --release` first
#
# Rows: maximum clique (bench/classics, two sizes), a Hamiltonian cycle with a successor
# function (3000 nodes), counting 7x7 mazes (seed 000), counting colour-maze paths (seed 003),
# the longest Overflow solution (seed 004), keys-and-gates shortest plans (seed 000 part II),
# and the PlayID games. Times are wall seconds; every answer of a row must agree.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${LIMIT:-120}
RUNS=${RUNS:-1}
PEERS=${PEERS:-/work/shared/peers}
COMMIT=${COMMIT:-1881096804ecdb10af53e51ecd404f9db5cc7711}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=${IDP:-$TARGET/release/idp}
PLAYID=${1:-}

source "$ROOT/bench/common.sh"
bench_idp
source "$ROOT/bench/cpu.sh"

# answer FILE: the line that states the row's answer (an optimum, a count, or "model")
answer() {
  grep -m1 -oE '^(optimum [0-9]+|Number of models: [0-9]+|Score: [0-9]+.*|[0-9]+)$' "$1" ||
    { grep -q '^Model 1' "$1" && echo model; } || echo none
}

# measure LABEL ARGS...: one run per setting; prints the table row
measure() {
  local label=$1; shift
  local cells=() answers=() secs=() s
  for setting in default sat shipped threads; do
    case $setting in
    default) best d env IDP_CADICAL_CONFIG=default "$IDP" --nowarnings "$@" ;;
    sat) best s env IDP_CADICAL_CONFIG=sat "$IDP" --nowarnings "$@" ;;
    shipped) best p "$IDP" --nowarnings "$@" ;;
    threads) best t "$IDP" --nowarnings --threads 2 "$@" ;;
    esac
    s=$WALL
    secs+=("$s")
    if [ "$setting" = threads ]; then cells+=("$s ($SECS CPU)"); else cells+=("$s"); fi
    answers+=("$(answer "$TMP/${setting:0:1}.out")")
  done
  local agreed=${answers[0]}
  for a in "${answers[@]}"; do [ "$a" = "$agreed" ] || agreed="DIFFER: ${answers[*]}"; done
  local faster ratio
  faster=$(awk -v a="${secs[0]#>}" -v b="${secs[1]#>}" 'BEGIN{print (a < b) ? a : b}')
  ratio=$(awk -v t="${secs[3]#>}" -v f="$faster" 'BEGIN{ if (f > 0) printf "%.2f", t / f; else print "-" }')
  echo "$ratio" >> "$TMP/ratios"
  echo "| $label | $agreed | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${cells[3]} | $ratio |"
}

bench_header
echo "limit ${LIMIT}s; wall seconds"
echo
echo "| workload | answer | default | sat | as shipped | --threads 2 | threads / faster |"
echo "|---|---|---|---|---|---|---|"
C=$ROOT/bench/classics
python3 "$C/gen.py" clique 150 0.5 1 "$TMP" && measure "maximum clique, 150 nodes, p 0.5" "$TMP/clique150-1.idp"
python3 "$C/gen.py" clique 300 0.3 1 "$TMP" && measure "maximum clique, 300 nodes, p 0.3" "$TMP/clique300-1.idp"
python3 "$C/gen.py" hamcycle 3000 1 "$TMP" && measure "Hamiltonian cycle, 3000 nodes" -n 1 "$TMP/hamcycle3000-1.idp"
python3 bench/search/gen.py maze 7 "$TMP" >/dev/null &&
  measure "count 7x7 mazes" --count --theory Tmaze --structure G "$TMP/maze7.idp"
python3 bench/search/gen.py colour specs/colourmaze/instances/seed7-6x6c4.txt "$TMP" >/dev/null &&
  measure "count colour-maze paths, 6x6" --count --theory T --structure P "$TMP/colourseed7-6x6c4.idp"
for level in 16x16 20x20; do
  measure "longest Overflow solution, random$level" specs/overflow/overflow.idp \
    -e "solvefile('$ROOT/specs/overflow/levels/random$level.txt')"
done
for inst in "$PEERS"/instances/keys/kg0[5-8]_*.lp; do
  [ -f "$inst" ] || continue
  name=$(basename "$inst" .lp)
  python3 bench/generic/gen.py keys "$inst" "$TMP" >/dev/null && measure "shortest plan, $name" "$TMP/$name.idp"
done
if [ -n "$PLAYID" ]; then
  git_dir=$PLAYID
  [ -d "$PLAYID/.git" ] && git_dir=$PLAYID/.git
  [ -d "$PLAYID/repo/.git" ] && git_dir=$PLAYID/repo/.git
  for game in ${GAMES:-incredible}; do
    git --git-dir "$git_dir" show "$COMMIT:resources/games/singleplayer/$game.idp" > "$TMP/$game.idp" 2>/dev/null ||
      { echo "no game $game in $PLAYID" >&2; continue; }
    measure "PlayID $game" "$TMP/$game.idp"
  done
fi
echo
sort -g "$TMP/ratios" | awk '{ a[NR] = $1 } END { if (NR) printf "median threads / faster: %s over %d rows; worst %s\n", a[int((NR + 1) / 2)], NR, a[NR] }'
