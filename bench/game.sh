#!/usr/bin/env bash
# Keys-and-gates maze game benchmark: idp (specs/maze/game.idp, plan(path)) against clingo.
#
# Usage:  bench/game.sh [instance.lp ...]     (default: every specs/maze/game/*.lp)
# Environment:
#   LIMIT=60         time limit per run, seconds (clingo also gets --time-limit=LIMIT)
#   RUNS=1           runs per measurement; the table shows the fastest (a timeout is not repeated)
#   PEERS=/work/shared/peers   where the clingo encoding lives
#   CLINGO=clingo==5.8.3       pip requirement for clingo (the version the peers used)
#   NO_BUILD=1       do not run `cargo build --release` first
#
# Both solve the same instances (the peers' ASP facts) for the shortest plan to the exit:
# clingo with the peers' encoding $PEERS/encodings/clingo/keys.lp (#minimize over the horizon
# maxtime given in the instance, ceil(1.25 opt)+2), idp with the reachable-state formulation of
# specs/maze/game.idp, which finds the horizon itself (1.5 times the walk ignoring gates, grown by
# half until the exit is reached) and ignores maxtime.
# Both answers are checked against the optimum in the instance header (computed by the peers'
# breadth-first search; tests/game.rs checks it again with its own). clingo's answer is
# "optimal" only when it printed OPTIMUM FOUND. With at most three keys per instance, the
# peers' reading (no carry limit, the key stays in the inventory after opening) and the spec's
# have the same optima. Wall time and peak memory come from /usr/bin/time; clingo's include
# the Python interpreter (`python -m clingo`, as the peers ran it).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${LIMIT:-60}
RUNS=${RUNS:-1}
PEERS=${PEERS:-/work/shared/peers}
CLINGO=${CLINGO:-clingo==5.8.3}
ENC=$PEERS/encodings/clingo/keys.lp
SPEC=specs/maze/game.idp
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=$TARGET/release/idp
FILES=("$@")
[ ${#FILES[@]} -gt 0 ] || FILES=(specs/maze/game/*.lp)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "$ENC" "$SPEC"

# run LABEL OPT CMD...: one timed run; sets SECS, MB, STATUS (output kept in $TMP/LABEL.out)
run() {
  local label=$1 opt=$2; shift 2
  local out=$TMP/$label.out
  timed "$label" "$@"
  local rc=$RC
  local got
  if [ "$label" = idp ]; then
    got=$(sed -n 's/^Shortest plan: \([0-9]*\) steps$/\1/p' "$out")
    if [ $rc = 124 ] || [ $rc = 137 ]; then STATUS=TIMEOUT; return; fi
  else
    got=$(grep '^Optimization: ' "$out" | tail -1 | awk '{print $2}')
    if ! grep -q '^OPTIMUM FOUND' "$out"; then
      STATUS="TIMEOUT (best ${got:-none})"; return
    fi
  fi
  if [ "$got" = "$opt" ]; then STATUS="$got ✓"; else STATUS="WRONG: ${got:-none} (rc $rc)"; fi
}

# best LABEL OPT CMD...: RUNS runs (a timeout is not repeated); keeps the fastest
best() {
  local label=$1 opt=$2; shift 2
  local i bs="" bm="" bst=""
  for ((i = 1; i <= RUNS; i++)); do
    run "$label" "$opt" "$@"
    echo "  $label run $i: ${SECS}s ${MB}MB $STATUS" >&2
    if [ -z "$bs" ] || awk -v a="$SECS" -v b="$bs" 'BEGIN{exit !(a < b)}'; then
      bs=$SECS; bm=$MB; bst=$STATUS
    fi
    case $STATUS in TIMEOUT*) break ;; esac
  done
  SECS=$bs; MB=$bm; STATUS=$bst
}

echo "machine: $(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name:[[:space:]]*//'); $(date -u '+%F %H:%M UTC')"
echo "idp: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src specs || echo ' + uncommitted changes'); clingo: $CLINGO_VERSION"
echo "limit ${LIMIT}s per run, fastest of $RUNS run(s)"
echo
echo "| instance | BFS opt | idp s | idp MB | idp plan | clingo s | clingo MB | clingo plan | clingo / idp |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "${FILES[@]}"; do
  name=$(basename "$f" .lp)
  opt=$(sed -n 's/^% optimal: \([0-9]*\).*/\1/p' "$f")
  echo "$name (optimum $opt)" >&2
  best idp "$opt" "$IDP" "$SPEC" -e "plan('$f')"
  is=$SECS; im=$MB; ist=$STATUS
  best clingo "$opt" "$PY" -m clingo "$ENC" "$f" --time-limit="$LIMIT" --quiet=1
  cs=$SECS; cm=$MB; cst=$STATUS
  case $ist in TIMEOUT*) is=">$LIMIT" ;; esac
  case $cst in TIMEOUT*) cs=">$LIMIT" ;; esac
  ratio=$(awk -v c="$cs" -v i="$is" 'BEGIN{
      gt = (substr(c,1,1) == ">"); if (gt) c = substr(c,2);
      if (substr(i,1,1) == ">") { print "?"; exit }
      if (i < 0.01) i = 0.01;
      printf "%s%.1f", (gt ? ">" : ""), c / i }')
  echo "| $name | $opt | $is | $im | $ist | $cs | $cm | $cst | $ratio |"
done
