#!/usr/bin/env bash
# Theseus and the Minotaur benchmark: idp (specs/theseus/theseus.idp, solve(file)) against clingo.
#
# Usage:  bench/theseus.sh [instance.lp ...]
#         (default: every instance of $PEERS/instances/theseus, then generated boards with long
#         escapes written by the test suite's generator, see GEN below)
# Environment:
#   LIMIT=60         time limit per run, seconds (clingo also gets --time-limit=LIMIT)
#   PEERS=/work/shared/peers   where the clingo encoding, the instances and the checker live
#   CLINGO=clingo==5.8.3       pip requirement for clingo (the version the peers used)
#   GEN=40,60,80,100 minimum optimum of each generated instance (empty: none); the instances come
#                    from `cargo test --release --test theseus -- --ignored write_instances`
#   NO_BUILD=1       do not run `cargo build --release` first
#   CARGO_TARGET_DIR as for cargo (the binary is $CARGO_TARGET_DIR/release/idp)
#
# Both solvers get the same facts file. clingo runs the peers' encoding
# $PEERS/encodings/clingo/theseus.lp (a plan over time with #minimize, the Minotaur's moves as
# rules), idp the spec's default formulation (reachable states as an inductive definition,
# evaluated while grounding, then one path on a shortest escape). An answer counts when the
# optimum is proven (clingo: OPTIMUM FOUND; idp always proves it) and the escape passes the
# peers' independent checker ($PEERS/tools/theseus_bfs.py --check) with the BFS optimum's
# length. Wall time and peak memory come from /usr/bin/time; clingo's include the Python
# interpreter (`python -m clingo`, as the peers ran it).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${LIMIT:-60}
PEERS=${PEERS:-/work/shared/peers}
CLINGO=${CLINGO:-clingo==5.8.3}
GEN=${GEN-40,60,80,100}
ENC=$PEERS/encodings/clingo/theseus.lp
CHECK=$PEERS/tools/theseus_bfs.py
SPEC=specs/theseus/theseus.idp
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=$TARGET/release/idp

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "$ENC" "$CHECK" "$SPEC"

INSTANCES=("$@")
if [ ${#INSTANCES[@]} -eq 0 ]; then
  INSTANCES=("$PEERS"/instances/theseus/*.lp)
  if [ -n "$GEN" ]; then
    mkdir -p "$TMP/gen"
    THESEUS_OUT=$TMP/gen THESEUS_MIN_OPTS=$GEN cargo test --release --quiet --test theseus \
      -- --ignored write_instances > /dev/null 2>&1 || { echo "generator failed" >&2; exit 1; }
    INSTANCES+=("$TMP"/gen/*.lp)
  fi
fi

# run LABEL INSTANCE OPT CMD...: one timed run; sets SECS, MB, STATUS
run() {
  local label=$1 inst=$2 opt=$3; shift 3
  local out=$TMP/$label.out
  timed "$label" "$@"
  local rc=$RC
  local answer=$TMP/$label.answer
  if [ "$label" = clingo ]; then
    # The last answer clingo printed (the best one found).
    grep -E '^at\(' "$out" | tail -1 > "$answer"
  else
    grep -E '^at\(|^No escape' "$out" > "$answer"
  fi
  if [ $rc = 124 ] || [ $rc = 137 ] || { [ "$label" = clingo ] && ! grep -q '^OPTIMUM FOUND' "$out"; }; then
    STATUS=TIMEOUT
    [ -s "$answer" ] && STATUS="TIMEOUT (best $(grep -oE ',[0-9]+\)' "$answer" | tail -1 | tr -d ',)'))"
    SECS=">$LIMIT"
  elif [ ! -s "$answer" ]; then
    STATUS="error (rc $rc)"
  elif grep -q '^No escape' "$answer"; then
    STATUS="no escape"
  elif "$PY" "$CHECK" "$inst" --check "$answer" > "$TMP/$label.check" 2>&1; then
    local len
    len=$(grep -oE 'length [0-9]+' "$TMP/$label.check" | cut -d' ' -f2)
    if [ "$len" = "$opt" ]; then STATUS="$len ✓"; else STATUS="$len (not optimal)"; fi
  else
    STATUS="INVALID: $(cut -c1-60 "$TMP/$label.check")"
  fi
}

echo "machine: $(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name:[[:space:]]*//'); $(date -u '+%F %H:%M UTC')"
echo "idp: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src specs || echo ' + uncommitted changes'); clingo: $CLINGO_VERSION"
echo "limit ${LIMIT}s per run, one run each"
echo
echo "| instance | size | BFS opt | idp s | idp MB | idp answer | clingo s | clingo MB | clingo answer | clingo / idp |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for inst in "${INSTANCES[@]}"; do
  name=$(basename "$inst" .lp)
  opt=$("$PY" "$CHECK" "$inst" | awk '/^optimal/ {print $2}')
  size=$(grep -oE '^field\(1\.\.[0-9]+,1\.\.[0-9]+\)' "$inst" | grep -oE '[0-9]+,' | head -1 | tr -d ,)
  [ -n "$size" ] || size=$(grep -oE '^field\([0-9]+,' "$inst" | grep -oE '[0-9]+' | sort -n | tail -1)
  run idp "$inst" "$opt" "$IDP" "$SPEC" --nowarnings -e "solve('$inst')"
  is=$SECS; im=$MB; ist=$STATUS
  echo "  idp $name: ${is}s ${im}MB $ist" >&2
  run clingo "$inst" "$opt" "$PY" -m clingo "$ENC" "$inst" --time-limit="$LIMIT"
  cs=$SECS; cm=$MB; cst=$STATUS
  echo "  clingo $name: ${cs}s ${cm}MB $cst" >&2
  ratio=$(awk -v c="$cs" -v i="$is" 'BEGIN{
      gt = (substr(c,1,1) == ">"); if (gt) c = substr(c,2);
      if (substr(i,1,1) == ">") { print "?"; exit }
      if (i < 0.01) i = 0.01;
      printf "%s%.1f", (gt ? ">" : ""), c / i }')
  echo "| $name | ${size}x${size} | $opt | $is | $im | $ist | $cs | $cm | $cst | $ratio |"
done
