#!/usr/bin/env bash
# A/B benchmark: two idp binaries on the same workloads (the maze, game, Theseus, colour maze
# and Overflow specs, plus plain-written definitions), runs alternating so that machine load
# hits both alike. Prints a markdown table of the fastest wall time of each and their ratio.
#
# Usage:  bench/ab.sh OLD_IDP [NEW_IDP]      (NEW_IDP defaults to target/release/idp)
# Environment:
#   RUNS=3         runs per binary and workload (the table shows the fastest)
#   LIMIT=120      seconds before a run is stopped
#   ONLY=regex     only the workloads whose name matches
#   PEERS=/work/shared/peers   where the peers' Theseus instances are
#   CPU=1          compare CPU seconds (user + system) instead of wall seconds
set -u
cd "$(dirname "$0")/.."
OLD=${1:?usage: bench/ab.sh OLD_IDP [NEW_IDP]}
NEW=${2:-target/release/idp}
RUNS=${RUNS:-3}
LIMIT=${LIMIT:-120}
ONLY=${ONLY:-.}
PEERS=${PEERS:-/work/shared/peers}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# name | arguments (relative to the repository)
WORKLOADS=(
  "maze n=21|specs/maze/construction.idp -e search(21)"
  "maze n=31|specs/maze/construction.idp -e search(31)"
  "game mk05 13x13|specs/maze/game.idp -e plan('specs/maze/game/mk05_13x13_k2.lp')"
  "game mk08 15x15|specs/maze/game.idp -e plan('specs/maze/game/mk08_15x15_k3.lp')"
  "theseus th10|specs/theseus/theseus.idp --nowarnings -e solve('$PEERS/instances/theseus/th10_10x10_maze.lp')"
  "theseus th20|specs/theseus/theseus.idp --nowarnings -e solve('$PEERS/instances/theseus/th20_16x16_maze.lp')"
  "colour maze 12x12|specs/colourmaze/colourmaze.idp -e solvefile('specs/colourmaze/instances/random12x12c3.txt')"
  "overflow 16x16|specs/overflow/overflow.idp -e solvefile('specs/overflow/levels/random16x16.txt')"
  "examples/reachability|examples/reachability.idp"
  "examples/einstein|examples/einstein.idp"
)

# seconds BINARY ARGS...: wall time of one run (or ">LIMIT"), its output kept in $TMP/out;
# with CPU=1 the CPU time (user + system) instead, which a loaded machine disturbs less
seconds() {
  local bin=$1; shift
  local start end
  if [ -n "${CPU:-}" ]; then
    /usr/bin/time -f "%U %S" -o "$TMP/time" timeout "$LIMIT" "$bin" "$@" > "$TMP/out" 2>&1
    if [ $? = 124 ]; then echo ">$LIMIT"; return; fi
    awk '{ printf "%.3f", $1 + $2 }' "$TMP/time"
    return
  fi
  start=$(date +%s.%N)
  if ! timeout "$LIMIT" "$bin" "$@" > "$TMP/out" 2>&1; then
    if [ $? = 124 ]; then echo ">$LIMIT"; return; fi
  fi
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}

# min A B: the smaller of two times (">LIMIT" is the largest)
min() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a == "") { print b; exit } if (substr(a,1,1) == ">") { print b; exit }
    if (substr(b,1,1) == ">") { print a; exit } print (a + 0 < b + 0) ? a : b }'
}

echo "machine: $(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name:[[:space:]]*//'); $(date -u '+%F %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $OLD; new: $NEW ($(git rev-parse --short HEAD)); fastest of $RUNS alternating runs${CPU:+; CPU seconds}"
echo
echo "| workload | old s | new s | new / old |"
echo "|---|---|---|---|"
for w in "${WORKLOADS[@]}"; do
  name=${w%%|*}
  args=${w#*|}
  [[ $name =~ $ONLY ]] || continue
  read -r -a argv <<< "$args"
  best_old=""; best_new=""
  for _ in $(seq "$RUNS"); do
    best_old=$(min "$best_old" "$(seconds "$OLD" "${argv[@]}")")
    best_new=$(min "$best_new" "$(seconds "$NEW" "${argv[@]}")")
  done
  ratio=$(awk -v o="$best_old" -v n="$best_new" 'BEGIN {
    if (substr(o,1,1) == ">" || substr(n,1,1) == ">" || o + 0 == 0) { print "?"; exit }
    printf "%.2f", n / o }')
  echo "| $name | $best_old | $best_new | $ratio |"
done
