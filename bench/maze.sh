#!/usr/bin/env bash
# Maze construction benchmark: idp (specs/maze/construction.idp, search(N), which decides every
# size by search) against clingo.
#
# Usage:  bench/maze.sh [N ...]          (default: 11 21 31 41)
# Environment:
#   LIMIT=120        time limit per run, seconds (clingo also gets --time-limit=LIMIT)
#   RUNS=1           runs per measurement; the table shows the fastest (a run that
#                    times out is not repeated); every run is listed on stderr
#   PEERS=/work/shared/peers   where the clingo encoding and the checker live
#   CLINGO=clingo==5.8.3       pip requirement for clingo (the version the peers used)
#   NO_BUILD=1       do not run `cargo build --release` first
#
# clingo gets exactly the same problem: the peers' encoding $PEERS/encodings/clingo/maze.lp
# (written for the seed's part I; generic in n, instance given as `-c n=N`): cells (X,Y),
# 0 <= X,Y < n, entrance (1,0), exit (n-2,n-1), the six rules, Wall the only open symbol,
# reachability by inductive rules. Both answers are checked by the independent checker
# $PEERS/tools/maze_check.py (idp's `Wall = { P(x,y); ... }` is rewritten to wall(x,y) atoms).
# Wall time and peak memory come from /usr/bin/time; clingo's include the Python interpreter
# (`python -m clingo`, as the peers ran it), idp's the whole process.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${LIMIT:-120}
RUNS=${RUNS:-1}
PEERS=${PEERS:-/work/shared/peers}
CLINGO=${CLINGO:-clingo==5.8.3}
ENC=$PEERS/encodings/clingo/maze.lp
CHECK=$PEERS/tools/maze_check.py
SPEC=specs/maze/construction.idp
IDP=$ROOT/target/release/idp
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(11 21 31 41)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "$ENC" "$CHECK" "$SPEC"

# run LABEL N CMD...: one timed run; sets SECS, MB, STATUS (and keeps the output in $TMP/LABEL.out)
run() {
  local label=$1 n=$2; shift 2
  local out=$TMP/$label.out
  timed "$label" "$@"
  local rc=$RC
  if [ $rc = 124 ] || [ $rc = 137 ] || grep -q '^UNKNOWN' "$out"; then
    STATUS=TIMEOUT
  elif grep -q '^UNSATISFIABLE' "$out" || grep -q '^No maze of size' "$out"; then
    STATUS=unsat
  else
    local atoms=$TMP/$label.atoms
    if [ "$label" = idp ]; then
      grep -E '^[[:space:]]*Wall = ' "$out" | grep -oE 'P\([0-9]+,[0-9]+\)' | sed 's/^P/wall/' > "$atoms"
    else
      cp "$out" "$atoms"
    fi
    if [ ! -s "$atoms" ]; then
      STATUS="error (rc $rc)"
    elif "$PY" "$CHECK" "$n" "$atoms" > "$TMP/$label.check" 2>&1; then
      STATUS="sat ✓"
    else
      STATUS="INVALID: $(cut -c1-80 "$TMP/$label.check")"
    fi
  fi
}

# best LABEL N CMD...: RUNS runs (a timeout is not repeated); keeps the fastest
best() {
  local label=$1 n=$2; shift 2
  local i bs="" bm="" bst=""
  for ((i = 1; i <= RUNS; i++)); do
    run "$label" "$n" "$@"
    echo "  $label n=$n run $i: ${SECS}s ${MB}MB $STATUS" >&2
    if [ -z "$bs" ] || awk -v a="$SECS" -v b="$bs" 'BEGIN{exit !(a < b)}'; then
      bs=$SECS; bm=$MB; bst=$STATUS
    fi
    [ "$STATUS" = TIMEOUT ] && break
  done
  SECS=$bs; MB=$bm; STATUS=$bst
}

echo "machine: $(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name:[[:space:]]*//'); $(date)"
echo "idp: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo ' + uncommitted src changes') (binary of $(date -r "$ROOT/target/release/idp" '+%F %T')); clingo: $CLINGO_VERSION"
echo "limit ${LIMIT}s per run, fastest of $RUNS run(s)"
echo
echo "| n | idp s | idp MB | idp answer | clingo s | clingo MB | clingo answer | clingo / idp |"
echo "|---|---|---|---|---|---|---|---|"
for n in "${SIZES[@]}"; do
  best idp "$n" "$IDP" "$SPEC" -e "search($n)"
  is=$SECS; im=$MB; ist=$STATUS
  best clingo "$n" "$PY" -m clingo "$ENC" -c "n=$n" --time-limit="$LIMIT"
  cs=$SECS; cm=$MB; cst=$STATUS
  [ "$ist" = TIMEOUT ] && is=">$LIMIT"
  [ "$cst" = TIMEOUT ] && cs=">$LIMIT"
  ratio=$(awk -v c="$cs" -v i="$is" 'BEGIN{
      gt = (substr(c,1,1) == ">"); if (gt) c = substr(c,2);
      if (substr(i,1,1) == ">") { print "?"; exit }
      if (i < 0.01) i = 0.01;
      printf "%s%.1f", (gt ? ">" : ""), c / i }')
  echo "| $n | $is | $im | $ist | $cs | $cm | $cst | $ratio |"
done
