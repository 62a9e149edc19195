#!/usr/bin/env bash
# Exhaustive search over definitions with open input (issue 27): idp against clingo on the same
# problems, written the plain way (each spec's header says so), side by side in one run.
#
# Usage:  bench/search.sh [maze] [seedmaze] [roads] [steiner] [ham] [game] [colour] [overflow]
#         (default: all)
# Environment:
#   LIMIT=120        seconds per run (clingo also gets --time-limit)
#   RUNS=1           runs per measurement (the fastest counts; a timeout is not repeated)
#   MAZES="5 6 7 8"  maze sizes to count (seed 000 part I, specs/maze/construction.idp)
#   SEEDMAZES="6 7"  maze sizes to count over the theory as the seed writes it (gen.py seedmaze:
#                    the exit left open; clingo: the peers' maze.lp with bench/search/seedmaze.lp)
#   ROADS="16 20 24" cities of the budget-reachability networks
#   STEINER="16 20 24"  cities of the Steiner-tree networks (K=4 terminals)
#   HAM="200 400"    nodes of the graphs where one Hamiltonian cycle is asked; HAMALL=18 counts
#                    all cycles of a graph of that many nodes
#   GAME="..."       keys-and-gates instances for the plain LTC theory with minimize (seed 000
#                    part II, bench/generic/game_ltc.idp; default: the peers' kg01-kg08, 9x9 to
#                    17x17); clingo runs the peers' keys.lp with the instance's horizon
#   COLOUR="..."     colour-maze puzzle files whose solutions are counted (seed 003,
#                    specs/colourmaze/colourmaze.idp; clingo: bench/search/colourmaze.lp;
#                    default: specs/colourmaze/instances/seed7-6x6c4.txt)
#   COLOURGRID="8:8 8:9"  random N:K colour mazes (gen.py colourgrid N K, seeded) counted too;
#                    8x8 grids with fewer colours have 10^5 paths or more, which neither
#                    system counts in 120 s
#   OVERFLOW="..."   Overflow levels whose longest solution is proved (seed 004,
#                    specs/overflow/overflow.idp's solvefile; clingo: bench/search/overflow.lp;
#                    default: specs/overflow/levels/random{12x12,16x16,20x20}.txt)
#   SAT=cadical      idp's --sat (cadical-loops: definitions checked on candidate models only,
#                    the refinement loop; BEFORE=cadical-loops adds that column)
#   PEERS=/work/shared/peers   the peers' clingo maze encoding
#   CLINGO=clingo==5.8.3       pip requirement for clingo
#   NO_BUILD=1       do not run `cargo build --release` first
#
# Rows count all models (`idp --count`, `clingo -n 0`) except the single-cycle rows; the
# answers (counts, or satisfiable) of both must agree. Times are CPU seconds (wall in
# parentheses), memory peak RSS; "idp / clingo" is the ratio of CPU times (below 1: idp is
# faster). The idp columns also give its SAT calls, conflicts and the unfounded sets it found
# inside the search (`--stats`).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${LIMIT:-120}
RUNS=${RUNS:-1}
PEERS=${PEERS:-/work/shared/peers}
CLINGO=${CLINGO:-clingo==5.8.3}
SAT=${SAT:-cadical}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=${IDP:-$TARGET/release/idp}
B=$ROOT/bench/search

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "$B/budget.idp" "$B/steiner.idp" "$B/ham.idp" "$PEERS/encodings/clingo/maze.lp"
source "$(dirname "${BASH_SOURCE[0]}")/cpu.sh"

PARTS=("$@")
[ ${#PARTS[@]} -eq 0 ] && PARTS=(maze seedmaze roads steiner ham game colour overflow)

# idp_row LABEL ARGS...: idp --stats on ARGS; sets IS, IS_, IM, ICALLS, ICONF, IUFS
idp_row() {
  local label=$1; shift
  best "$label" "$IDP" --sat "$SAT" --stats "$@"
  IS=$SECS IS_=$(shown) IM=$MB
  local line
  line=$(grep -m1 '^\[stats\] search:' "$TMP/$label.err")
  ICALLS=$(grep -oE '[0-9]+ SAT calls' <<< "$line" | grep -oE '[0-9]+')
  ICONF=$(grep -oE '[0-9]+ conflicts' <<< "$line" | grep -oE '[0-9]+')
  IUFS=$(grep -oE '[0-9]+ unfounded sets' <<< "$line" | grep -oE '[0-9]+')
  [ -n "$ICONF" ] || ICONF=-
  [ -n "$IUFS" ] || IUFS=-
}

# clingo_row ARGS...: clingo on ARGS; sets CS, CS_, CM, CMODELS
clingo_row() {
  best clingo "$PY" -m clingo "$@" --time-limit="$LIMIT"
  CS=$SECS CS_=$(shown) CM=$MB
  CMODELS=$(grep -m1 -E '^Models' "$TMP/clingo.out" | grep -oE '[0-9]+' | head -1)
}

# agree A B: the answer, or both with DIFFER
agree() { if [ "$1" = "$2" ]; then echo "$1"; else echo "idp ${1:-none}, clingo ${2:-none} (DIFFER)"; fi; }

# optimum_answer IDP_OPTIMUM: the optimum both proved (clingo's from its last run), or both
optimum_answer() {
  local copt=""
  if grep -q '^OPTIMUM FOUND' "$TMP/clingo.out"; then
    copt=$(grep -E '^Optimization *:' "$TMP/clingo.out" | tail -1 | grep -oE '[0-9]+$')
  fi
  if [ -n "$copt" ]; then agree "$1" "$copt"; else echo "${1:-none} (clingo: no optimum)"; fi
}

idp_count() { grep -m1 -oE '^Number of models: [0-9]+' "$TMP/$1.out" | grep -oE '[0-9]+$'; }

: > "$TMP/ratios"
row() { # LABEL ANSWER: one table row from the last idp and clingo runs
  local r
  r=$(ratio "$IS" "$CS")
  echo "$r" >> "$TMP/ratios"
  local before=""
  if [ -n "${BEFORE:-}" ]; then before=" $BS_ | $(ratio "$BS" "$CS") |"; fi
  echo "| $1 | $2 | $IS_ | $IM | $ICALLS | $ICONF | $IUFS | $CS_ | $CM | $r |$before"
}

header() {
  echo "| problem | answer | idp s | idp MB | SAT calls | conflicts | unfounded sets | clingo s | clingo MB | idp / clingo |${BEFORE:+ idp $BEFORE s | $BEFORE / clingo |}"
  echo "|---|---|---|---|---|---|---|---|---|---|${BEFORE:+---|---|}"
}

before() { # ARGS...: the same idp run with --sat $BEFORE
  [ -n "${BEFORE:-}" ] || return 0
  best before "$IDP" --sat "$BEFORE" "$@"
  BS=$SECS BS_=$(shown)
}

bench_header
echo "clingo: $CLINGO_VERSION; limit ${LIMIT}s; idp --sat $SAT"
echo
header
for part in "${PARTS[@]}"; do
case $part in
maze)
  for n in ${MAZES:-5 6 7 8}; do
    python3 "$B/gen.py" maze "$n" "$TMP" || exit 1
    args=(--count --theory Tmaze --structure G "$TMP/maze$n.idp")
    idp_row idp "${args[@]}"
    before "${args[@]}"
    clingo_row "$PEERS/encodings/clingo/maze.lp" -c n="$n" -n 0 -q
    row "count ${n}x$n mazes" "$(agree "$(idp_count idp)" "$CMODELS")"
  done
  ;;
seedmaze)
  for n in ${SEEDMAZES:-6 7}; do
    python3 "$B/gen.py" seedmaze "$n" "$TMP" || exit 1
    args=(--count --theory Tmaze --structure G "$TMP/seedmaze$n.idp")
    idp_row idp "${args[@]}"
    before "${args[@]}"
    clingo_row "$PEERS/encodings/clingo/maze.lp" "$B/seedmaze.lp" -c n="$n" -n 0 -q
    row "count ${n}x$n mazes, the seed's theory" "$(agree "$(idp_count idp)" "$CMODELS")"
  done
  ;;
roads|steiner)
  if [ "$part" = roads ]; then sizes=${ROADS:-16 20 24}; else sizes=${STEINER:-16 20 24}; fi
  for n in $sizes; do
    if [ "$part" = roads ]; then
      python3 "$B/gen.py" roads "$n" "$TMP" || exit 1
      spec=budget label="budget reachability, $n cities, all models"
    else
      python3 "$B/gen.py" steiner "$n" 4 "$TMP" || exit 1
      spec=steiner label="Steiner tree, $n cities, 4 terminals, all models"
    fi
    idp_row idp --count "$TMP/$part$n.idp"
    before --count "$TMP/$part$n.idp"
    clingo_row "$B/$spec.lp" "$TMP/$part$n.lp" -n 0 -q
    row "$label" "$(agree "$(idp_count idp)" "$CMODELS")"
  done
  ;;
ham)
  for n in ${HAM:-200 400}; do
    python3 "$B/gen.py" ham "$n" "$TMP" || exit 1
    idp_row idp -n 1 "$TMP/ham$n.idp"
    before -n 1 "$TMP/ham$n.idp"
    clingo_row "$B/ham.lp" "$TMP/ham$n.lp" -n 1 -q
    found=$(idp_count idp)
    row "one Hamiltonian cycle, $n nodes" "$(agree "$found" "$CMODELS")"
  done
  n=${HAMALL:-18}
  python3 "$B/gen.py" ham "$n" "$TMP" || exit 1
  idp_row idp --count "$TMP/ham$n.idp"
  before --count "$TMP/ham$n.idp"
  clingo_row "$B/ham.lp" "$TMP/ham$n.lp" -n 0 -q
  row "all Hamiltonian cycles, $n nodes" "$(agree "$(idp_count idp)" "$CMODELS")"
  ;;
game)
  if [ -n "${GAME:-}" ]; then INST=($GAME); else INST=("$PEERS"/instances/keys/kg0[1-8]_*.lp); fi
  for inst in "${INST[@]}"; do
    name=$(basename "$inst" .lp)
    python3 "$ROOT/bench/generic/gen.py" keys "$inst" "$TMP" || exit 1
    idp_row idp "$TMP/$name.idp"
    before "$TMP/$name.idp"
    clingo_row "$PEERS/encodings/clingo/keys.lp" "$inst" --quiet=1
    iopt=$(grep -m1 -oE '^optimum [0-9]+' "$TMP/idp.out" | grep -oE '[0-9]+$')
    answer=$(optimum_answer "$iopt")
    row "shortest plan (minimize), $name" "$answer"
  done
  ;;
colour)
  files=(${COLOUR:-$ROOT/specs/colourmaze/instances/seed7-6x6c4.txt})
  for grid in ${COLOURGRID-8:8 8:9}; do
    python3 "$B/gen.py" colourgrid "${grid%%:*}" "${grid##*:}" "$TMP" || exit 1
    files+=("$TMP/colourgrid${grid%%:*}c${grid##*:}.txt")
  done
  for file in "${files[@]}"; do
    name=$(basename "$file" .txt)
    python3 "$B/gen.py" colour "$file" "$TMP" || exit 1
    args=(--count --theory T --structure P "$TMP/colour$name.idp")
    idp_row idp "${args[@]}"
    before "${args[@]}"
    clingo_row "$B/colourmaze.lp" "$TMP/colour$name.lp" -n 0 -q
    row "count colour-maze paths, $name" "$(agree "$(idp_count idp)" "$CMODELS")"
  done
  ;;
overflow)
  for file in ${OVERFLOW:-$ROOT/specs/overflow/levels/random12x12.txt $ROOT/specs/overflow/levels/random16x16.txt $ROOT/specs/overflow/levels/random20x20.txt}; do
    name=$(basename "$file" .txt)
    python3 "$B/gen.py" overflow "$file" "$TMP" || exit 1
    args=("$ROOT/specs/overflow/overflow.idp" -e "solvefile('$file')")
    idp_row idp "${args[@]}"
    before "${args[@]}"
    clingo_row "$B/overflow.lp" "$TMP/overflow$name.lp" -q
    iopt=$(grep -m1 -oE '^Score: [0-9]+ \(optimal\)' "$TMP/idp.out" | grep -oE '[0-9]+')
    answer=$(optimum_answer "$iopt")
    row "longest Overflow solution (maximize), $name" "$answer"
  done
  ;;
*) echo "unknown part $part" >&2; exit 1 ;;
esac
done
echo
sort -g "$TMP/ratios" | awk '{ a[NR] = $1 } END { if (NR) printf "median idp / clingo: %s over %d rows; worst %s\n", a[int((NR + 1) / 2)], NR, a[NR] }'
