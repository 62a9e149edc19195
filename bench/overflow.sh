#!/usr/bin/env bash
# Overflow benchmark (seed 004): idp finds a longest solution (`maximize` of the number of wet
# tiles) of every level in specs/overflow/levels and of random levels of growing size.
#
# The seed publishes no times for its final model; it only estimates that its first length
# encoding (one constraint per subset of tiles) would take "more than one year" on its Figure 1
# level, and its final model needed a two-pass SAT scheme to exclude self-loops, which here are
# excluded by the inductive definition of the water.
#
# Usage:  bench/overflow.sh [N ...]       (random N x N levels; default: 10 16 20 24)
# Environment:
#   RUNS=3        runs per measurement; the table shows the fastest
#   SEEDS="1 2 3 4 5 6 7 8"   seeds of randomlevel(N, N, seed) tried per size
#   LIMIT=120     time limit per run, seconds
#   NO_BUILD=1    do not run `cargo build --release` first
#   CARGO_TARGET_DIR  where the binary is (default target)
#
# tests/overflow.rs checks every answer of the level files (rules, and the optimum against a
# brute force that pours the water tile by tile).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-3}
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8}
LIMIT=${LIMIT:-120}
SPEC=specs/overflow/overflow.idp
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10 16 20 24)

IDP=$TARGET/release/idp
source bench/common.sh
bench_idp

answer() { grep -o 'Score: [0-9]* *(*[a-z]*)*\|No solution' "$TMP/out" | head -1; }

bench_header
echo
echo "| level | size | idp s | answer |"
echo "|---|---|---|---|"
for f in specs/overflow/levels/*.txt; do
  rows=$(grep -vc '^//' "$f")
  cols=$(grep -v '^//' "$f" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
  t=$(fastest "$IDP" "$SPEC" -e "solvefile('$f')")
  echo "| $(basename "$f" .txt) | ${rows}x$cols | $t | $(answer) |"
done
for n in "${SIZES[@]}"; do
  for s in $SEEDS; do
    t=$(fastest "$IDP" "$SPEC" -e "solvelevel(randomlevel($n, $n, $s))")
    echo "| randomlevel($n, $n, $s) | ${n}x$n | $t | $(answer) |"
  done
done
