#!/usr/bin/env bash
# Specs written the plain way (issue 15), idp against clingo on equivalent plain encodings.
# Every spec of bench/generic/ says in its header that it is written as a user would, not
# shaped for the engine.
#
# Usage:  bench/generic.sh [tc] [theseus] [game] [plan]   (default: all four)
# Environment:
#   LIMIT=120        seconds per run (clingo also gets --time-limit)
#   RUNS=1           runs per measurement (the fastest counts; a timeout is not repeated)
#   TC="700 1500 5000"                 sizes of the random graphs (2 edges per node)
#   THESEUS="..."    Theseus instances (default: the peers' 21 and bench/generic/theseus/*.lp,
#                    generated escapes of 103 to 167 moves)
#   GAME="..."       keys-and-gates instances (default: the peers' kg01-kg08, 9x9 to 17x17,
#                    one to three keys)
#   PEERS=/work/shared/peers   the peers' instances, clingo encodings and checkers
#   CLINGO=clingo==5.8.3       pip requirement for clingo
#   NO_BUILD=1       do not run `cargo build --release` first
#   CARGO_TARGET_DIR as for cargo (the binary is $CARGO_TARGET_DIR/release/idp), or IDP=path
#   BASE=path        an older idp binary, run on the same instances in the same pass ("before")
#
# Problems:
#   tc       Reach as two rules over a random graph (bench/generic/tc.idp, read with
#            calculatedefinitions; clingo: bench/generic/tc.lp); both print the number of
#            reach tuples, which must agree.
#   theseus  The state space of Theseus and the Minotaur as definitions (bench/generic/
#            theseus_states.idp with calculatedefinitions; clingo: theseus_states.lp, the same
#            rules), and the bundled spec (specs/theseus/theseus.idp, solve) for comparison;
#            every shortest escape is compared with the BFS optimum in the instance header.
#   game     Seed 000 part II literally as an LTC theory with minimize (bench/generic/
#            game_ltc.idp); clingo: the peers' keys.lp (plan over time, #minimize). Plans are
#            checked by the peers' keys_bfs.py and compared with the BFS optimum.
#   plan     The same theory and instances without a horizon: the structure has no Time and
#            `shortest()` calls plan(T, S), which grows Time one step at a time; clingo as for
#            game (its horizon is the instance's maxtime).
#
# Times are CPU seconds (user + system, from bench/rusage.py, to the millisecond; all three programs run on one
# core, so on an idle machine this is the wall time, and on a loaded one it is what the program
# itself cost), with the wall seconds in parentheses; memory is peak RSS. clingo runs as
# `python -m clingo` from a throwaway venv (its time includes the interpreter's start, ~0.05 s).
# "idp / clingo" is the ratio of CPU times: below 1 means idp is faster.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${LIMIT:-120}
RUNS=${RUNS:-1}
PEERS=${PEERS:-/work/shared/peers}
CLINGO=${CLINGO:-clingo==5.8.3}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=${IDP:-$TARGET/release/idp}
G=$ROOT/bench/generic

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_setup "$G/tc.idp" "$G/theseus_states.idp" "$G/game_ltc.idp" \
  "$PEERS/encodings/clingo/keys.lp" "$PEERS/tools/keys_bfs.py"

PARTS=("$@")
[ ${#PARTS[@]} -eq 0 ] && PARTS=(tc theseus game plan)

source "$(dirname "${BASH_SOURCE[0]}")/cpu.sh"

bench_header
echo "clingo: $CLINGO_VERSION; limit ${LIMIT}s"
echo

for part in "${PARTS[@]}"; do
case $part in
tc)
  echo "### Transitive closure (Reach by two rules, random graph with 2 edges per node)"
  echo
  echo "| nodes | edges | reach tuples | idp s | idp MB | clingo s | clingo MB | idp / clingo |${BASE:+ idp before s | before / clingo |}"
  echo "|---|---|---|---|---|---|---|---|${BASE:+---|---|}"
  for n in ${TC:-700 1500 5000}; do
    python3 "$G/gen.py" tc "$n" "$TMP" || exit 1
    best idp "$IDP" "$TMP/tc$n.idp"
    is=$SECS is_=$(shown) im=$MB icount=$(grep -E '^[0-9]+$' "$TMP/idp.out" | tail -1)
    best clingo "$PY" -m clingo "$G/tc.lp" "$TMP/tc$n.lp" --time-limit="$LIMIT"
    cs=$SECS cs_=$(shown) cm=$MB ccount=$(grep -oE 'reaches\([0-9]+\)' "$TMP/clingo.out" | grep -oE '[0-9]+')
    count=${icount:-?}
    [ "${icount:-x}" = "${ccount:-y}" ] || count="idp ${icount:-none}, clingo ${ccount:-none} (DIFFER)"
    extra=""
    if [ -n "${BASE:-}" ]; then
      best base "$BASE" "$TMP/tc$n.idp"
      extra=" $(shown) | $(ratio "$SECS" "$cs") |"
    fi
    echo "| $n | $((2 * n)) | $count | $is_ | $im | $cs_ | $cm | $(ratio "$is" "$cs") |$extra"
  done
  echo
  ;;

theseus)
  echo "### Theseus and the Minotaur: the state space as definitions"
  echo
  echo "| instance | BFS opt | idp states s | idp MB | answer | clingo states s | clingo MB | answer | idp / clingo | idp bundled spec s | bundled / clingo |${BASE:+ idp states before s | before / clingo |}"
  echo "|---|---|---|---|---|---|---|---|---|---|---|${BASE:+---|---|}"
  if [ -n "${THESEUS:-}" ]; then INST=($THESEUS); else INST=("$PEERS"/instances/theseus/*.lp "$G"/theseus/*.lp); fi
  : > "$TMP/th.sums"
  for inst in "${INST[@]}"; do
    name=$(basename "$inst" .lp)
    opt=$(grep -m1 -oE '^% optimal: [0-9]+' "$inst" | grep -oE '[0-9]+$')
    python3 "$G/gen.py" theseus "$inst" "$TMP" || exit 1
    mark() { if [ "$1" = "$opt" ]; then echo "$1 ✓"; else echo "${1:-none} ✗"; fi; }
    best idp "$IDP" "$TMP/$name.idp"
    is=$SECS is_=$(shown) im=$MB ians=$(grep -oE 'shortest escape: [0-9]+|no escape' "$TMP/idp.out" | grep -oE '[0-9]+|no escape')
    best clingo "$PY" -m clingo "$G/theseus_states.lp" "$inst" --time-limit="$LIMIT"
    cs=$SECS cs_=$(shown) cm=$MB cans=$(grep -oE 'shortest\([0-9]+\)' "$TMP/clingo.out" | grep -oE '[0-9]+')
    best spec "$IDP" specs/theseus/theseus.idp --nowarnings -e "solve('$inst')"
    ss=$SECS ss_=$(shown)
    extra="" bs=0
    if [ -n "${BASE:-}" ]; then
      best base "$BASE" "$TMP/$name.idp"
      bs=$SECS
      extra=" $(shown) | $(ratio "$SECS" "$cs") |"
    fi
    echo "| $name | $opt | $is_ | $im | $(mark "$ians") | $cs_ | $cm | $(mark "$cans") | $(ratio "$is" "$cs") | $ss_ | $(ratio "$ss" "$cs") |$extra"
    echo "$is $cs $ss $bs" >> "$TMP/th.sums"
  done
  ti=$(awk '{print $1}' "$TMP/th.sums" | sum_times)
  tcl=$(awk '{print $2}' "$TMP/th.sums" | sum_times)
  tsp=$(awk '{print $3}' "$TMP/th.sums" | sum_times)
  extra=""
  if [ -n "${BASE:-}" ]; then
    tb=$(awk '{print $4}' "$TMP/th.sums" | sum_times)
    extra=" **$tb** | **$(ratio "$tb" "$tcl")** |"
  fi
  echo "| **total (CPU)** | | **$ti** | | | **$tcl** | | | **$(ratio "$ti" "$tcl")** | **$tsp** | **$(ratio "$tsp" "$tcl")** |$extra"
  echo
  ;;

game|plan)
  if [ "$part" = game ]; then
    echo "### The maze game as a literal LTC theory with minimize"
    IDP_ARGS=()
  else
    echo "### The maze game as a literal LTC theory, planned without a horizon"
    IDP_ARGS=(-e "shortest()")
  fi
  echo
  echo "| instance | BFS opt | idp s | idp MB | idp plan | clingo s | clingo MB | clingo plan | idp / clingo |${BASE:+ idp before s | before / clingo |}"
  echo "|---|---|---|---|---|---|---|---|---|${BASE:+---|---|}"
  if [ -n "${GAME:-}" ]; then INST=($GAME); else INST=("$PEERS"/instances/keys/kg0[1-8]_*.lp); fi
  for inst in "${INST[@]}"; do
    name=$(basename "$inst" .lp)
    opt=$(grep -m1 -oE '^% optimal: [0-9]+' "$inst" | grep -oE '[0-9]+$')
    python3 "$G/gen.py" keys "$inst" "$TMP" || exit 1
    if [ "$part" = plan ]; then sed -i '/^    Time = {/d' "$TMP/$name.idp"; fi
    check() {  # check LABEL: the checked plan length (or a reason)
      local plan=$TMP/$1.plan
      grep 'at(' "$TMP/$1.out" | tail -1 > "$plan"
      [ -s "$plan" ] || { echo "no plan"; return; }
      local msg
      msg=$("$PY" "$PEERS/tools/keys_bfs.py" "$inst" --check "$plan" 2>&1)
      case $msg in
        VALID*) local len=${msg##* }; if [ "$len" = "$opt" ]; then echo "$len ✓"; else echo "$len (not optimal)"; fi ;;
        *) echo "INVALID" ;;
      esac
    }
    best idp "$IDP" "$TMP/$name.idp" "${IDP_ARGS[@]}"
    is=$SECS is_=$(shown) im=$MB
    if [[ $is == ">"* ]]; then ip=timeout; else ip=$(check idp); fi
    best clingo "$PY" -m clingo "$PEERS/encodings/clingo/keys.lp" "$inst" --time-limit="$LIMIT" --quiet=1
    cs=$SECS cs_=$(shown) cm=$MB
    if ! grep -q '^OPTIMUM FOUND' "$TMP/clingo.out"; then cs=">$LIMIT"; cs_=">$LIMIT"; cp="timeout"; else cp=$(check clingo); fi
    extra=""
    if [ -n "${BASE:-}" ]; then
      best base "$BASE" "$TMP/$name.idp" "${IDP_ARGS[@]}"
      extra=" $(shown) | $(ratio "$SECS" "$cs") |"
    fi
    echo "| $name | $opt | $is_ | $im | $ip | $cs_ | $cm | $cp | $(ratio "$is" "$cs") |$extra"
  done
  echo
  ;;

*) echo "unknown part $part (tc, theseus, game, plan)" >&2; exit 1 ;;
esac
done
