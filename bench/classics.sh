#!/usr/bin/env bash
# Classic problems written the plain way (issue 50): idp against clingo on the same seeded
# instances, side by side in one run. So far maximum clique, a Hamiltonian cycle with a
# successor function, graph colouring, a closed knight's tour, stable marriage, visit-all,
# the labyrinth, Sokoban, the 15-puzzle, peg solitaire, bin packing and crossing minimisation
# (bench/classics/*.idp and *.lp, instances from bench/classics/gen.py).
#
# Usage:  bench/classics.sh [clique] [hamcycle] [colouring] [knight] [marriage] [visitall]
#                           [labyrinth] [sokoban] [fifteen] [solitaire] [binpacking] [crossing]
#         (default: all)
# Environment:
#   LIMIT=120        seconds per run (clingo also gets --time-limit)
#   RUNS=1           runs per measurement (the fastest counts; a timeout is not repeated)
#   SEEDS="1 2 3 4 5"              seeds per size
#   CLIQUE="100:0.5 150:0.5 300:0.3"   nodes:edge probability of the clique graphs
#   HAMCYCLE="300 1000 3000"           nodes of the Hamiltonian-cycle graphs
#   COLOURING="1000 3000 10000"        nodes of the 3-colouring graphs (2 N edges)
#   KNIGHT="20 30 40"                  board sides of the knight's tours (one board each)
#   MARRIAGE="30 60 90"                men (and women) of the stable marriages
#   VISITALL="5 6 7"                   grid sides of visit-all (a budget of 1.25 N² steps)
#   LABYRINTH="10:10:2 16:16:2 18:18:2 14:3:3"   side:steps:K of the labyrinths (no plan of
#                                      K pushes reaches the goal; steps =< K: unsatisfiable)
#   SOKOBAN="6:3 7:3 8:3"              room side:boxes of Sokoban (horizon: the shortest plan)
#   FIFTEEN="3:12 3:18 4:14"           board side:shuffling moves (= horizon) of the 15-puzzle
#   SOLITAIRE="18 27 28"               moves of peg solitaire (English board, one peg left)
#   BINPACKING="12 14 16"              items of bin packing (sizes 10-60, capacity 100)
#   CROSSING="4:4 4:5 4:6"             layers:width of crossing minimisation
#   THREADS=1        idp --threads (clingo gets -t the same)
#   CLINGO=clingo==5.8.3       pip requirement for clingo
#   NO_BUILD=1       do not run `cargo build --release` first
#
# Times are CPU seconds (wall in parentheses); "idp / clingo" is the ratio of the sums over
# the seeds. Every answer (the optimum, or that a cycle exists) must agree.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${LIMIT:-120}
RUNS=${RUNS:-1}
CLINGO=${CLINGO:-clingo==5.8.3}
THREADS=${THREADS:-1}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=${IDP:-$TARGET/release/idp}
C=$ROOT/bench/classics

source "$ROOT/bench/common.sh"
bench_setup "$C"/{clique,hamcycle,colouring,knight,marriage,visitall,labyrinth,sokoban,fifteen,solitaire,binpacking,crossing}.{idp,lp}
source "$ROOT/bench/cpu.sh"

PARTS=("$@")
[ ${#PARTS[@]} -eq 0 ] && PARTS=(clique hamcycle colouring knight marriage visitall labyrinth sokoban fifteen solitaire binpacking crossing)

# row LABEL IDP_ANSWER_CMD CLINGO_ANSWER_CMD INSTANCES...: one row over the seeds
# (instances are "idp-args|clingo-args" pairs)
sum_row() {
  local label=$1 isum=0 csum=0 iwall=0 cwall=0 agree=yes pair
  shift
  for pair in "$@"; do
    IFS='|' read -r iargs cargs <<< "$pair"
    # shellcheck disable=SC2086
    best idp "$IDP" --nowarnings --threads "$THREADS" $iargs
    local is=$SECS iw=$WALL ians
    ians=$(grep -m1 -oE '^(optimum [0-9]+|Number of models: [0-9]+)$' "$TMP/idp.out" | grep -oE '[0-9]+$')
    # shellcheck disable=SC2086
    best clingo "$PY" -m clingo $cargs -t "$THREADS" --time-limit="$LIMIT"
    local cs=$SECS cw=$WALL cans
    cans=$(grep -m1 -oE '^Optimization : -?[0-9]+' "$TMP/clingo.out" | grep -oE '[0-9]+$')
    [ -n "$cans" ] || cans=$(grep -m1 -oE '^Models +: [0-9]+' "$TMP/clingo.out" | grep -oE '[0-9]+$')
    [ "$ians" = "$cans" ] || agree="DIFFER (idp ${ians:-none}, clingo ${cans:-none})"
    isum=$(awk -v a="$isum" -v b="${is#>}" 'BEGIN{print a + b}')
    csum=$(awk -v a="$csum" -v b="${cs#>}" 'BEGIN{print a + b}')
    iwall=$(awk -v a="$iwall" -v b="${iw#>}" 'BEGIN{print a + b}')
    cwall=$(awk -v a="$cwall" -v b="${cw#>}" 'BEGIN{print a + b}')
  done
  local ratio
  ratio=$(awk -v a="$isum" -v b="$csum" 'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "-" }')
  echo "$ratio" >> "$TMP/ratios"
  echo "| $label | $# | $agree | $isum ($iwall) | $csum ($cwall) | $ratio |"
}

# seeded_row LABEL KIND NAME ANSWER GEN_ARGS...: one row over the seeds, each instance made
# by `gen.py KIND GEN_ARGS... SEED` and named NAME with SEED replaced; ANSWER is `optimum`
# (both systems prove an optimum) or `model` (one model, or none)
seeded_row() {
  local label=$1 kind=$2 name=$3 answer=$4 pairs=() seed f
  shift 4
  for seed in ${SEEDS:-1 2 3 4 5}; do
    python3 "$C/gen.py" "$kind" "$@" "$seed" "$TMP" || exit 1
    f=${name//SEED/$seed}
    if [ "$answer" = optimum ]; then
      pairs+=("$TMP/$f.idp|$C/$kind.lp $TMP/$f.lp -q")
    else
      pairs+=("-n 1 $TMP/$f.idp|$C/$kind.lp $TMP/$f.lp -n 1 -q")
    fi
  done
  sum_row "$label" "${pairs[@]}"
}

bench_header
echo "clingo: $CLINGO_VERSION; limit ${LIMIT}s per run; --threads $THREADS / -t $THREADS"
echo
echo "| problem | seeds | answers | idp s | clingo s | idp / clingo |"
echo "|---|---|---|---|---|---|"
for part in "${PARTS[@]}"; do
  case $part in
  clique)
    for size in ${CLIQUE:-100:0.5 150:0.5 300:0.3}; do
      n=${size%%:*} p=${size##*:}
      seeded_row "maximum clique, $n nodes, p $p" clique "clique$n-SEED" optimum "$n" "$p"
    done
    ;;
  hamcycle)
    for n in ${HAMCYCLE:-300 1000 3000}; do
      seeded_row "Hamiltonian cycle, $n nodes" hamcycle "hamcycle$n-SEED" model "$n"
    done
    ;;
  colouring)
    for n in ${COLOURING:-1000 3000 10000}; do
      seeded_row "graph 3-colouring, $n nodes" colouring "colouring$n-SEED" model "$n" 3
    done
    ;;
  knight)
    for n in ${KNIGHT:-20 30 40}; do
      python3 "$C/gen.py" knight "$n" "$TMP" || exit 1
      sum_row "closed knight's tour, ${n}x$n" "-n 1 $TMP/knight$n.idp|$C/knight.lp $TMP/knight$n.lp -n 1 -q"
    done
    ;;
  marriage)
    for n in ${MARRIAGE:-30 60 90}; do
      seeded_row "stable marriage, $n couples" marriage "marriage$n-SEED" model "$n"
    done
    ;;
  visitall)
    for n in ${VISITALL:-5 6 7}; do
      seeded_row "visit-all, ${n}x$n grid" visitall "visitall$n-SEED" model "$n"
    done
    ;;
  labyrinth)
    for size in ${LABYRINTH:-10:10:2 16:16:2 18:18:2 14:3:3}; do
      IFS=: read -r n m k <<< "$size"
      label="labyrinth, ${n}x$n, $m steps"
      [ "$m" -le "$k" ] && label="$label (unsatisfiable)"
      seeded_row "$label" labyrinth "labyrinth$n-$m-$k-SEED" model "$n" "$m" "$k"
    done
    ;;
  sokoban)
    for size in ${SOKOBAN:-6:3 7:3 8:3}; do
      n=${size%%:*} b=${size##*:}
      seeded_row "Sokoban, ${n}x$n room, $b boxes" sokoban "sokoban$n-$b-SEED" model "$n" "$b"
    done
    ;;
  fifteen)
    for size in ${FIFTEEN:-3:12 3:18 4:14}; do
      n=${size%%:*} l=${size##*:}
      seeded_row "shortest plan, ${n}x$n sliding tiles, $l steps" fifteen "fifteen$n-$l-SEED" optimum "$n" "$l"
    done
    ;;
  solitaire)
    for m in ${SOLITAIRE:-18 27 28}; do
      seeded_row "peg solitaire, English board, $m moves" solitaire "solitaire$m-SEED" model "$m"
    done
    ;;
  binpacking)
    for n in ${BINPACKING:-12 14 16}; do
      seeded_row "bin packing, $n items" binpacking "binpacking$n-SEED" optimum "$n"
    done
    ;;
  crossing)
    for size in ${CROSSING:-4:4 4:5 4:6}; do
      l=${size%%:*} w=${size##*:}
      seeded_row "crossing minimisation, $l layers of about $w nodes" crossing "crossing$l-$w-SEED" optimum "$l" "$w"
    done
    ;;
  *) echo "unknown part $part" >&2; exit 1 ;;
  esac
done
echo
sort -g "$TMP/ratios" | awk '{ a[NR] = $1 } END { if (NR) printf "median idp / clingo: %s over %d rows; worst %s\n", a[int((NR + 1) / 2)], NR, a[NR] }'
