#!/usr/bin/env bash
# The consultant's latency: random consultations (bench/consult.py) replayed through
# `idp consult` on the bundled specs at interactive sizes. Each click is `assume` of a random
# literal still open, then `forced` (the intersection of the models with the choices); the
# table gives the clicks' median, 95th percentile and maximum in milliseconds (as idp measures
# each request), the time to open (ground, encode, the backbone without choices) and the
# number of atoms a click may choose.
#
# Usage:  bench/consult.sh [SPEC ...]     (default: all of maze keys theseus colour overflow)
# Environment:
#   SEQUENCES=100   random choice sequences per spec
#   STEPS=12        choices per sequence at most
#   SEED=1          the sequences' seed
#   BUDGET_MS=1000  idp consult --budget-ms: what one `forced` may search (the clicks whose
#                   answer left atoms undecided are counted in the table)
#   PEERS=/work/shared/peers   where the keys-and-gates and Theseus levels live
#   NO_BUILD=1      do not run `cargo build --release` first
#   RELEVANT=1      a click also asks `relevant` (as the workbench's page does)
#   CHOOSE=P,Q      choose only atoms of these symbols (as a user setting the input would)
#   SETTLE=N        after an answer with atoms undecided, ask `forced` again up to N times (as
#                   the workbench's page does); adds the time until all was settled
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
IDP=$ROOT/target/release/idp
PEERS=${PEERS:-/work/shared/peers}
SEQUENCES=${SEQUENCES:-100}
STEPS=${STEPS:-12}
SEED=${SEED:-1}
RUNS=1
SPECS=("$@")
[ ${#SPECS[@]} -gt 0 ] || SPECS=(europe theseus keys colour overflow maze)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_idp
bench_header
echo "$SEQUENCES sequences of at most $STEPS choices each, seed $SEED"
if [ -n "${SETTLE:-}" ]; then
  printf 'spec\tclicks\tp50 ms\tp95 ms\tmax ms\tincomplete\topen ms\tatoms\tsettled p50\tsettled p95\tnever settled\n'
else
  printf 'spec\tclicks\tp50 ms\tp95 ms\tmax ms\tincomplete\topen ms\tatoms\n'
fi

consult() {
  local label=$1; shift
  python3 bench/consult.py "$label" "$SEQUENCES" "$STEPS" "$SEED" -- "$IDP" consult --budget-ms "${BUDGET_MS:-1000}" "$@"
}

for spec in "${SPECS[@]}"; do
  case $spec in
    europe)
      # Four colours for 39 countries of Europe, in IDP-Z3's FO(·) (bench/consult/europe.idp).
      consult "europe map (FO(·))" bench/consult/europe.idp ;;
    maze)
      # Seed 000 part I: the maze theory over an empty 11 x 11 grid.
      consult "maze 11x11" specs/maze/construction.idp --theory Tmaze --structure G \
        -e 'G = newstructure(Vmaze, "G"); G[Vstart::X.type] = range(0, 10); G[Vstart::Y.type] = range(0, 10)' ;;
    keys)
      # Seed 000 part II: keys and gates, LTC theory, 9 x 9 level (a 31-step optimum), horizon 34.
      consult "keys 9x9 h34" specs/maze/game.idp --theory TT --structure G \
        -e "TT = merge(Tbase, merge(T, merge(Ttime, Tgoal))); G = ltc_structure(read_game('$PEERS/instances/keys/kg01_9x9_g1.lp'), 34)" ;;
    theseus)
      # A Theseus level, escape within 12 steps.
      consult "theseus th01 h12" specs/theseus/theseus.idp --theory TT --structure G \
        -e "TT = merge(Tboard, Ttime); G = board_structure(Vtime, board_of('$PEERS/instances/theseus/th01_4x4_rand.lp'), 12)" ;;
    colour)
      consult "colour maze 8x8" specs/colourmaze/colourmaze.idp --theory T --structure G \
        -e 'G = puzzle(readpuzzle("specs/colourmaze/instances/random8x8c3.txt"))' ;;
    overflow)
      consult "overflow 8x8" specs/overflow/overflow.idp --theory T --structure G \
        -e 'G = level(readlevel("specs/overflow/levels/random8x8.txt"))' ;;
    jobshop)
      # Ten jobs on one machine (bench/consult/jobshop.idp): half the choices set a start
      # time, a number, to a value still possible.
      NUMBERS=1 consult "job shop, 10 start times" bench/consult/jobshop.idp ;;
    *) echo "unknown spec $spec" >&2; exit 1 ;;
  esac
done
